"""A scan of the entries folder reads each plain file with one open and one fstat
(`entry_files.read_plain_entry_file`); what it finds in every kind of file, good or
damaged, is what `read_entry_file` finds, and anything but a plain file goes the long
way (links, folders)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.entry_files import entry_to_toml, read_entry_file, read_plain_entry_file
from memdesk.core.storage import file_cache as file_cache_module
from memdesk.core.storage.file_cache import EntryFileCache

GOOD = Entry(summary="Run make check before pushing", id="good", kind="workflow")


def _fill(folder: Path, outside: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "good.toml").write_bytes(entry_to_toml(GOOD))
    odd = Entry(summary='quote " back \\ tab\t', facts=["two\nlines"], id="odd", flags={"x y": "z"})
    (folder / "odd.toml").write_bytes(entry_to_toml(odd))
    (folder / "hand.toml").write_text('summary = "hand written"  # comment\nid = "hand"\n')
    (folder / "broken.toml").write_text('id = "broken"\nsummary = "unterminated\nkind = "x"\n')
    (folder / "junk.toml").write_bytes(b'id = "junk"\n\x00\x01 binary')
    (folder / "latin.toml").write_bytes('summary = "caf\xe9"\n'.encode("latin-1"))
    (folder / "badkind.toml").write_text('id = "badkind"\nsummary = "x"\nkind = "opinion"\n')
    (folder / "huge.toml").write_bytes(b"# " + b"x" * 1_100_000)
    (folder / "empty.toml").write_bytes(b"")
    (folder / "wrongname.toml").write_bytes(entry_to_toml(GOOD))
    text = (
        entry_to_toml(GOOD)
        .decode()
        .replace(
            'kind = "workflow"',
            "<<<<<<< HEAD\n" + 'kind = "workflow"\n=======\nkind = "project"\n>>>>>>> b',
        )
    )
    (folder / "good2.toml").write_text(text.replace('"good"', '"good2"'))
    (folder / "dir.toml").mkdir()
    (folder / "inside-link.toml").symlink_to(folder / "good.toml")
    outside.write_bytes(entry_to_toml(Entry(summary="outside", id="escape")))
    (folder / "escape.toml").symlink_to(outside)
    os.mkfifo(folder / "fifo.txt")  # not an entry file: never opened


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and (a == b if isinstance(a, Entry) else vars(a) == vars(b))


@pytest.mark.parametrize("inside", [True, False])
def test_a_scan_finds_what_reading_each_file_finds(tmp_path: Path, inside: bool) -> None:
    root = tmp_path / "work"
    folder = root / ".memdesk" / "entries" if inside else tmp_path / "elsewhere" / "entries"
    root.mkdir()
    _fill(folder, tmp_path / "outside.toml")
    cache = EntryFileCache(folder, root)
    cache.scan()
    names = sorted(n for n in os.listdir(folder) if n.endswith(".toml"))
    for name in names:
        held = cache.held(name)
        alone = read_entry_file(folder / name, root)
        assert _same(held, alone), name
    assert {e.id for e in cache.entries()} == {"good", "odd", "hand"}
    assert len(cache.problems()) == len(names) - 3


def test_the_lean_read_declines_what_is_not_a_plain_file(tmp_path: Path) -> None:
    root = tmp_path / "work"
    folder = root / ".memdesk" / "entries"
    root.mkdir()
    _fill(folder, tmp_path / "outside.toml")
    where = str(folder)
    for name in ("dir.toml", "inside-link.toml", "escape.toml", "huge.toml", "gone.toml"):
        assert read_plain_entry_file(where, name, ".memdesk/entries") is None, name
    found = read_plain_entry_file(where, "good.toml", ".memdesk/entries")
    assert found is not None
    item, st = found
    assert item == GOOD
    assert (st.st_ino, st.st_size) == (
        os.stat(folder / "good.toml").st_ino,
        os.stat(folder / "good.toml").st_size,
    )
    problem = read_plain_entry_file(where, "broken.toml", ".memdesk/entries")
    assert problem is not None and str(problem[0]).startswith(".memdesk/entries/broken.toml:2: ")


def test_a_scan_uses_the_lean_read_for_plain_files_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "work"
    folder = root / ".memdesk" / "entries"
    root.mkdir()
    _fill(folder, tmp_path / "outside.toml")
    slow: list[str] = []
    real = file_cache_module.read_entry_file

    def counting(path: Path, *args: object, **kwargs: object) -> object:
        slow.append(path.name)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(file_cache_module, "read_entry_file", counting)
    EntryFileCache(folder, root).scan()
    assert sorted(slow) == ["dir.toml", "escape.toml", "huge.toml", "inside-link.toml"]
