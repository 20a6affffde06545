"""A repository you pull cannot reach outside its working directory.

Each test builds a working directory as a hostile branch could leave it (forged ids in
the pending batch, the journal, conflict files and MEMORY.md's state; symbolic links in
and around `.memdesk/`), runs the verbs a person would run, and checks that no file
outside the working directory was read, written or deleted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store

SECRET = "outside-file-content-that-must-never-be-read"


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `folder` with its bytes and modification time."""
    out: dict[str, tuple[bytes, int]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(folder).as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the working directory, with files an attacker would aim at."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.toml").write_text(f'secret = "{SECRET}"\n', "utf-8")
    (folder / "passwd").write_text(
        "\n".join(f"user{i}:x:{i}:{i}:{SECRET}:/home/u{i}:/bin/sh" for i in range(25)) + "\n",
        "utf-8",
    )
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    Store.init(root)
    return root


# Relative ids that climb from .memdesk/entries/ (or .memdesk/conflicts/) to outside/.
CLIMB = "../../../outside/victim"
CLIMB_NEW = "../../../outside/pwned"


def assert_untouched(before: dict[str, tuple[bytes, int]], outside: Path) -> None:
    assert snapshot(outside) == before
    assert not (outside / "pwned.toml").exists()


def nothing_read_into(root: Path) -> None:
    """The outside files' text reached no file of the working directory."""
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert SECRET.encode() not in path.read_bytes(), path


# -- ids from data ------------------------------------------------------------------------


def test_pending_batch_id_cannot_delete_outside(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    pending = {"group": "g1", "ops": [{"entry_id": CLIMB, "before": None, "after": {}}]}
    (repo / ".memdesk/pending-batch.json").write_text(json.dumps(pending), "utf-8")
    listed = cli("--dir", str(repo), "list")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    assert_untouched(before, outside)
    problems = cli("--dir", str(repo), "problems")
    assert "pending-batch.json" in problems.stdout and "not an entry id" in problems.stdout


def test_journal_delete_record_cannot_create_outside(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    forged = Entry(summary="planted by a branch", id="x1").to_json()
    record = {
        "op": "delete",
        "entry_id": CLIMB_NEW,
        "actor": "cli",
        "group": "g2",
        "before": forged,
        "version_before": 1,
    }
    with (repo / ".memdesk/journal.jsonl").open("a", encoding="utf-8") as journal:
        journal.write(json.dumps(record) + "\n")
    undone = cli("--dir", str(repo), "undo")
    assert undone.returncode == 1
    assert "not an entry id" in undone.stderr and "Traceback" not in undone.stderr
    assert_untouched(before, outside)
    problems = cli("--dir", str(repo), "problems")
    assert "journal.jsonl:1" in problems.stdout and "not an entry id" in problems.stdout
