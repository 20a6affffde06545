"""What follows a commit subscribes to it: a subscriber may refuse a change before
anything is written, and its failure after the commit never turns the committed change
into an error (it becomes a warning line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.storage.changes import Change
from memdesk.core.storage.engine import EntryStore
from memdesk.core.store import Store, StoreError


class Recorder:
    lag_note = "the test view was not updated"

    def __init__(self, *, refuse: bool = False, fail: bool = False) -> None:
        self.refuse, self.fail = refuse, fail
        self.prepared: list[Change] = []
        self.committed_changes: list[Change] = []

    def prepare(self, change: Change) -> bool:
        self.prepared.append(change)
        if self.refuse:
            raise StoreError("the test view cannot take this change")
        return True

    def committed(self, change: Change) -> None:
        if self.fail:
            raise RuntimeError("the view broke")
        self.committed_changes.append(change)


def journal_ops(root: Path) -> list[str]:
    lines = (root / ".memdesk" / "journal.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["op"] for line in lines if line.strip()]


def test_a_subscriber_hears_each_commit_with_the_states_it_changed(tmp_path: Path) -> None:
    store = EntryStore.init(tmp_path)
    view = Recorder()
    store.attach(view)
    heard: list[Change] = []
    store.subscribe(heard.append)
    entry = store.add(Entry(summary="Use uv, not pip"))
    store.approve([entry.id])
    assert [c.op for c in view.committed_changes] == ["add", "approve"]
    (op,) = view.committed_changes[1].ops
    assert (op.before.status, op.after.status) == ("candidate", "confirmed")  # type: ignore[union-attr]
    assert [c.group for c in heard] == [c.group for c in view.committed_changes]


def test_a_subscriber_that_refuses_stops_the_change_before_anything_is_written(
    tmp_path: Path,
) -> None:
    store = EntryStore.init(tmp_path)
    store.attach(Recorder(refuse=True))
    with pytest.raises(StoreError, match="cannot take this change"):
        store.add(Entry(summary="Use uv, not pip"))
    assert store.entries() == [] and journal_ops(tmp_path) == []
    assert not (tmp_path / ".memdesk" / "pending-batch.json").exists()


def test_a_subscriber_failing_after_the_commit_leaves_it_committed_with_a_warning(
    tmp_path: Path,
) -> None:
    store = Store.init(tmp_path)
    store.attach(Recorder(fail=True))
    entry = store.add(Entry(summary="Use uv, not pip"))  # no exception
    assert Store.open(tmp_path).get(entry.id).summary == "Use uv, not pip"
    assert journal_ops(tmp_path) == ["add"]
    assert len(store.warnings) == 1
    assert store.warnings[0].startswith("saved, but the test view was not updated: ")
    assert "RuntimeError" in store.warnings[0]


def test_the_store_opened_by_callers_renders_memory_md_as_a_subscriber(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    entry = store.add(Entry(summary="Releases go out on Thursdays"))
    assert not (tmp_path / "MEMORY.md").exists()  # a candidate changes nothing agents load
    store.approve([entry.id])
    assert "- Releases go out on Thursdays" in (tmp_path / "MEMORY.md").read_text("utf-8")
    plain = EntryStore.open(tmp_path)  # the store proper knows nothing of memory files
    plain.delete([entry.id])
    assert "Releases go out" in (tmp_path / "MEMORY.md").read_text("utf-8")
    Store.open(tmp_path).render_memory_md()
    assert "Releases go out" not in (tmp_path / "MEMORY.md").read_text("utf-8")
