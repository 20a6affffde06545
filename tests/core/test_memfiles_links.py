"""Agents' memory files that are links: a symbolic link out of the working directory is
never adopted, a manifest naming a path outside is never opened, and a hard-linked
MEMORY.md is never written through (round 8, hostile repository escapes 1, 2 and 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core.store import Store

OUTSIDE_TEXT = "- aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY1\n"


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "proj"
    root.mkdir()
    return root, outside


def test_a_hard_linked_memory_md_is_scrubbed_on_a_new_inode(dirs: tuple[Path, Path]) -> None:
    root, outside = dirs
    store = Store.init(root)
    (root / "MEMORY.md").unlink(missing_ok=True)
    notes = outside / "notes.md"
    text = "# Notes\n\n- fact one\n- the staging db password is Zz8qPw0rdXy12abc\n"
    notes.write_text(text, "utf-8")
    os.link(notes, root / "MEMORY.md")
    store.ingest_memory_md()
    assert notes.read_text("utf-8") == text  # the other name keeps what it had
    assert "Zz8qPw0rdXy12abc" not in (root / "MEMORY.md").read_text("utf-8")
    assert os.stat(root / "MEMORY.md").st_ino != os.stat(notes).st_ino
