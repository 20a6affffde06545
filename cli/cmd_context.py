"""`memdesk context`: print the memory block an agent would be given (hooks call this)."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memdesk.cli.context import CliContext, UserError, whole_number

if TYPE_CHECKING:
    from memdesk.core.context.block_cache import BlockProbe


def _switch(text: str, default: bool | None = False) -> dict[str, Any]:
    """An on/off flag; `default=None`: unset means the settings decide."""
    return {"action": "store_true", "default": default, "help": text}


# What decides the block, as (flag's attribute, keyword of the core functions that
# build it: `quick_block` and `assemble_for_store`, or None when they do not take it),
# in the order the block cache keys them.
_REQUEST: tuple[tuple[str, str | None], ...] = (
    ("purpose", "purpose"),
    ("budget", "budget"),
    ("unit", "unit"),
    ("query", None),  # given to the assembly on its own (the quick path has none)
    ("scopes", "scopes"),
    ("format", "format"),
    ("lexical", None),
    ("candidates", "include_candidates"),
    ("explain", None),
    ("metadata", "metadata"),
)


def _block_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords both ways of building the block take, from the flags."""
    return {keyword: getattr(args, name) for name, keyword in _REQUEST if keyword}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "context",
        help="print the memory block an agent would receive",
        description=(
            "Assemble memory for a purpose under a budget and print it. Defaults come from "
            "[context] in .memdesk/settings.toml."
        ),
    )
    p.add_argument("--purpose", help="coding, chat or a purpose from settings")
    p.add_argument(
        "--budget",
        type=whole_number(None, 10**9),
        help="hard limit, in --unit (default from settings)",
    )
    p.add_argument("--unit", choices=("tokens", "chars"), help="budget unit")
    p.add_argument("--query", help="the user's next message: ranks and filters by relevance")
    p.add_argument(
        "--scope",
        action="extend",
        nargs="+",
        dest="scopes",
        metavar="S",
        help="only these scopes: user, project, workspace, session, global",
    )
    p.add_argument("--format", choices=("agent", "markdown"), help="output format")
    p.add_argument(
        "--lexical",
        **_switch("rank a --query by word/character overlap only (skip the search index)"),
    )
    p.add_argument(
        "--candidates", **_switch("include unconfirmed candidates (not low-confidence ones)", None)
    )
    p.add_argument(
        "--explain",
        **_switch(
            "after the block, list each entry put in (why, and its kind, scope, source and "
            "time) and each left out (why)"
        ),
    )
    p.add_argument(
        "--metadata",
        **_switch(
            "write each entry's kind, scope, source and time into the block "
            "(default: context.metadata)",
            None,
        ),
    )
    p.add_argument("--json", **_switch("print one JSON object"))
    p.set_defaults(func=run_context)


def run_context(args: argparse.Namespace, ctx: CliContext) -> int:
    # An unchanged store prints what it printed last time (core/context/block_cache.py):
    # the agents' SessionStart hook then costs a stat of each entry file.
    # The layout check comes first: the probe reads settings.toml and lists entries/,
    # which must not happen through a link out (the store would refuse to open).
    request = _cache_request(args)
    found = None
    if request is not None and _openable(ctx):
        from memdesk.core.context import block_cache

        found = block_cache.probe(ctx.dir.resolve(), request)
        if found is not None:
            kept = block_cache.recall(found)
            if kept is not None:
                sys.stdout.write(kept)
                return 0
    output = None
    if found is not None and not args.explain and not args.query:
        output = _quick_output(args, ctx, found)
    if output is not None:
        sys.stdout.write(output)
        block_cache.remember(found, output)
        return 0
    # A short process that builds ~10^5 objects (an entry each, their lists, the
    # assembly) and frees them at exit: the cyclic collector would find no garbage in
    # them, it would only walk them again and again (a third of the time at 10k
    # entries). Frozen after, so the first collection does not walk them all either.
    gc.disable()
    try:
        output, keyed = _assemble_output(args, ctx, found)
    finally:
        gc.freeze()
        gc.enable()
    sys.stdout.write(output)
    if found is not None and keyed:
        from memdesk.core.context import block_cache

        block_cache.remember(found, output)
    return 0


def _cache_request(args: argparse.Namespace) -> list[str] | None:
    """The arguments that decide the output, as text; None when the output depends on
    something the block cache does not key (a query ranked by the search index) or is
    not plain text (--json carries this run's timings)."""
    if args.json or (args.query and not args.lexical):
        return None
    return [f"{name}={getattr(args, name)!r}" for name, _ in _REQUEST]


