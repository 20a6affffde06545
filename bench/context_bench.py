"""Context assembly time at N entries: cold, warm and cached; compared with a baseline.

Entries are the 150 bilingual bench entries (../shared/bench-data/bilingual/dev), copied
N/150 times with distinct ids, ages and statuses. Read-only use of the data.

    python bench/context_bench.py [--entries 10000] [--repeat 20] [--data PATH]

cold    first assembly in a fresh process state (token-count and term memos cleared)
warm    the same call again (memos filled), median of --repeat runs
warm, store_version  a new budget each call with an unchanged `store_version`: the
        query-independent screening of all entries is memoised (a preview slider, or
        typing a query in the TUI)
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


def timed(fn, repeat: int) -> tuple[float, float, float]:
    """(min wall, median wall, median CPU) in ms. On a shared box the wall clock also
    counts time this process waited for a CPU; process CPU time does not."""
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        cpus.append((time.process_time() - c) * 1000)
        walls.append((time.perf_counter() - t) * 1000)
    return min(walls), statistics.median(walls), statistics.median(cpus)


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
    rows: list[tuple[str, str, str, float, float, float]] = []
    for _label, counter in (
        ("estimate", EstimateCounter()),
        ("auto", get_counter("tokens", "auto")),
    ):
        for label, query in (("no query", None), ("query", "数据库迁移 migration command")):

            def call(counter=counter, query=query):
                return assemble(entries, budget=2000, query=query, today=today, counter=counter)

            clear_memos()
            rows.append((counter.name, label, "cold", *timed(call, 1)))
            rows.append((counter.name, label, "warm", *timed(call, args.repeat)))
            explained = timed(lambda call=call: call().excluded, args.repeat)
            rows.append((counter.name, label, "warm + explanation", *explained))

            budgets = iter(range(1000, 10**6))

            def memo(counter=counter, query=query, budgets=budgets):
                # a new budget every call (a slider in the preview), same store version
                return assemble(
                    entries, budget=next(budgets), query=query, today=today, counter=counter,
                    store_version=("bench", counter.name),
                )  # fmt: skip

            memo()
            rows.append((counter.name, label, "warm, store_version", *timed(memo, args.repeat)))
        cache = ContextCache()

        def cached(counter=counter, cache=cache):
            return cache.assemble(
                entries, budget=2000, today=today, counter=counter, store_version=1
            )

        cached()
        rows.append((counter.name, "no query", "cached", *timed(cached, args.repeat)))
        clear_memos()
        base = timed(lambda counter=counter: baseline(entries, counter), 3)
        rows.append((counter.name, "no query", "baseline: count all", *base))

    result = assemble(entries, budget=2000, today=today, counter=EstimateCounter())
    print(f"context assembly, {len(entries)} entries, budget 2000 tokens "
          f"({len(result.included)} included, {len(result.excluded)} excluded); "
          f"goal: warm <= 10 ms")  # fmt: skip
    print(f"{'counter':<20} {'query':<9} {'run':<22} {'min ms':>8} {'median ms':>10} {'cpu ms':>8}")
    for counter_name, label, run, least, median, cpu in rows:
        print(f"{counter_name:<20} {label:<9} {run:<22} {least:>8.3f} {median:>10.3f} {cpu:>8.3f}")
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
