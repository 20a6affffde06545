"""Write docs/cli-reference.md from memdesk's argument parser.

    python scripts/cli_reference.py           # rewrite the page
    python scripts/cli_reference.py --check   # exit 1 when the page is out of date

tests/cli/test_cli_reference.py runs the check, so a verb or flag changed without
regenerating the page fails the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memdesk.cli.reference import render_reference

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli-reference.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args()
    text = render_reference()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is out of date: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