def _quick_output(args: argparse.Namespace, ctx: CliContext, found: BlockProbe) -> str | None:
    """The block from the kept ranking rows (core/context/quick.py): after a change to
    a big store, only the entries the fill looks at are built. None: assemble in full."""
    from memdesk.core.context.quick import quick_block

    text = quick_block(
        ctx.dir.resolve(), found.listing, found.keys, found.today, **_block_options(args)
    )
    if text is None:
        return None
    return text + "\n" if text else ""


def _keep_rows(store: Any, found: BlockProbe) -> None:
    """After a full assembly of a big store: keep each entry's ranking row for the next
    run after a change (core/context/kept_rows.py), unless they are kept already."""
    from memdesk.core.context import kept_rows
    from memdesk.core.context.kept_weights import MIN_ENTRIES, WEIGHTS_NAME, KeptWeights
    from memdesk.core.entry import Entry

    snapshot = store.files.snapshot
    if len(found.listing) < MIN_ENTRIES or snapshot is None:
        return
    index = Path(store.root) / ".memdesk" / "index"
    if kept_rows.indexes(index, snapshot.path):
        return

    def entry_of(name: str) -> Entry | None:
        held = store.files.held(name)
        return held if isinstance(held, Entry) else None

    kept_rows.write(
        index, snapshot.path, found.listing, entry_of, KeptWeights(index / WEIGHTS_NAME)
    )


def _screened(store: Any) -> Callable[[str], bool]:
    """Which entries' summaries an explanation may quote: those the guard as it is now
    let through (a verdict kept or given this run, core/context/verdicts.py). The
    entries left out were never screened for the block: an unscreened one shows only
    its id and why it is out."""
    from memdesk.core.context.verdicts import VERDICTS_NAME, GuardVerdicts

    verdicts = GuardVerdicts(Path(store.root) / ".memdesk" / "index" / VERDICTS_NAME)
    clean = {entry.id for entry in store.entries() if verdicts.known_clean(entry)}
    return clean.__contains__


def _openable(ctx: CliContext) -> bool:
    """The store would open (the same check `Store.open` makes): a layout the store
    refuses is reported by the uncached path, not hidden by a kept block."""
    from memdesk.core.storage.errors import StoreError
    from memdesk.core.storage.layout import check_openable

    try:
        check_openable(ctx.dir.resolve())
    except StoreError:
        return False
    return True


def _assemble_output(
    args: argparse.Namespace, ctx: CliContext, found: BlockProbe | None
) -> tuple[str, bool]:
    """What the verb prints, and whether the block cache's key holds all it depends on
    (not when settings name a tokenizer file: that file is not in the key). With
    `found`, the store reads the entry files its key was made of (their stats taken
    once) on the day it names."""
    from memdesk.core.context.request import (
        ContextRequestError,
        assemble_for_store,
        hybrid_scorer,
    )

    # Ranking by the search index opens it on the full store; the rest only reads entries.
    store = ctx.store() if args.query and not args.lexical else ctx.reader()
    today = None
    if found is not None:
        today = found.today
        store.files.prime(found.listing)
    if args.budget is not None and args.budget < 0:
        raise UserError(f"--budget must be >= 0, got {args.budget}")
    search = None
    if args.query and not args.lexical:
        search = hybrid_scorer(
            store, on_warning=lambda text: print(f"memdesk: {text}", file=sys.stderr)
        )
    probed = found
    # The ranking rows for the next run are written while the guard's model screens
    # this block (a first run: ~40 entries, a second or more of the model).
    keep = (lambda: _keep_rows(store, probed)) if probed is not None and not args.query else None
    try:
        result = assemble_for_store(
            store,
            query=args.query,
            search=search,
            today=today,
            keep_derived=True,
            meanwhile=keep,
            **_block_options(args),
        )
    except ContextRequestError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        ctx.print_json(result.to_json())
        return "", False
    parts: list[str] = []
    if result.text:
        parts.append(result.text + "\n")
    if args.explain:
        parts.append(
            f"\n# {result.tokens}/{result.budget} {result.unit} ({result.counter}); "
            f"{len(result.included)} included, {len(result.excluded)} left out\n"
        )
        parts.append(result.explain_included() + "\n\n")
        parts.append(result.explain(_screened(store)) + "\n")
    return "".join(parts), not result.counter.startswith("tokenizer.json:")
