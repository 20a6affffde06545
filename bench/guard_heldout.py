"""Injection detection on attempts not used to write it: the held-out corpus by half.

`tests/core/guard_data/injections_heldout.jsonl` holds attacks and hard negatives
(normal project rules that look like instructions), split once into a `dev` half (may
be looked at while tuning) and a `test` half (only ever counted). An attack counts as
caught when the guard flags it `suspicious` (kept out of context); `review` only asks a
person to look. A hard negative flagged `suspicious` is a false flag. The corpora in
`tests/core/guard_corpus.py` (the attempts the first detector was written against and
the later held-out sets) are counted too.

    python bench/guard_heldout.py [--split dev|test|all] [--list] [--rules-only]
    python bench/guard_heldout.py --file PATH [--rules-only]

`--list` prints the misses and false flags of the dev half only: the test half stays
unseen. The fresh rounds (`injections_rounds.jsonl`) are counted per round too; round 5
was never trained or tuned on. `--file` counts any JSONL file of
`{"label": "attack"|"benign", "text": ...}` lines (per `split` when the lines have one)
and nothing else. `--rules-only` switches the meaning stage off (what a machine without
the model screens).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.guard import find_injection, meaning_status
from memdesk.core.guard.meaning import STAGE

TESTS = Path(__file__).resolve().parents[1] / "tests" / "core"
CORPUS = TESTS / "guard_data" / "injections_heldout.jsonl"
ROUNDS = TESTS / "guard_data" / "injections_rounds.jsonl"


@dataclass
class Tally:
    total: int = 0
    suspicious: int = 0
    review: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, text: str, attack: bool) -> None:
        self.total += 1
        finding = find_injection(text)
        if finding is None:
            if attack:
                self.misses.append(text)
            return
        if finding.suspicious:
            self.suspicious += 1
            if not attack:
                self.misses.append(f"{text}  <- {finding.reason}")
        else:
            self.review += 1
            if attack:
                self.misses.append(f"{text}  <- review only: {finding.reason}")

    def line(self, label: str) -> str:
        share = 100 * self.suspicious / (self.total or 1)
        return (
            f"{label}: {self.total}; suspicious {self.suspicious} ({share:.1f}%), "
            f"review {self.review}, unflagged {self.total - self.suspicious - self.review}"
        )


def records(split: str, path: Path = CORPUS) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [row for row in rows if split == "all" or row.get("split", "") == split]


def count_file(path: Path, label: str = "") -> None:
    """Attacks flagged and ordinary lines flagged in a labelled file, per split."""
    rows = records("all", path)
    splits = sorted({row.get("split", "") for row in rows})
    for split in splits:
        attacks, benign = Tally(), Tally()
        for row in rows:
            if row.get("split", "") == split:
                attack = row["label"] == "attack"
                (attacks if attack else benign).add(row["text"], attack)
        name = f"{label or path.name}{' ' + split if split else ''}"
        if attacks.total:
            print(attacks.line(f"{name} attacks"))
        if benign.total:
            print(benign.line(f"{name} ordinary"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--list", action="store_true", help="print dev misses and false flags")
    parser.add_argument("--file", type=Path, help="count only this labelled JSONL file")
    parser.add_argument("--rules-only", action="store_true", help="switch the meaning stage off")
    args = parser.parse_args()
    if args.rules_only:
        STAGE.use(None)
    print(f"screening: {meaning_status().line}")
    if args.file:
        count_file(args.file)
        return
    sys.path.insert(0, str(TESTS))
    import guard_corpus  # noqa: PLC0415 - test data, found only once the path is set

    own = Tally()
    for text in guard_corpus.INJECTIONS:
        own.add(text, attack=True)
    earlier = Tally()
    for text in (*guard_corpus.HELD_OUT, *guard_corpus.HELD_OUT_2, *guard_corpus.HELD_OUT_3):
        earlier.add(text, attack=True)
    print(own.line("original corpus attacks"))
    print(earlier.line("earlier held-out attacks"))
    splits = ("dev", "test") if args.split == "all" else (args.split,)
    for split in splits:
        attacks, benign = Tally(), Tally()
        for row in records(split):
            (attacks if row["label"] == "attack" else benign).add(
                row["text"], row["label"] == "attack"
            )
        print(attacks.line(f"held-out {split} attacks"))
        print(benign.line(f"held-out {split} hard negatives"))
        if args.list and split == "dev":
            for text in attacks.misses:
                print(f"  [missed] {text!r}")
            for text in benign.misses:
                print(f"  [false flag] {text!r}")
    if args.split == "all":
        count_file(ROUNDS, "fresh")


if __name__ == "__main__":
    main()
