"""`memdesk context` (the agents' SessionStart hook) reads nothing through a link out.

A cloned repository may commit `.memdesk/settings.toml`, `.memdesk/entries` or
`.memdesk` itself as a symbolic link to a file or folder outside the project. The store
refuses to open then; the kept-block path of `context` (core/context/block_cache.py)
must refuse *before* it reads the settings or lists the entries, not after.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from memdesk.cli.main import main
from memdesk.core.entry import Entry
from memdesk.core.store import Store

_WATCH: dict[str, object] = {"outside": None, "seen": []}


def _hook(event: str, args: tuple[object, ...]) -> None:
    outside = _WATCH["outside"]
    if outside is None or event not in ("open", "os.scandir", "os.listdir"):
        return
    path = args[0] if args else None
    if not isinstance(path, (str, bytes, os.PathLike)):
        return
    real = os.path.realpath(os.fsdecode(path))
    if real == outside or real.startswith(str(outside) + os.sep):
        seen = _WATCH["seen"]
        assert isinstance(seen, list)
        seen.append((event, real))


sys.addaudithook(_hook)  # audit hooks stay for the process: this one is off by default


@pytest.fixture()
def watched(tmp_path: Path) -> Iterator[tuple[Path, Path, list[tuple[str, str]]]]:
    root = tmp_path / "repo"
    outside = tmp_path / "OUTSIDE"
    outside.mkdir()
    store = Store.init(root)
    store.add(Entry(summary="Always run make check before pushing", status="confirmed"))
    seen: list[tuple[str, str]] = []
    _WATCH["outside"] = os.path.realpath(outside)
    _WATCH["seen"] = seen
    try:
        yield root, outside, seen
    finally:
        _WATCH["outside"] = None


ARGS = (
    ["context"],
    ["context", "--purpose", "coding", "--budget", "2000"],
)


def _run(root: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    seen = _WATCH["seen"]
    assert isinstance(seen, list)
    seen.clear()  # what the test itself did to lay the files out
    code = main(["--dir", str(root), *args])
    _, err = capsys.readouterr()
    assert code != 0
    return err


@pytest.mark.parametrize("args", ARGS)
def test_settings_linked_outside_is_not_read(watched, args, capsys) -> None:
    root, outside, seen = watched
    settings = root / ".memdesk" / "settings.toml"
    (outside / "settings.toml").write_text("[context]\nbudget = 999\n# CANARY\n")
    settings.unlink()
    settings.symlink_to(outside / "settings.toml")
    err = _run(root, args, capsys)
    assert "settings.toml" in err and "not opened" in err
    assert seen == []


@pytest.mark.parametrize("args", ARGS)
def test_entries_linked_outside_are_not_listed(watched, args, capsys) -> None:
    root, outside, seen = watched
    entries = root / ".memdesk" / "entries"
    shutil.move(entries, outside / "entries")
    entries.symlink_to(outside / "entries")
    err = _run(root, args, capsys)
    assert ".memdesk/entries" in err and "not opened" in err
    assert seen == []


@pytest.mark.parametrize("args", ARGS)
def test_store_linked_outside_is_not_read(watched, args, capsys) -> None:
    root, outside, seen = watched
    meta = root / ".memdesk"
    shutil.move(meta, outside / "store")
    meta.symlink_to(outside / "store")
    err = _run(root, args, capsys)
    assert "not opened" in err
    assert seen == []
