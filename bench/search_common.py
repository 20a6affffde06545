"""Shared helpers for the search benchmarks: data paths, table printing, RSS."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Sequence
from pathlib import Path

from memdesk.core.entry import Entry

BENCH_DATA = Path(
    os.environ.get(
        "MEMDESK_BENCH_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "bench-data"
    )
)
if not BENCH_DATA.exists():
    BENCH_DATA = Path("/work/shared/bench-data")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |"
    print(line)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    print()


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_bilingual() -> tuple[list[Entry], list[dict]]:
    base = BENCH_DATA / "bilingual" / "dev"
    raw = json.loads((base / "entries.json").read_text("utf-8"))
    entries = [Entry.from_dict(item) for item in raw]
    queries = json.loads((base / "queries.json").read_text("utf-8"))
    return entries, queries
