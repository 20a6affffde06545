"""MEMORY.md lines are marked read only after they are committed as candidates."""

from __future__ import annotations

import os

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store


def _append(store: Store, line: str) -> None:
    with open(store.root / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def _summaries(store: Store) -> set[str]:
    return {e.summary for e in Store.open(store.root).entries()}


def test_a_crash_between_reading_and_committing_loses_no_line(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add(Entry(summary="提交前必须跑 pytest -x", status="confirmed"), actor="cli")
    _append(store, "- remember: 部署前先跑 make check")

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # the process dies before the candidates are written

    monkeypatch.setattr(store, "add_many", killed)
    with pytest.raises(KeyboardInterrupt):
        store.ingest_memory_md()
    monkeypatch.undo()
    # Next time (another process) the line is read again, and kept.
    again = Store.open(store.root)
    added = again.ingest_memory_md()
    assert [e.summary for e in added] == ["remember: 部署前先跑 make check"]
    assert again.ingest_memory_md() == []  # now it is marked read
    again.render_memory_md()
    assert "remember: 部署前先跑 make check" in _summaries(store)


def test_a_retired_file_the_state_does_not_know_is_read(store: Store) -> None:
    # A crash after MEMORY.md was hard-linked into retired/ but before the state was
    # saved leaves a file nobody tracks; an appender may still be writing into it.
    store.add(Entry(summary="always use pnpm, never npm", status="confirmed"), actor="cli")
    retired = store.meta_dir / "retired"
    retired.mkdir(exist_ok=True)
    orphan = retired / f"MEMORY.md.{os.stat(store.root / 'MEMORY.md').st_ino}"
    with open(store.root / "MEMORY.md", "a", encoding="utf-8") as agent:  # holds the inode
        os.link(store.root / "MEMORY.md", orphan)
        (store.root / "MEMORY.md").unlink()
        store.render_memory_md()  # a fresh MEMORY.md (new inode)
        agent.write("- 以后发版前要更新 CHANGELOG\n")
        agent.flush()
        added = Store.open(store.root).ingest_memory_md()
        assert [e.summary for e in added] == ["以后发版前要更新 CHANGELOG"]
        assert orphan.exists()  # still held open: kept for later appends
    # What memdesk itself rendered into the orphan is not taken as new.
    assert len(Store.open(store.root).entries()) == 2
    assert Store.open(store.root).ingest_memory_md() == []
    assert not orphan.exists()  # read to the end, nobody holds it: deleted


def test_a_rewrite_saves_the_memory_md_state_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = store.add(Entry(summary="the API base is /v2"), actor="cli")
    _append(store, "- never commit .env files")
    saves: list[int] = []
    original = store.memory_file.save_state
    monkeypatch.setattr(
        store.memory_file, "save_state", lambda state: (saves.append(1), original(state))
    )
    store.approve([entry.id], actor="cli")  # touches a confirmed entry: MEMORY.md re-renders
    assert len(saves) == 1
    text = (store.root / "MEMORY.md").read_text("utf-8")
    assert "the API base is /v2" in text
    assert "never commit .env files" in _summaries(store)


def test_recovery_removes_memory_md_temp_files_in_the_root(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A writer killed during the MEMORY.md rewrite leaves its temp file in the project
    # root, where `git add -A` would pick it up.
    from memdesk.core.store import Store

    Store.init(tmp_path)
    leftover = tmp_path / ".memdesk-tmp-abc123"
    leftover.write_text("# Memory\n- half a render\n")
    mine = tmp_path / "notes.md"
    mine.write_text("mine")
    Store.open(tmp_path)
    assert not leftover.exists()
    assert mine.read_text() == "mine"
