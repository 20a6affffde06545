"""`memdesk context` end to end, as an agent's SessionStart hook runs it: a new process.

    python bench/context_cli_bench.py [--entries 10000] [--rounds 7] [--cache DIR]

Prints one table; every row is the median and p95 wall time of `--rounds` runs of a
subprocess, and the baselines are measured in the same run on the same machine:

- python start: `python -c pass` (the floor no verb can beat)
- context, empty store: `memdesk context --budget 1500` on a store with no entries
  (start-up and imports, nothing to read)
- context, N entries: the same on the generated store, first with nothing derived
  (the entry snapshot, the kept weights and the kept block deleted before each run:
  every entry file parsed), then warm (the block kept by the run before is printed)
- context, N entries, block not kept: the kept block deleted before each run (the
  snapshot and the kept weights valid): what a run after any change to the store costs
- context, N entries, one entry changed: an entry file rewritten behind the snapshot's
  back before each run (its size and mtime no longer match: that file is read again,
  and the kept block no longer holds)

The store is the one bench/tui_bench.py generates (LoCoMo turns, 2% candidates). The
machine's load average is printed beside the table: on a shared box wall times grow
with it. Bytecode caching is on for the timed runs (as in an installed package): one
untimed run first writes the `.pyc` files (and the tokenizer cache, in a folder of
this run). Run it with another checkout's interpreter to time that checkout's code
(`/path/to/other/.venv/bin/python bench/context_cli_bench.py`): "before" figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memdesk.core.store import Store
from tui_bench import cached_store

GOAL_MS = 300


def memdesk_command() -> list[str]:
    script = Path(sys.executable).parent / "memdesk"
    return [str(script)] if script.exists() else [sys.executable, "-m", "memdesk.cli"]


CACHE = Path(tempfile.mkdtemp(prefix="memdesk-context-bench-cache-"))


def run_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files
    env["MEMDESK_NO_MODEL"] = "1"
    env["MEMDESK_CACHE_DIR"] = str(CACHE)  # the tokenizer cache, filled by the warm-up
    env["PYTHONPYCACHEPREFIX"] = str(CACHE / "pyc")  # never into the checkout timed
    return env


def timed_runs(
    command: list[str], rounds: int, before: Callable[[], None] | None = None
) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds: user + system of the child) per run. On a shared box
    the wall clock also counts time the process waited for a CPU; its CPU time does not."""
    env = run_env()
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(rounds):
        if before is not None:
            before()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - used.ru_utime + after.ru_stime - used.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{command} failed: {done.stderr.decode()[-400:]}")
    return walls, cpus


def stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def derived_files(root: Path, *patterns: str) -> list[Path]:
    """Derived files of `memdesk context` in index/ (whatever their name)."""
    index = root / ".memdesk" / "index"
    return [p for pattern in patterns for p in index.glob(pattern)] if index.is_dir() else []


COLD = ("entry-snapshot*", "context-*")  # the snapshot, the kept weights and blocks
BLOCKS = ("context-block-*",)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--budget", type=int, default=1500)
    parser.add_argument("--cache", type=Path, help="keep the generated store here; reuse it")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-context-bench-"))
    try:
        big = tmp / "big"
        cached_store(big, args.entries, args.cache)
        empty = tmp / "empty"
        Store.init(empty)
        verb = ["context", "--budget", str(args.budget)]
        command = memdesk_command()
        timed_runs([*command, "--dir", str(big), *verb], 1)  # writes .pyc files

        def cold() -> None:
            for path in derived_files(big, *COLD):
                path.unlink()

        def no_block() -> None:
            for path in derived_files(big, *BLOCKS):
                path.unlink()

        changed = sorted((big / ".memdesk" / "entries").glob("*.toml"))[3]

        def touch_one() -> None:
            text = changed.read_text("utf-8")
            changed.write_text(text.replace("version = ", "version=", 1) if "version = " in text
                               else text.replace("version=", "version = ", 1), "utf-8")  # fmt: skip

        n = args.entries
        rows = [
            ("python start (python -c pass)", timed_runs([sys.executable, "-c", "pass"],
                                                         args.rounds)),
            ("context, empty store", timed_runs([*command, "--dir", str(empty), *verb],
                                                args.rounds)),
            (f"context, {n} entries, nothing derived", timed_runs(
                [*command, "--dir", str(big), *verb], args.rounds, cold)),
            (f"context, {n} entries, block not kept", timed_runs(
                [*command, "--dir", str(big), *verb], args.rounds, no_block)),
            (f"context, {n} entries, warm", timed_runs([*command, "--dir", str(big), *verb],
                                                       args.rounds)),
            (f"context, {n} entries, one file changed", timed_runs(
                [*command, "--dir", str(big), *verb], args.rounds, touch_one)),
        ]  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(CACHE, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(f"{'measure':44} {'median ms':>10} {'p95 ms':>8} {'CPU ms':>8} {'goal ms':>8}")
    for name, (walls, cpus) in rows:
        med, p95 = stats(walls)
        cpu, _ = stats(cpus)
        goal = f"≤{GOAL_MS}" if "entries" in name else "–"
        print(f"{name:44} {med:10.1f} {p95:8.1f} {cpu:8.1f} {goal:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
