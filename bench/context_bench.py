"""Context assembly time at N entries: cold, warm and cached; compared with a baseline.

Entries are the 150 bilingual bench entries (../shared/bench-data/bilingual/dev), copied
N/150 times with distinct ids, ages and statuses. Read-only use of the data.

    python bench/context_bench.py [--entries 10000] [--repeat 20] [--data PATH]

cold    first assembly in a fresh process state (token-count and term memos cleared)
warm    the same call again (memos filled), median of --repeat runs
cached  through ContextCache (same store version): a dictionary look-up
baseline: seed 001 style "render everything, then count": every eligible entry rendered
          and counted, no early stop (what the assembler avoids doing)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

from memdesk.core.context import assemble
from memdesk.core.context import query as query_module
from memdesk.core.context.cache import ContextCache
from memdesk.core.context.render import item_lines
from memdesk.core.context.tokens import EstimateCounter, _estimate, get_counter
from memdesk.core.entry import Entry, entry_from_json


def _find_data() -> Path:
    """shared/ sits beside the checkout (CI) or above it (worktrees); /work/shared otherwise."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "bench-data" / "bilingual" / "dev"
        if candidate.is_dir():
            return candidate
    return Path("/work/shared/bench-data/bilingual/dev")


DEFAULT_DATA = _find_data()
FIELDS = ("kind", "scope", "status", "confidence", "summary", "facts", "source", "tags")


def load_entries(data_dir: Path, n: int) -> list[Entry]:
    raw = json.loads((data_dir / "entries.json").read_text("utf-8"))
    base = [entry_from_json({k: v for k, v in d.items() if k in FIELDS}) for d in raw]
    today = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    out: list[Entry] = []
    i = 0
    while len(out) < n:
        for entry in base:
            if len(out) >= n:
                break
            when = today - dt.timedelta(days=(i * 7) % 700)
            out.append(
                entry.copy(
                    id=f"b{i:06d}",
                    summary=f"{entry.summary} #{i}",
                    created=when,
                    updated=when,
                )
            )
            i += 1
    return out


def clear_memos() -> None:
    _estimate.cache_clear()
    query_module._TERM_CACHE.clear()
    for counter in (get_counter("tokens", "auto"),):
        cache = getattr(counter, "_count", None)
        if cache is not None:
            cache.cache_clear()


def timed(fn, repeat: int) -> tuple[float, float]:
    """(min, median) in ms: min is the least disturbed by other processes on the box."""
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t) * 1000)
    return min(runs), statistics.median(runs)


def baseline(entries: list[Entry], counter) -> int:
    total = 0
    for entry in entries:
        if entry.status == "confirmed" and not entry.flags:
            total += counter.count("\n".join(item_lines(entry, "agent")))
    return total


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    if not (args.data / "entries.json").exists():
        print(f"bench data not found at {args.data}", file=sys.stderr)
        return 1
    entries = load_entries(args.data, args.entries)
    today = dt.date(2026, 6, 1)
    rows: list[tuple[str, str, str, float, float]] = []
    for _label, counter in (
        ("estimate", EstimateCounter()),
        ("auto", get_counter("tokens", "auto")),
    ):
        for label, query in (("no query", None), ("query", "数据库迁移 migration command")):

            def call(counter=counter, query=query):
                return assemble(entries, budget=2000, query=query, today=today, counter=counter)

            clear_memos()
            t = time.perf_counter()
            call()
            cold = (time.perf_counter() - t) * 1000
            warm, warm_median = timed(call, args.repeat)
            rows.append((counter.name, label, "cold", cold, cold))
            rows.append((counter.name, label, "warm", warm, warm_median))
            explained, explained_median = timed(lambda call=call: call().excluded, args.repeat)
            rows.append((counter.name, label, "warm + explanation", explained, explained_median))
        cache = ContextCache()

        def cached(counter=counter, cache=cache):
            return cache.assemble(
                entries, budget=2000, today=today, counter=counter, store_version=1
            )

        cached()
        hit, hit_median = timed(cached, args.repeat)
        rows.append((counter.name, "no query", "cached", hit, hit_median))
        clear_memos()
        base, base_median = timed(lambda counter=counter: baseline(entries, counter), 3)
        rows.append((counter.name, "no query", "baseline: count all", base, base_median))

    result = assemble(entries, budget=2000, today=today, counter=EstimateCounter())
    print(f"context assembly, {len(entries)} entries, budget 2000 tokens "
          f"({len(result.included)} included, {len(result.excluded)} excluded); "
          f"goal: warm <= 10 ms")  # fmt: skip
    print(f"{'counter':<20} {'query':<9} {'run':<22} {'min ms':>9} {'median ms':>10}")
    for counter_name, label, run, least, median in rows:
        print(f"{counter_name:<20} {label:<9} {run:<22} {least:>9.3f} {median:>10.3f}")
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
