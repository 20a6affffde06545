"""A git branch switch, through the verbs a person types: no old wording comes back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

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


def test_edit_after_switching_back_brings_no_candidate(tmp_path: Path, cli) -> None:
    repo = str(tmp_path)
    git(tmp_path, "init", "-q", "-b", "main")
    assert cli("--dir", repo, "init").returncode == 0
    added = cli("--dir", repo, "add", "Deploy with make ship", "--status", "confirmed")
    assert added.returncode == 0, added.stderr
    entry_id = added.stdout.strip()
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first wording")
    git(tmp_path, "checkout", "-q", "-b", "wording")
    edited = cli("--dir", repo, "edit", entry_id, "--summary", "Deploy with make release")
    assert edited.returncode == 0, edited.stderr
    git(tmp_path, "commit", "-qam", "second wording")
    git(tmp_path, "checkout", "-q", "main")
    edited = cli("--dir", repo, "edit", entry_id, "--summary", "Deploy with make publish")
    assert edited.returncode == 0, edited.stderr

    listed = cli("--dir", repo, "list", "--status", "candidate", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    memory = (tmp_path / "MEMORY.md").read_text("utf-8")
    assert "- Deploy with make publish" in memory
    assert "make ship" not in memory and "make release" not in memory
