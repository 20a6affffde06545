"""MEMORY.md across git branch switches: a line memdesk rendered is never a candidate.

memdesk's memory of what it rendered lives in an untracked state file, while git swaps
MEMORY.md and the entries with the branch. Lines another branch's render left in the
file are memdesk's own, not an agent's append; a real append is still always taken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True, env=env)


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def _candidates(repo: Path) -> list[str]:
    return sorted(e.summary for e in Store.open(repo).entries() if e.status == "candidate")


def _repo_with_edit_on_a_branch(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    store = Store.init(repo)
    entry = store.add(Entry(summary="deploy with make ship", status="confirmed"), actor="cli")
    _commit(repo, "first wording")
    git(repo, "checkout", "-q", "-b", "wording")
    Store.open(repo).edit(entry.id, {"summary": "deploy with make release"}, actor="cli")
    _commit(repo, "second wording")
    git(repo, "checkout", "-q", "main")
    return repo, entry.id


def test_editing_after_a_branch_switch_brings_no_old_wording_back(tmp_path: Path) -> None:
    repo, entry_id = _repo_with_edit_on_a_branch(tmp_path)
    Store.open(repo).edit(entry_id, {"summary": "deploy with make publish"}, actor="cli")
    assert _candidates(repo) == []
    text = (repo / "MEMORY.md").read_text("utf-8")
    assert "deploy with make publish" in text and "make ship" not in text


def test_switching_back_and_forth_takes_no_rendered_line(tmp_path: Path) -> None:
    repo, entry_id = _repo_with_edit_on_a_branch(tmp_path)
    Store.open(repo).ingest_memory_md()
    git(repo, "checkout", "-q", "wording")
    Store.open(repo).edit(entry_id, {"summary": "deploy with make go"}, actor="cli")
    git(repo, "checkout", "-q", "-f", "main")
    Store.open(repo).edit(entry_id, {"tags": ["ops"]}, actor="cli")
    Store.open(repo).edit(entry_id, {"summary": "deploy with make now"}, actor="cli")
    assert _candidates(repo) == []


def test_an_append_after_a_branch_switch_is_still_taken(tmp_path: Path) -> None:
    repo, entry_id = _repo_with_edit_on_a_branch(tmp_path)
    with open(repo / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- the staging database is read-only on Fridays\n")
    Store.open(repo).edit(entry_id, {"summary": "deploy with make publish"}, actor="cli")
    assert _candidates(repo) == ["the staging database is read-only on Fridays"]


def test_an_append_of_a_wording_memdesk_once_rendered_is_taken(tmp_path: Path) -> None:
    # The first wording was rendered, then edited away; an agent that appends it again
    # is stating a fact, and appends are never dropped.
    repo, entry_id = _repo_with_edit_on_a_branch(tmp_path)
    store = Store.open(repo)
    store.edit(entry_id, {"summary": "deploy with make publish"}, actor="cli")
    with open(repo / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- deploy with make release\n")
    store.ingest_memory_md()
    assert _candidates(repo) == ["deploy with make release"]


def test_a_line_rendered_in_another_clone_is_not_a_candidate(tmp_path: Path) -> None:
    # A teammate's render arrives with a pull; this checkout never rendered it.
    repo, entry_id = _repo_with_edit_on_a_branch(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "wording", str(repo), str(clone))
    assert "make release" in (clone / "MEMORY.md").read_text("utf-8")
    Store.open(clone).edit(entry_id, {"summary": "deploy with make publish"}, actor="cli")
    assert _candidates(clone) == []
