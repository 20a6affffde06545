"""Files memdesk writes honour the umask, and a rewrite keeps the mode a file has:
MEMORY.md stays readable to an agent running as another user, and a person who made
their memory private (chmod 600, umask 077) keeps it private."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from memdesk.core.atomic import atomic_write_text
from memdesk.core.entry import Entry
from memdesk.core.store import Store


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_follows_the_umask(tmp_path: Path, umask_022: None) -> None:
    atomic_write_text(tmp_path / "a.txt", "x")
    assert mode(tmp_path / "a.txt") == 0o644
    os.umask(0o077)
    atomic_write_text(tmp_path / "b.txt", "x")
    assert mode(tmp_path / "b.txt") == 0o600


def test_rewrite_keeps_the_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    atomic_write_text(target, "new")
    assert target.read_text() == "new" and mode(target) == 0o640


def test_memory_md_and_entries_readable_after_rewrites(tmp_path: Path, umask_022: None) -> None:
    store = Store.init(tmp_path)
    first = store.add(Entry(summary="Run tests with pytest -q", status="confirmed"), actor="cli")
    store.add(Entry(summary="Deploys go through make release", status="confirmed"), actor="cli")
    assert mode(tmp_path / "MEMORY.md") == 0o644
    assert mode(store.entries_dir / f"{first.id}.toml") == 0o644
    os.chmod(tmp_path / "MEMORY.md", 0o600)  # made private by hand: stays private
    store.edit(first.id, {"summary": "Run tests with pytest -q -x"}, actor="cli")
    assert mode(tmp_path / "MEMORY.md") == 0o600
