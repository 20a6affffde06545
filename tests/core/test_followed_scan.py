"""A store whose entries folder a watcher follows (the desk): scans stat only the files
that are new, replaced (a new inode) or reported written in place, and still read
exactly what the files hold."""

from __future__ import annotations

import os
from pathlib import Path

import memdesk.core.storage.file_cache as file_cache_module
import pytest
from memdesk.core.entry import Entry
from memdesk.core.entry_files import write_entry_file
from memdesk.core.store import Store


@pytest.fixture
def stats(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many entry files were stat'ed and compared (each such file's key is taken)."""
    seen: list[int] = []
    key = file_cache_module.file_key

    def counted(st: os.stat_result) -> tuple[int, int]:
        seen.append(st.st_ino)
        return key(st)

    monkeypatch.setattr(file_cache_module, "file_key", counted)
    return seen


def make_store(root: Path, n: int = 40) -> Store:
    store = Store.init(root)
    store.auto_render = False
    store.add_many([Entry(id=f"e{i:03d}", summary=f"fact {i}") for i in range(n)], actor="t")
    return Store.open(root)


def test_a_followed_scan_stats_only_what_changed(tmp_path: Path, stats: list[int]) -> None:
    store = make_store(tmp_path / "s")
    store.files.follow()
    store.entries()  # the first scan after `follow` stats every file
    stats.clear()
    store.entries()
    store.known_hashes()
    assert stats == []
    # Another process replaces one file (memdesk writes by rename) and adds one.
    other = Store.open(store.root)
    other.auto_render = False
    other.edit("e005", {"summary": "changed elsewhere"}, actor="t")
    other.add(Entry(id="new", summary="added elsewhere"), actor="t")
    stats.clear()
    by_id = {e.id: e for e in store.entries()}
    assert by_id["e005"].summary == "changed elsewhere" and "new" in by_id
    assert len(set(stats)) <= 2  # the two files, not the 40
    other.delete(["e007"], actor="t")
    assert "e007" not in {e.id for e in store.entries()}
    assert store.known_hashes() == {e.text_hash for e in other.entries()} | {
        Entry(summary="fact 7").text_hash
    }


def test_a_file_written_in_place_is_read_once_the_watcher_names_it(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    store.files.follow()
    store.entries()
    path = store.entries_dir / "e003.toml"
    inode = path.stat().st_ino
    changed = store.get("e003").copy()
    changed.summary = "edited in place by a person"
    with path.open("r+", encoding="utf-8") as f:  # the same inode, as some editors do
        f.truncate(0)
    scratch = tmp_path / "scratch.toml"
    write_entry_file(scratch, changed)
    with path.open("w", encoding="utf-8") as f:
        f.write(scratch.read_text("utf-8"))
    assert path.stat().st_ino == inode
    store.files.touched(["e003.toml"])
    assert store.get("e003").summary == "edited in place by a person"
    assert {e.id: e for e in store.entries()}["e003"].summary == "edited in place by a person"


def test_not_followed_every_file_is_stat_ed(tmp_path: Path, stats: list[int]) -> None:
    store = make_store(tmp_path / "s")
    store.entries()
    stats.clear()
    store.entries()
    assert len(set(stats)) == 40
    store.files.follow()
    store.entries()
    store.files.follow(False)
    stats.clear()
    store.entries()
    assert len(set(stats)) == 40
