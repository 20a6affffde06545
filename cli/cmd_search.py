"""Search verbs: search (one query or a --batch file), reindex, duplicates."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from memdesk.cli.context import CliContext, UserError, typed_file, whole_number
from memdesk.core.entry import KINDS, SCOPES, STATUSES
from memdesk.core.jsonfile import loads

MODES = ("hybrid", "text", "semantic")
MAX_LIMIT = 100_000  # hits; more than any store holds, less than what overflows


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="search entries (full text + semantic)")
    p.add_argument("query", nargs="?", help="what to look for (Chinese, English or mixed)")
    p.add_argument(
        "--mode", choices=MODES, default="hybrid", help="full text, semantic or both fused"
    )
    p.add_argument("--status", choices=STATUSES, action="append", help="repeatable")
    p.add_argument("--kind", choices=KINDS, action="append", help="repeatable")
    p.add_argument("--scope", choices=SCOPES, action="append", help="repeatable")
    p.add_argument("--since", type=_day, metavar="YYYY-MM-DD", help="updated on or after")
    p.add_argument("--until", type=_day, metavar="YYYY-MM-DD", help="updated before")
    p.add_argument("--limit", type=whole_number(1, MAX_LIMIT), default=10, help="how many hits")
    p.add_argument("--json", action="store_true", help="a JSON array of hits")
    p.add_argument(
        "--batch",
        metavar="FILE",
        help='JSONL of {"id", "query"} (- for stdin); prints one JSON line of hits per query',
    )
    p.set_defaults(func=run_search)

    p = sub.add_parser("reindex", help="rebuild the search indexes from the entry files")
    p.set_defaults(func=run_reindex)

    p = sub.add_parser("duplicates", help="exact / near duplicates and likely contradictions")
    p.add_argument("--json", action="store_true", help="the pairs as a JSON array")
    p.set_defaults(func=run_duplicates)


def _day(text: str) -> dt.datetime:
    """A date on the command line, as the start of that day in UTC."""
    try:
        return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), tzinfo=dt.UTC)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def _open_service(
    ctx: CliContext, *, sync: bool = True, text_only: bool = False
):  # -> SearchService
    from memdesk.core.search import SearchService, SearchSettingsError

    store = ctx.store()
    try:
        if text_only:  # no model to load (about a second): full text needs none
            service = SearchService(store.index_dir, store.settings, embedder=None)
        else:
            service = SearchService(store.index_dir, store.settings)
    except SearchSettingsError as exc:
        raise UserError(str(exc)) from exc
    if sync:
        service.sync(store.entries(), progress=_progress_printer())
    return store, service


def _progress_printer():
    def show(done: int, total: int) -> None:
        if total >= 200 and sys.stderr.isatty():
            end = "\n" if done >= total else "\r"
            print(f"embedding {done}/{total}", end=end, file=sys.stderr, flush=True)

    return show


def run_search(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.limit < 1:
        raise UserError("--limit must be at least 1")
    if not args.batch and not (args.query or "").strip():
        raise UserError("give a QUERY or --batch FILE")
    store, service = _open_service(ctx, text_only=args.mode == "text" and not args.batch)
    if args.mode != "text" and not service.has_model:
        print(f"memdesk: {service.model_status}", file=sys.stderr)
    filters = {"status": args.status, "kind": args.kind, "scope": args.scope}
    filters |= {"since": args.since, "until": args.until}
    if args.batch:
        return _run_batch(args, ctx, service, filters)
    hits = service.search(args.query, mode=args.mode, limit=args.limit, **filters)
    if args.json:
        ctx.print_json([h.to_json() for h in hits])
        return 0
    if not hits:
        print("no matches")
        return 0
    entries = {e.id: e for e in store.entries()}
    for hit in hits:
        entry = entries.get(hit.entry_id)
        summary = entry.summary if entry else ""
        print(f"{hit.score:8.4f}  {hit.entry_id}  {summary}")
        print(f"          {hit.reason}")
    return 0


def _run_batch(
    args: argparse.Namespace, ctx: CliContext, service: Any, filters: dict[str, Any]
) -> int:
    lines = sys.stdin if args.batch == "-" else _read_lines(typed_file(args.batch, ctx.dir))
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = loads(line, f"{args.batch}:{number}")
            query = item["query"]
            if not isinstance(query, str):
                raise TypeError
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f'{args.batch}:{number}: expected {{"id", "query"}} JSON') from exc
        mode = item.get("mode", args.mode)
        if mode not in MODES:
            raise UserError(f"{args.batch}:{number}: unknown mode {mode!r}")
        try:
            limit = whole_number(1, MAX_LIMIT)(str(item.get("limit", args.limit)))
        except argparse.ArgumentTypeError as exc:
            raise UserError(f"{args.batch}:{number}: limit {exc}") from None
        hits = service.search(query, mode=mode, limit=limit, **filters)
        ctx.print_jsonl({"id": item.get("id"), "hits": [h.to_json() for h in hits]})
    return 0


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from exc


def run_reindex(args: argparse.Namespace, ctx: CliContext) -> int:
    store, service = _open_service(ctx, sync=False)
    report = service.rebuild(store.entries(), progress=_progress_printer())
    print(
        f"indexed {report.added} entries; embedded {report.embedded} new texts; "
        f"{service.model_status}"
    )
    return 0


def run_duplicates(args: argparse.Namespace, ctx: CliContext) -> int:
    store, service = _open_service(ctx)
    pairs = service.duplicates(store.entries())
    if args.json:
        ctx.print_json([p.to_json() for p in pairs])
        return 0
    if not pairs:
        print("no duplicates or contradictions")
    for pair in pairs:
        print(f"{pair.type:13} {pair.score:.2f}  {pair.a}  {pair.b}  {pair.reason}")
    return 0
