"""No write memdesk makes lands under another name of the file (a hard link).

git never makes hard links, but a local user who can write the working directory can
replace a file memdesk writes by a hard link to a file of yours outside it. Every write
either replaces the inode (atomic rename) or, for the files appended to or cut in
place (the journal, the search state's log), first gives the file an inode of its own:
the name outside keeps exactly its bytes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from memdesk.core.entry import Entry
from memdesk.core.extract.settings import add_transcript_globs
from memdesk.core.memfiles.adopt import adopt
from memdesk.core.search.index_state import IndexState
from memdesk.core.search.vector_cache import VectorCache
from memdesk.core.store import Store

VICTIM = b"export SECRET=the-outside-file-must-keep-these-bytes\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "victim.txt"
    path.parent.mkdir()
    path.write_bytes(VICTIM)
    return path


@pytest.fixture
def store(tmp_path: Path) -> Store:
    root = tmp_path / "proj"
    root.mkdir()
    return Store.init(root)


def link_over(victim: Path, path: Path) -> None:
    """What the local attacker does: `path` becomes another name of the victim file."""
    path.unlink(missing_ok=True)
    os.link(victim, path)


def separate(victim: Path, path: Path, before: bytes = VICTIM) -> None:
    assert victim.read_bytes() == before  # the name outside keeps its bytes
    assert os.stat(path).st_ino != os.stat(victim).st_ino


def test_a_journal_append_does_not_write_through_a_hard_link(store: Store, victim: Path) -> None:
    store.add(Entry(summary="the staging db listens on port 5433"))
    link_over(victim, store.meta_dir / "journal.jsonl")
    store.add(Entry(summary="deploys go through the release branch"))
    separate(victim, store.meta_dir / "journal.jsonl")
    journal = (store.meta_dir / "journal.jsonl").read_bytes()
    assert journal.startswith(VICTIM) and b"release branch" in journal


def test_a_torn_journal_tail_is_not_cut_through_a_hard_link(store: Store, victim: Path) -> None:
    victim.write_bytes(VICTIM + b"no newline at the end")  # what a torn tail looks like
    before = victim.read_bytes()
    link_over(victim, store.meta_dir / "journal.jsonl")
    store.add(Entry(summary="the staging db listens on port 5433"))
    separate(victim, store.meta_dir / "journal.jsonl", before)


def test_entry_memory_md_settings_and_an_adopted_file_are_replaced_not_written_through(
    store: Store, tmp_path: Path
) -> None:
    entry = store.add(Entry(summary="the staging db listens on port 5433"))
    store.approve([entry.id])
    claude = store.root / "CLAUDE.md"
    claude.write_text("# Project\n\n- use uv\n", "utf-8")
    adopt(store, claude)
    names = {
        "entry": store.path_of(entry.id),
        "memory": store.root / "MEMORY.md",
        "settings": store.settings_path,
        "claude": claude,
    }
    victims = {}
    for key, path in names.items():
        victims[key] = tmp_path / "outside" / f"{key}.txt"
        victims[key].parent.mkdir(exist_ok=True)
        victims[key].write_bytes(path.read_bytes())  # the same bytes: nothing to tell apart
        link_over(victims[key], path)
    snapshot = {key: path.read_bytes() for key, path in victims.items()}
    store.edit(entry.id, {"summary": "the staging db listens on port 6543"})
    uv = next(e for e in store.entries() if "use uv" in e.summary)
    store.edit(uv.id, {"summary": "use uv for every install"})
    extra = store.add(Entry(summary="deploys go through the release branch"))
    store.approve([extra.id])
    store.render_memory_md()
    add_transcript_globs(store.root, ["logs/*.jsonl"])
    for key, path in names.items():
        separate(victims[key], path, snapshot[key])
    assert b"6543" in names["entry"].read_bytes()
    assert b"release branch" in names["memory"].read_bytes()
    assert b"logs/*.jsonl" in names["settings"].read_bytes()
    assert b"use uv for every install" in names["claude"].read_bytes()


def test_the_search_state_is_not_written_through_a_hard_link(tmp_path: Path, victim: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    state = IndexState(index)
    state.save({"a": 1})
    link_over(victim, index / "search-state.log")
    state.log({"a": 1}, "b", 2)
    separate(victim, index / "search-state.log")
    link_over(victim, index / "search-state.tmp")  # the name the snapshot used to go through
    link_over(victim, index / "search-state.json")
    state.save({"a": 1, "b": 2})
    separate(victim, index / "search-state.json")
    assert victim.read_bytes() == VICTIM
    assert json.loads((index / "search-state.json").read_text("utf-8"))["entries"]["b"] == 2


def test_a_vector_segment_is_not_written_through_a_name_left_in_the_folder(
    tmp_path: Path, victim: Path
) -> None:
    folder = tmp_path / "vectors"
    folder.mkdir()
    link_over(victim, folder / ".seg-000001.npz.tmp.npz")
    cache = VectorCache(folder, 4)
    cache.put(["k"], np.ones((1, 4), np.float32))
    cache.flush()
    assert victim.read_bytes() == VICTIM
    assert [p.name for p in folder.glob("seg-*.npz")] == ["seg-000001.npz"]
