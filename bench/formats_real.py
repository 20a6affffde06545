"""Every real transcript through the format readers: detected vs expected format, and
messages by origin (who wrote the words).

    python bench/formats_real.py [--data ../shared/bench-data/real] [--json]

The data folder defaults to `../shared/bench-data/real` next to the repository (or
$MEMDESK_REAL_DATA). Expected formats come from each transcript's gold file (`format`).
Exit code 1 when a transcript is not recognised or is read as another format.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from memdesk.core.extract.messages import ORIGINS, ReadStats
from memdesk.core.extract.readers import UnrecognisedFormat, detect_format, read_messages


def default_data() -> Path:
    """`../shared/bench-data/real` beside the repository (or beside a folder above it,
    for a worktree), unless $MEMDESK_REAL_DATA says otherwise."""
    if os.environ.get("MEMDESK_REAL_DATA"):
        return Path(os.environ["MEMDESK_REAL_DATA"])
    repo = Path(__file__).resolve().parents[1]
    for base in (repo.parent, *repo.parent.parents):
        candidate = base / "shared" / "bench-data" / "real"
        if candidate.is_dir():
            return candidate
    return repo.parent / "shared" / "bench-data" / "real"


# Gold names for formats that the readers split finer or name differently.
SAME_FORMAT = {"generic-jsonl": {"jsonl", "json"}, "markdown": {"markdown", "claude-console"}}
COLUMNS = [o for o in ORIGINS if o]


def expected_format(data: Path, name: str) -> str:
    gold = data / "gold" / f"{name}.json"
    if not gold.is_file():
        return "?"
    return str(json.loads(gold.read_text("utf-8")).get("format") or "?")


def row(data: Path, path: Path) -> dict[str, object]:
    expected = expected_format(data, path.name)
    stats = ReadStats(str(path))
    started = time.perf_counter()
    try:
        detected = detect_format(path)
        origins = Counter(m.origin or "?" for m in read_messages(path, stats=stats, fmt=detected))
    except UnrecognisedFormat:
        detected, origins = "UNRECOGNISED", Counter()
    seconds = time.perf_counter() - started
    ok = detected == expected or detected in SAME_FORMAT.get(expected, set())
    return {
        "file": path.name,
        "detected": detected,
        "expected": expected,
        "ok": ok,
        "messages": sum(origins.values()),
        "origins": dict(origins),
        "ignored": stats.ignored,
        "skipped": stats.skipped,
        "bytes": path.stat().st_size,
        "seconds": round(seconds, 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="default: ../shared/...")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    data = args.data or default_data()
    folder = data / "transcripts"
    if not folder.is_dir():
        print(f"formats_real: no transcripts folder at {folder}", file=sys.stderr)
        return 2
    rows = [row(data, p) for p in sorted(folder.iterdir()) if p.is_file()]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(rows)
    return 0 if all(r["ok"] for r in rows) else 1


def print_table(rows: list[dict[str, object]]) -> None:
    head = ["file", "detected", "expected", "ok", *COLUMNS, "ignored"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    totals: Counter[str] = Counter()
    for r in rows:
        origins = r["origins"]
        assert isinstance(origins, dict)
        totals.update(origins)
        cells = [
            str(r["file"])[:48],
            str(r["detected"]),
            str(r["expected"]),
            "yes" if r["ok"] else "NO",
        ]
        cells += [str(origins.get(o, "")) for o in COLUMNS] + [str(r["ignored"])]
        print("| " + " | ".join(cells) + " |")
    recognised = sum(1 for r in rows if r["ok"])
    cells = ["total", f"{recognised}/{len(rows)} right", "", ""]
    cells += [str(totals.get(o, "")) for o in COLUMNS] + [""]
    print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    raise SystemExit(main())
