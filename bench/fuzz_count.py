"""Count what the fuzz suite finds: for each parser target, how many generated cases
end in an exception the target does not allow, grouped by exception and place.

    python bench/fuzz_count.py --cases 2000            # every target
    python bench/fuzz_count.py --cases 500 --only journal_lines settings

Unlike `tests/reliability/test_fuzz_parsers.py` (which stops at the first finding and
shrinks it), this keeps going, so a run says how many cases fail and in how many
distinct places. The targets and strategies are the test suite's own.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reliability"))

from fuzz_targets import TARGETS, Target  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402


def count(target: Target, cases: int) -> tuple[int, Counter[str], float]:
    folder = Path(tempfile.mkdtemp(prefix="memdesk-fuzz-"))  # removed below
    failures: Counter[str] = Counter()
    ran = 0

    @settings(
        max_examples=cases,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(target.strategy)
    def run(value) -> None:  # type: ignore[no-untyped-def]
        nonlocal ran
        ran += 1
        try:
            target.check(value, folder)
        except target.allowed:
            pass
        except Exception as exc:  # a finding: where it was raised, and what
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(frame.filename).name}:{frame.lineno}"
            failures[f"{type(exc).__name__} at {where}"] += 1

    start = time.perf_counter()
    try:
        run()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return ran, failures, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=500, help="cases per target")
    parser.add_argument("--only", nargs="*", help="target names")
    parser.add_argument("--details", action="store_true", help="list each distinct finding")
    args = parser.parse_args()
    total_cases = total_failed = 0
    print(f"{'target':<22} {'cases':>7} {'failed':>7} {'distinct':>8} {'seconds':>8}")
    for target in TARGETS:
        if args.only and target.name not in args.only:
            continue
        ran, failures, seconds = count(target, args.cases)
        failed = sum(failures.values())
        total_cases += ran
        total_failed += failed
        print(f"{target.name:<22} {ran:>7} {failed:>7} {len(failures):>8} {seconds:>8.1f}")
        if args.details:
            for what, n in failures.most_common():
                print(f"    {n:>6}  {what}")
    print(f"{'all':<22} {total_cases:>7} {total_failed:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
