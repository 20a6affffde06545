"""A writer killed mid-append leaves a journal line without its newline; nothing after it may be lost."""

from __future__ import annotations

import json

from memdesk.core.entry import Entry
from memdesk.core.journal import Journal, JournalRecord
from memdesk.core.store import Store


def _lines(path) -> list[dict]:
    # Strict on purpose: every line on disk must be a whole JSON record.
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_append_after_a_torn_tail_keeps_the_new_record_readable(tmp_path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.append(JournalRecord(op="add", entry_id="m-1", actor="cli"))
    with open(path, "ab") as handle:
        handle.write(b'{"op":"approve","entry_id":"m-1","actor":"cli","time":"2026-11-3')
    assert len(journal.records()) == 1  # the fragment waits for a newline that never comes
    journal.append(JournalRecord(op="reject", entry_id="m-2", actor="cli"))
    assert [r["op"] for r in _lines(path)] == ["add", "reject"]
    assert [r.op for r in journal.records()] == ["add", "reject"]
    assert journal.skipped_lines == []


def test_cut_torn_tail_leaves_a_whole_journal_alone(tmp_path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    assert journal.cut_torn_tail() == 0  # no file yet
    journal.append(JournalRecord(op="add", entry_id="m-1", actor="cli"))
    before = path.read_bytes()
    assert journal.cut_torn_tail() == 0
    assert path.read_bytes() == before


def test_a_fragment_longer_than_one_read_block_is_cut_whole(tmp_path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.append(JournalRecord(op="add", entry_id="m-1", actor="cli"))
    whole = path.stat().st_size
    fragment = b'{"op":"edit","after":"' + "长".encode() * 100_000  # 300 kB, no newline
    with open(path, "ab") as handle:
        handle.write(fragment)
    assert journal.cut_torn_tail() == len(fragment)
    assert path.stat().st_size == whole


def test_reopening_the_store_cuts_the_fragment_and_rolls_back_its_batch(store: Store) -> None:
    kept = store.add(Entry(summary="提交前必须跑 pytest -x before every commit"), actor="cli")
    with open(store.journal.path, "ab") as handle:
        handle.write(b'{"op":"add","entry_id":"m-20261130-deadbeef","act')
    reopened = Store.open(store.root)
    assert reopened.problems == []
    assert [r["entry_id"] for r in _lines(reopened.journal.path)] == [kept.id]
    added = reopened.add(Entry(summary="always run ruff format before pushing"), actor="cli")
    assert [r["entry_id"] for r in _lines(reopened.journal.path)] == [kept.id, added.id]
    assert {e.id for e in Store.open(store.root).entries()} == {kept.id, added.id}


def test_a_batch_whose_append_was_torn_after_some_lines_is_rolled_back_whole(
    store: Store, monkeypatch
) -> None:
    kept = store.add(Entry(summary="always run ruff format before pushing"), actor="cli")
    import memdesk.core.journal as journal_module

    def killed_mid_write(path, line: str) -> None:
        # A large write cut short by SIGKILL: the first records whole, the next one half.
        data = (line + "\n").encode("utf-8")
        second = data.index(b"\n") + 1
        third = data.index(b"\n", second) + 1
        with open(path, "ab") as handle:
            handle.write(data[: third + 40])
        raise KeyboardInterrupt

    monkeypatch.setattr(journal_module, "append_line_durably", killed_mid_write)
    try:
        with store.batch("cli", "bulk"):
            added = [
                store.add(Entry(summary=f"批量事实 number {i}"), actor="cli") for i in range(4)
            ]
            store.approve([kept.id], actor="cli")
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    assert all((store.entries_dir / f"{e.id}.toml").exists() for e in added)  # as left

    reopened = Store.open(store.root)
    assert reopened.problems == []
    assert [e.id for e in reopened.entries()] == [kept.id]
    assert reopened.get(kept.id).status == "candidate"  # the approval went back too
    records = _lines(reopened.journal.path)  # every line whole again
    assert [r["entry_id"] for r in records] == [kept.id]
    assert [r.entry_id for r in reopened.journal.records()] == [kept.id]
    later = reopened.add(Entry(summary="a later fact lands after the rollback"), actor="cli")
    assert [r["entry_id"] for r in _lines(reopened.journal.path)] == [kept.id, later.id]
