"""Damaged input never stops the store: each problem names the file and the line."""

from __future__ import annotations

import os
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.store import Store


def test_damage_is_reported_and_the_rest_loads(store: Store, tmp_path: Path) -> None:
    good = store.add(Entry(summary="a good entry"))
    d = store.entries_dir
    (d / "broken.toml").write_text('id = "broken"\nsummary = "unterminated\nkind = "project"\n')
    (d / "junk.toml").write_bytes(b"id = 1\n\x00\x01\x02\xff binary")
    (d / "latin.toml").write_bytes('summary = "caf\xe9"\n'.encode("latin-1"))
    (d / "badkind.toml").write_text('id = "badkind"\nsummary = "x"\nkind = "opinion"\n')
    (d / "huge.toml").write_bytes(b"# " + b"x" * 1_100_000)
    (d / "wrongname.toml").write_text('id = "other"\nsummary = "x"\n')
    outside = tmp_path.parent / f"{tmp_path.name}-outside.toml"
    outside.write_text('id = "escape"\nsummary = "secret outside"\n')
    os.symlink(outside, d / "escape.toml")

    assert [e.id for e in store.entries()] == [good.id]
    problems = {Path(p.path).name: p for p in store.problems}
    assert problems["broken.toml"].kind == "invalid"
    assert problems["broken.toml"].line == 2
    assert "malformed TOML" in problems["broken.toml"].message
    assert problems["junk.toml"].kind == "binary" and problems["junk.toml"].line == 2
    assert problems["latin.toml"].kind == "binary"
    assert problems["badkind.toml"].line == 3
    assert "unknown kind 'opinion'" in problems["badkind.toml"].message
    assert problems["huge.toml"].kind == "too-large"
    assert "does not match the file name" in problems["wrongname.toml"].message
    assert problems["escape.toml"].kind == "symlink"
    assert "outside the working directory" in str(problems["escape.toml"])
    assert str(problems["broken.toml"]).startswith(".memdesk/entries/broken.toml:2: ")


def test_half_written_temp_files_are_ignored_and_cleaned(store: Store) -> None:
    entry = store.add(Entry(summary="a"))
    (store.entries_dir / ".memdesk-tmp-abc").write_text('id = "half')
    assert [e.id for e in store.entries()] == [entry.id]
    assert store.problems == []
    Store.open(store.root)
    assert not (store.entries_dir / ".memdesk-tmp-abc").exists()


def test_malformed_journal_lines_are_skipped_and_counted(store: Store) -> None:
    entry = store.add(Entry(summary="a"))
    with open(store.journal.path, "a") as handle:
        handle.write("{not json\n")
    store.approve([entry.id])
    reopened = Store.open(store.root)
    assert [r.op for r in reopened.history(entry.id)] == ["add", "approve"]
    assert reopened.journal.skipped_lines == [2]


def test_entry_file_problems_are_the_entry_part_of_problems(store: Store) -> None:
    """What the desk counts at start-up: damaged entry files, without the journal scan
    (a forged id in the journal is listed by `problems` only)."""
    good = store.add(Entry(summary="a good entry"))
    d = store.entries_dir
    (d / "broken.toml").write_text('id = "broken"\nsummary = "unterminated\n')
    path = d / f"{good.id}.toml"
    text = path.read_text("utf-8")
    path.write_text(f"<<<<<<< HEAD\n{text}=======\n{text}>>>>>>> theirs\n", "utf-8")
    with store.journal.path.open("a", encoding="utf-8") as journal:
        journal.write('{"op": "add", "entry_id": "../escape", "actor": "x", "group": "g"}\n')
    every = store.problems
    entry_part = store.entry_file_problems()
    assert {p.kind for p in entry_part} == {"invalid", "conflict-markers"}
    assert [p for p in every if p.path.startswith(".memdesk/entries/")] == entry_part
    assert len(every) > len(entry_part)
