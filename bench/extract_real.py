"""Extraction quality on real agent transcripts, scored with the hand-judged gold facts.

    python bench/extract_real.py [--data DIR] [--show FILE...] [--json]

DIR holds `transcripts/` and `gold/` (default: `../shared/bench-data/real` next to the
repository, or `$MEMDESK_REAL_DATA`). Each transcript goes through what `memdesk extract`
does with default settings (reader, default extractor, the do-not-write guard, the
per-transcript cap); the kept candidates are matched against the gold facts with the rule
of `gold/README.md` (bench/gold_match.py).

Per file: recognised (did a reader take it as a conversation), format, candidates,
matched candidates, precision, recall; then the micro totals (pooled over files) and F1.
`--show NAME` prints, for files whose name contains NAME, every candidate with the gold
facts it matched and the gold facts nobody matched: read those, not only the totals.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gold_match import FileScore, GoldFact, Totals, score_file  # noqa: E402
from memdesk.core.entry import Entry  # noqa: E402
from memdesk.core.extract.transcript import transcript_candidates  # noqa: E402

logging.getLogger("memdesk").setLevel(logging.ERROR)  # readers warn per line; the table says enough

ENV_VAR = "MEMDESK_REAL_DATA"


def default_data() -> Path:
    """`../shared/bench-data/real` beside the repository (a worktree's main checkout too)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    repo = Path(__file__).resolve().parents[1]
    for base in (repo.parent, repo.parent.parent):
        candidate = base / "shared" / "bench-data" / "real"
        if candidate.is_dir():
            return candidate
    return repo.parent / "shared" / "bench-data" / "real"


@dataclass
class FileRun:
    name: str
    recognised: bool
    fmt: str
    entries: list[Entry]
    over_cap: int
    score: FileScore
    facts: list[GoldFact]


def candidate_text(entry: Entry) -> str:
    return "\n".join([entry.summary, *entry.facts])


def run_file(path: Path, gold_dir: Path) -> FileRun:
    gold = json.loads((gold_dir / f"{path.name}.json").read_text("utf-8"))
    facts = [GoldFact.from_json(f) for f in gold["facts"]]
    result = transcript_candidates(path)
    score = score_file((candidate_text(e) for e in result.entries), facts)
    return FileRun(
        path.name, result.recognised, result.format, result.entries, result.over_cap, score, facts
    )


def print_table(runs: list[FileRun]) -> Totals:
    header = f"{'file':<44} {'rec':>3} {'format':<12} {'cand':>5} {'match':>5} {'over':>5} {'P':>5} {'R':>5}"
    print(header)
    print("-" * len(header))
    totals = Totals()
    for run in runs:
        totals.add(run.score)
        recall = run.score.recall
        print(
            f"{run.name[:44]:<44} {'yes' if run.recognised else 'no':>3} {run.fmt[:12]:<12} "
            f"{run.score.candidates:>5} {run.score.matched_candidates:>5} {run.over_cap:>5} "
            f"{run.score.precision:>5.2f} {'-' if recall is None else f'{recall:.2f}':>5}"
        )
    print("-" * len(header))
    print(
        f"{'micro total':<44} {sum(r.recognised for r in runs):>3} {'':<12} {totals.candidates:>5} "
        f"{totals.matched_candidates:>5} {sum(r.over_cap for r in runs):>5} "
        f"{totals.precision:>5.2f} {totals.recall:>5.2f}"
    )
    print(
        f"\nmicro precision {totals.precision:.3f}  recall {totals.recall:.3f} "
        f"({totals.matched_gold}/{totals.gold} gold facts)  F1 {totals.f1:.3f}"
    )
    return totals


def show(run: FileRun) -> None:
    print(f"\n== {run.name}")
    for entry, found in zip(run.entries, run.score.pairs, strict=True):
        mark = ",".join(found) if found else "-"
        role = entry.source.locator.rsplit("/", 1)[-1]
        print(f"  [{mark:>7}] {entry.summary[:150]}  ({role})")
    hit = {g for pair in run.score.pairs for g in pair}
    for fact in run.facts:
        if fact.id not in hit:
            print(f"  MISSED {fact.id}: {fact.text[:140]}  {fact.keywords}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help=f"default: ${ENV_VAR} or ../shared")
    parser.add_argument("--show", nargs="*", default=[], help="list candidates of matching files")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    data = args.data or default_data()
    transcripts = data / "transcripts"
    if not transcripts.is_dir():
        print(f"extract_real: no transcripts folder at {transcripts}", file=sys.stderr)
        return 2
    runs = [run_file(p, data / "gold") for p in sorted(transcripts.iterdir()) if p.is_file()]
    if args.json:
        totals = Totals()
        for run in runs:
            totals.add(run.score)
        rows = [
            {
                "file": r.name,
                "recognised": r.recognised,
                "format": r.fmt,
                "candidates": r.score.candidates,
                "matched": r.score.matched_candidates,
                "over_cap": r.over_cap,
                "precision": r.score.precision,
                "recall": r.score.recall,
            }
            for r in runs
        ]
        print(
            json.dumps(
                {
                    "files": rows,
                    "precision": totals.precision,
                    "recall": totals.recall,
                    "f1": totals.f1,
                },
                indent=1,
            )
        )
        return 0
    print_table(runs)
    for run in runs:
        if any(part in run.name for part in args.show):
            show(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
