"""`memdesk conflicts` and `memdesk resolve`: the conflict screen for scripts."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli.context import CliContext, UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "conflicts",
        help="list open conflicts: concurrent edits, git markers, contradictions, duplicates",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--no-pairs", action="store_true", help="only field conflicts (edits, git markers)"
    )
    p.add_argument(
        "--search", action="store_true", help="use the search index's model to find pairs"
    )
    p.set_defaults(func=run_conflicts)

    p = sub.add_parser("resolve", help="resolve one open conflict (see `memdesk conflicts`)")
    p.add_argument("which", help="the conflict's key, or an entry id it involves")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--take", choices=("ours", "theirs", "both"), help="field conflicts")
    how.add_argument("--keep", metavar="ID", help="pairs: keep ID, supersede the other")
    how.add_argument("--merge-into", metavar="ID", help="pairs: fold the other into ID")
    how.add_argument("--dismiss", action="store_true", help="pairs: not a problem; remember")
    p.add_argument("--search", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=run_resolve)


def _items(args: argparse.Namespace, ctx: CliContext, store: Any) -> list[Any]:
    from memdesk.core.conflicts import list_conflicts

    search = None
    if getattr(args, "search", False):
        try:
            from memdesk.core.search import SearchService

            search = SearchService.for_store(store)
        except Exception as exc:
            print(f"memdesk: search unavailable ({exc}); word overlap only", file=sys.stderr)
    return list_conflicts(store, search, include_pairs=not getattr(args, "no_pairs", False))


def run_conflicts(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    items = _items(args, ctx, store)
    if args.json:
        ctx.print_json({"conflicts": [i.to_json() for i in items]})
        return 0
    if not items:
        print("no open conflicts")
        return 0
    for item in items:
        print(f"{item.key}\n  {item.label}: {' / '.join(item.ids)} — {item.reason}")
    return 0


def run_resolve(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.conflicts import ConflictError, dismiss, keep_one, merge_pair, take_side
    from memdesk.core.store import StoreError

    store = ctx.store()
    items = _items(args, ctx, store)
    matches = [i for i in items if i.key == args.which] or [i for i in items if args.which in i.ids]
    if not matches:
        raise UserError(f"no open conflict {args.which!r}; see `memdesk conflicts`")
    if len(matches) > 1:
        keys = ", ".join(i.key for i in matches)
        raise UserError(f"{args.which!r} is in several conflicts ({keys}); give the key")
    item = matches[0]
    try:
        if args.take:
            entry = take_side(store, item, args.take, actor="cli")
            print(f"{entry.id}: took {args.take}")
        elif args.keep:
            before = store.find(args.keep)
            entry = keep_one(store, item, args.keep, actor="cli")
            approved = " (approved)" if before and before.status in ("candidate", "expired") else ""
            others = " / ".join(i for i in item.ids if i != entry.id)
            print(f"kept {entry.id}{approved}; {others} superseded")
        elif args.merge_into:
            entry = merge_pair(store, item, args.merge_into, actor="cli")
            print(f"merged into {entry.id}")
        else:
            dismiss(store, item)
            print(f"dismissed {item.key}")
    except (ConflictError, StoreError) as exc:
        raise UserError(str(exc)) from exc
    return 0
