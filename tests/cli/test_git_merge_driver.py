"""`memdesk merge-driver` inside a real git repository: two branches edit one entry."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=check, env=env
    )


def setup_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    driver = f"{sys.executable} -m memdesk.cli merge-driver %O %A %B %P"
    git(repo, "config", "merge.memdesk.driver", driver)
    store = Store.init(repo)
    entry = store.add(Entry(summary="use pnpm", tags=["web"]), actor="cli")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo, entry.id


def edit_on_branch(repo: Path, branch: str, entry_id: str, changes: dict) -> None:
    git(repo, "checkout", "-q", "-B", branch, "main")
    Store.open(repo).edit(entry_id, changes, actor="cli")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", branch)


def test_disjoint_edits_merge_cleanly(tmp_path: Path) -> None:
    repo, entry_id = setup_repo(tmp_path)
    edit_on_branch(repo, "a", entry_id, {"summary": "use pnpm 9", "tags": ["web", "ci"]})
    edit_on_branch(repo, "b", entry_id, {"scope": "workspace", "tags": ["web", "frontend"]})
    merged = git(repo, "merge", "-q", "a", "-m", "merge a", check=False)
    assert merged.returncode == 0, merged.stderr + merged.stdout
    data = tomllib.loads((repo / ".memdesk" / "entries" / f"{entry_id}.toml").read_text())
    assert data["summary"] == "use pnpm 9" and data["scope"] == "workspace"
    assert sorted(data["tags"]) == ["ci", "frontend", "web"]
    assert data["version"] == 3


def test_true_conflict_marks_only_the_field_and_memdesk_offers_it(tmp_path: Path) -> None:
    repo, entry_id = setup_repo(tmp_path)
    edit_on_branch(repo, "a", entry_id, {"summary": "use pnpm 9", "confidence": "high"})
    edit_on_branch(repo, "b", entry_id, {"summary": "改用 npm workspaces"})
    merged = git(repo, "merge", "-q", "a", "-m", "merge a", check=False)
    assert merged.returncode != 0
    text = (repo / ".memdesk" / "entries" / f"{entry_id}.toml").read_text()
    assert text.count("<<<<<<<") == 1
    assert 'confidence = "high"' in text.split("<<<<<<<")[0]  # merged cleanly, outside markers
    (conflict,) = [c for c in Store.open(repo).open_conflicts() if c.kind == "conflict-markers"]
    assert conflict.field_names == ["summary"]
    assert {conflict.ours["summary"], conflict.theirs["summary"]} == {
        "use pnpm 9",
        "改用 npm workspaces",
    }
