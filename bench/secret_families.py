"""How many of the secret families in tests/core/secret_families_corpus.py the guard
catches, per family, and how many ordinary texts of the same shapes it changes.

    python bench/secret_families.py [--list]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "core"))

from memdesk.core.guard import redact_text  # noqa: E402
from secret_families_corpus import CAUGHT, KEPT  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print each miss")
    args = parser.parse_args()
    total: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    for family, text, value in CAUGHT:
        total[family] += 1
        if value not in redact_text(text)[0]:
            caught[family] += 1
        elif args.list:
            print(f"missed [{family}] {text!r}")
    changed = [t for t in KEPT if redact_text(t)[0] != t]
    for family in total:
        print(f"{family:9} {caught[family]:3} / {total[family]}")
    print(f"{'all':9} {sum(caught.values()):3} / {sum(total.values())}")
    print(f"ordinary texts changed: {len(changed)} / {len(KEPT)}")
    for text in changed if args.list else []:
        print(f"changed {text!r} -> {redact_text(text)[0]!r}")


if __name__ == "__main__":
    main()
