"""The fifth writer's training data for the meaning stage (guard_data/meaning_writer5.jsonl):
its record shape, its spread, and that the trainer reads it as one writer."""

from __future__ import annotations

import sys
from collections import Counter

from guard_writer_data import BENCH, GUARD_DATA, assert_shared_shape, writer_records

DATA = GUARD_DATA / "meaning_writer5.jsonl"
MOVES = {"hijack", "skiptests", "persist", "conceal", "authority", "trigger"}


def _records() -> list[dict[str, str]]:
    return writer_records(DATA.name)


def test_records_have_the_shared_shape_and_no_repeats() -> None:
    assert_shared_shape(_records(), "train-5")


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
