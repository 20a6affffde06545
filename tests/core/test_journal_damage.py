"""One bad journal line never breaks the store: it is skipped, and `problems` says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.journal import Journal, JournalRecord
from memdesk.core.store import Store

BAD_LINES = [
    "[]",
    "42",
    '"text"',
    "null",
    '{"op": 3}',
    '{"op": "add", "entry_id": ["x"]}',
    '{"op": "reject", "entry_id": "m-1", "before": "a string"}',
    '{"op": "reject", "entry_id": "m-1", "before": {"summary": 7}}',
    '{"op": "edit", "entry_id": "m-1", "after": []}',
    '{"op": "add", "entry_id": "m-1", "changes": "x"}',
    '{"op": "add", "entry_id": "m-1", "version_after": "two"}',
    '{"op": "undo", "target_group": {}}',
    '{"op": "memory_flushed", "payload": [1, 2]}',
    '{"op": "add", "time": 1e300}',
]


@pytest.mark.parametrize("line", BAD_LINES)
def test_from_json_refuses_wrong_shapes(line: str) -> None:
    with pytest.raises(ValueError):
        JournalRecord.from_json(line)


def _append_raw(store: Store, line: str) -> None:
    with open(store.journal.path, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


@pytest.mark.parametrize("line", BAD_LINES)
def test_store_survives_a_bad_line(store: Store, line: str) -> None:
    first = store.add(Entry(summary="Run the tests with pytest -q"), actor="cli")
    _append_raw(store, line)
    reopened = Store.open(store.root)
    assert [r.op for r in reopened.history(first.id)] == ["add"]
    assert reopened.known_hashes()  # every ingest asks for these
    reopened.approve([first.id], actor="cli")  # a confirmed write re-renders MEMORY.md
    assert reopened.ingest_memory_md() == []
    assert reopened.undo(actor="cli").ids == [first.id]
    assert reopened.journal.skipped_lines == [2]


def test_problems_verb_names_the_skipped_line(tmp_path: Path, cli) -> None:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    entry_id = cli("--dir", str(tmp_path), "add", "Run the tests with pytest -q").stdout.strip()
    _journal = tmp_path / ".memdesk" / "journal.jsonl"
    with open(_journal, "a", encoding="utf-8") as handle:
        handle.write("[]\n")
    shown = cli("--dir", str(tmp_path), "show", entry_id)
    assert shown.returncode == 0, shown.stderr
    undo = cli("--dir", str(tmp_path), "undo")
    assert undo.returncode == 0, undo.stderr
    problems = cli("--dir", str(tmp_path), "problems")
    assert "journal.jsonl:2: skipped" in problems.stdout
    data = json.loads(cli("--dir", str(tmp_path), "problems", "--json").stdout)
    assert data["journal_skipped_lines"] == [2]


def test_damaged_pending_batch_file_does_not_stop_opening(store: Store) -> None:
    for text in ("[]", '{"group": 1, "ops": "x"}', '{"group": "g", "ops": [1, null]}'):
        store.pending_path.write_text(text)
        reopened = Store.open(store.root)
        assert reopened.entries() == []
        assert not reopened.pending_path.exists()


def test_records_of_and_records_agree_on_bad_lines(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.path.write_text(
        '{"op": "reject", "entry_id": "a", "before": "str"}\n'
        '{"op": "reject", "entry_id": "b", "before": {"summary": "kept"}}\n'
    )
    assert [r.entry_id for r in journal.records_of(["reject"])] == ["b"]
    assert [r.entry_id for r in journal.records()] == ["b"]
