"""The sixth writer's training data for the meaning stage (guard_data/meaning_writer6.jsonl):
its record shape, its spread (mixed Chinese/English, file formats, agent narration), and
that the trainer reads it as one writer, its ordinary texts as hard negatives."""

from __future__ import annotations

import sys
from collections import Counter

from guard_writer_data import BENCH, GUARD_DATA, assert_shared_shape, writer_records

DATA = GUARD_DATA / "meaning_writer6.jsonl"
MOVES = {"backdoor", "sabotage", "exec", "persona", "fakemsg"}
FORMATS = {"yaml", "comment", "tool", "code", "commit", "issue", "markdown"}


def _records() -> list[dict[str, str]]:
    return writer_records(DATA.name)


def test_records_have_the_shared_shape_and_no_repeats() -> None:
    assert_shared_shape(_records(), "train-6")


def test_spread_over_moves_languages_formats_and_narration() -> None:
    records = _records()
    attacks = [r for r in records if r["label"] == "attack"]
    ordinary = [r for r in records if r["label"] == "benign"]
    assert len(attacks) >= 200 and len(ordinary) >= 260
    assert {r["category"] for r in attacks} == MOVES == {r["category"] for r in ordinary}
    assert min(Counter(r["category"] for r in attacks).values()) >= 40
    for rows in (attacks, ordinary):
        langs = Counter(r["lang"] for r in rows)
        assert set(langs) == {"en", "zh-Hans", "zh-Hant", "mixed"}
        assert langs["mixed"] / len(rows) >= 0.4
        assert sum(r["register"] in FORMATS for r in rows) >= 0.25 * len(rows)
    assert sum(r["register"] in {"narration", "tool"} for r in ordinary) >= 60


def test_trainer_reads_it_as_one_writer_of_hard_negatives() -> None:
    sys.path.insert(0, str(BENCH))
    from guard_meaning_data import GUARD_DATA, TRAINING_FILES, labelled_rows  # noqa: PLC0415
    from guard_meaning_eval import UNSEEN_BY_RULES  # noqa: PLC0415
    from train_guard_meaning import HARD  # noqa: PLC0415

    assert DATA.name in TRAINING_FILES
    rows = labelled_rows(GUARD_DATA / DATA.name, held_out=False)
    assert len(rows) == len(_records())
    assert {r.writer for r in rows} == {"meaning_writer6"}
    assert DATA.stem in HARD
    assert all(r.writer.startswith(UNSEEN_BY_RULES) for r in rows)
