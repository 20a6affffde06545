"""`memdesk stats`: seed 001's metrics for the working directory."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli.context import CliContext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stats",
        help="store size, entries by status/kind/scope, expiry, latency, index health",
        description="Metrics of the memory store. Latencies are warm medians.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--no-search",
        action="store_true",
        help="do not open the search index (no index health or search latency)",
    )
    p.add_argument("--no-timing", action="store_true", help="skip the latency measurements")
    p.set_defaults(func=run_stats)


def run_stats(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.stats import compute_stats

    store = ctx.store()
    search = None if args.no_search else _open_search(store)
    stats = compute_stats(store, search, measure=not args.no_timing)
    if args.json:
        ctx.print_json(stats.to_json())
    else:
        sys.stdout.write(format_stats(stats.to_json()) + "\n")
    return 0


def _open_search(store: Any) -> Any:
    try:
        from memdesk.core.search import SearchService

        return SearchService.for_store(store)
    except Exception as exc:  # stats must still print without an index
        print(f"memdesk: search index unavailable ({exc})", file=sys.stderr)
        return None


def format_stats(data: dict[str, Any]) -> str:
    """The JSON form as aligned text lines (sections from other subsystems included)."""
    b = data["bytes"]
    lat = data["latency_ms"]
    idx = data["index"]
    avg = data["average_confidence"]
    lines = [
        f"store        {data['root']}",
        f"entries      {data['entries']}  ({_kib(b['store'])} store, {_kib(b['entries'])} "
        f"entry files, {_kib(b['journal'])} journal, {_kib(b['index'])} index)",
        f"status       {_pairs(data['by_status'])}",
        f"kind         {_pairs(data['by_kind'])}",
        f"scope        {_pairs(data['by_scope'])}",
        f"confidence   {_pairs(data['by_confidence'])}; average "
        f"{'-' if avg is None else f'{avg:.2f}'} (live entries)",
        f"expired      {_pairs(data['expired_per_day']) or 'none in the journal'}; "
        f"{data['due_to_expire']} due",
        f"journal      {data['journal_records']} records; {data['problems']} unreadable file(s); "
        f"{data['open_conflicts']} open conflict(s)",
        f"latency      search {_ms(lat['search'])}, assembly {_ms(lat['assembly'])} (warm median)",
        f"index        {idx['state']}: {idx['documents']}/{idx['entries']} documents, "
        f"{idx['vectors']} vectors {('— ' + idx['detail']) if idx['detail'] else ''}".rstrip(),
        f"model        {idx['model'] or '-'}",
    ]
    known = {
        "root", "entries", "bytes", "by_status", "by_kind", "by_scope", "by_confidence",
        "average_confidence", "expired_per_day", "due_to_expire", "journal_records",
        "problems", "open_conflicts", "latency_ms", "index", "computed_at",
    }  # fmt: skip
    from memdesk.core.stats import flatten

    for name, section in data.items():
        if name not in known and isinstance(section, dict):
            shown = ", ".join(
                f"{k} {v}" for k, v in flatten(section) if k != "last" and not k.startswith("last.")
            )
            lines.append(f"{name:<12} {shown or '-'}")
    return "\n".join(lines)


def _pairs(mapping: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in mapping.items() if v not in (0, None, ""))


def _kib(n: int) -> str:
    return f"{n / 1024:.1f} KiB"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} ms"
