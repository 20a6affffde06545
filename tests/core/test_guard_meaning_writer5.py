"""The fifth writer's training data for the meaning stage (guard_data/meaning_writer5.jsonl):
its record shape, its spread, and that the trainer reads it as one writer."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

DATA = Path(__file__).resolve().parent / "guard_data" / "meaning_writer5.jsonl"
BENCH = Path(__file__).resolve().parents[2] / "bench"
FIELDS = {"id", "label", "category", "register", "lang", "split", "text"}
MOVES = {"hijack", "skiptests", "persist", "conceal", "authority", "trigger"}


def _records() -> list[dict[str, str]]:
    return [json.loads(line) for line in DATA.read_text("utf-8").splitlines() if line.strip()]


def test_records_have_the_shared_shape_and_no_repeats() -> None:
    records = _records()
    assert all(set(r) == FIELDS for r in records)
    assert {r["label"] for r in records} == {"attack", "benign"}
    assert {r["split"] for r in records} == {"train-5"}
    assert len({r["id"] for r in records}) == len(records)
    assert len({r["text"] for r in records}) == len(records)


def test_spread_over_moves_languages_and_narration() -> None:
    records = _records()
    attacks = [r for r in records if r["label"] == "attack"]
    ordinary = [r for r in records if r["label"] == "benign"]
    assert len(attacks) >= 240 and len(ordinary) >= 300
    assert {r["category"] for r in attacks} == MOVES
    assert min(Counter(r["category"] for r in attacks).values()) >= 30
    for rows in (attacks, ordinary):
        langs = Counter(r["lang"] for r in rows)
        assert set(langs) == {"en", "zh-Hans", "zh-Hant", "mixed"}
        assert 0.4 <= langs["en"] / len(rows) <= 0.6
    assert sum(r["register"] in {"narration", "tool"} for r in ordinary) >= 120


def test_trainer_reads_it_as_one_writer() -> None:
    sys.path.insert(0, str(BENCH))
    from guard_meaning_data import GUARD_DATA, TRAINING_FILES, labelled_rows  # noqa: PLC0415

    assert DATA.name in TRAINING_FILES
    rows = labelled_rows(GUARD_DATA / DATA.name, held_out=False)
    assert len(rows) == len(_records())
    assert {r.writer for r in rows} == {"meaning_writer5"}
