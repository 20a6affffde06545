"""The weights of entry texts kept between runs (core/context/kept_weights.py): the same
block as weighing every entry, whatever changed in between; a damaged file, other
weighing code or a read-only store only mean weighing again."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from fs_faults import failing_writes
from memdesk.core.context import kept_weights
from memdesk.core.context.kept_weights import WEIGHTS_NAME, KeptWeights
from memdesk.core.context.request import assemble_for_store
from memdesk.core.entry import Entry
from memdesk.core.store import Store

TODAY = dt.date(2026, 6, 1)
TEXTS = [
    "The API server runs on port 8080 behind nginx",
    "NEVER push to main without a review",
    '```json\n{"retries": 3, "timeout": 30}\n```',
    "import os; os.environ['X']",
    "用户偏好简洁的中文回答",
    "必须在提交前运行 make lint",
]


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setattr(kept_weights, "MIN_ENTRIES", 3)
    store = Store.init(tmp_path / "project")
    for n, text in enumerate(TEXTS):
        store.add(
            Entry(
                summary=text,
                status="confirmed",
                kind="project" if n % 2 else "workflow",
                section=["Rules", "IMPORTANT"] if n == 4 else [],
            )
        )
    return store


def weights_file(store: Store) -> Path:
    return store.root / ".memdesk" / "index" / WEIGHTS_NAME


def block(store: Store, keep: bool, **options: object) -> tuple[str, list[str]]:
    result = assemble_for_store(store, today=TODAY, keep_derived=keep, **options)  # type: ignore[arg-type]
    return result.text, [i.reason for i in result.included]


def test_kept_weights_give_the_block_weighing_gives(store: Store, monkeypatch) -> None:
    plain = block(store, False, budget=200)
    assert block(store, True, budget=200) == plain
    assert weights_file(store).exists()

    def refuse(_: Entry) -> None:
        raise AssertionError("weighed a text the file holds")

    monkeypatch.setattr(kept_weights, "weigh", refuse)
    assert block(store, True, budget=200) == plain
    labels = " ".join(reason for reason in plain[1])
    assert "stressed rule" in labels and "code or sample data" in labels


def test_a_changed_text_is_weighed_again(store: Store) -> None:
    block(store, True, budget=400)
    target = next(e for e in store.entries() if e.summary.startswith("The API server"))
    store.edit(target.id, {"summary": "```\nserver: 8080\n```"})  # now code only
    assert block(store, True, budget=400) == block(store, False, budget=400)
    store.edit(target.id, {"section": ["ALWAYS"]})  # a heading stresses it
    assert block(store, True, budget=400) == block(store, False, budget=400)


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{not json",
        b"[]",
        b'{"format": "memdesk-context-weights/1", "code": [], "weights": {}}',
    ],
)
def test_a_damaged_file_is_ignored(store: Store, damage: bytes) -> None:
    expected = block(store, False, budget=300)
    weights_file(store).write_bytes(damage)
    assert block(store, True, budget=300) == expected


def test_wrong_weights_under_the_right_digests_are_not_believed_from_other_code(
    store: Store,
) -> None:
    expected = block(store, False, budget=300)
    block(store, True, budget=300)
    data = json.loads(weights_file(store).read_bytes())
    data["weights"] = {digest: 1 for digest in data["weights"]}  # everything "code"
    data["code"] = [0, 0, 0, 0]  # made by other weighing code
    weights_file(store).write_text(json.dumps(data))
    assert block(store, True, budget=300) == expected


def test_a_small_store_keeps_nothing(store: Store, monkeypatch) -> None:
    monkeypatch.setattr(kept_weights, "MIN_ENTRIES", 500)
    block(store, True)
    assert not weights_file(store).exists()


def test_a_read_only_store_weighs_and_keeps_nothing(store: Store) -> None:
    expected = block(store, False, budget=300)
    with failing_writes(store.root):
        assert block(store, True, budget=300) == expected
    assert not weights_file(store).exists()


def test_texts_of_deleted_entries_do_not_pile_up(store: Store) -> None:
    kept = KeptWeights(weights_file(store))
    for entry in store.entries():
        kept(entry)
    assert kept.save()
    for entry in store.entries():
        store.delete([entry.id])
    fresh = [store.add(Entry(summary=f"fact number {n} about the build")) for n in range(3)]
    kept = KeptWeights(weights_file(store))
    for entry in fresh:
        kept(entry)
    assert kept.save()
    held = json.loads(weights_file(store).read_bytes())["weights"]
    assert len(held) == 3  # the six old texts outnumbered the live ones: dropped
