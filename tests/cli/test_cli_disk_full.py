"""A full disk: writing verbs say so in one line, and the store stays readable and whole
(an interrupted change is rolled back on the next open)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from fs_faults import cli_with_failing_writes


@pytest.fixture
def project(tmp_path: Path, cli) -> tuple[Path, str]:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    added = cli("--dir", str(tmp_path), "add", "The build uses make and ninja")
    return tmp_path, added.stdout.strip()


@pytest.mark.parametrize(
    "verb", [["add", "Deploys go through make release"], ["approve", "ID"], ["render"]]
)
def test_disk_full_is_one_line(project, cli, verb: list[str]) -> None:
    root, entry_id = project
    args = [entry_id if word == "ID" else word for word in verb]
    result = cli_with_failing_writes(root, errno.ENOSPC, *args)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "No space left on device" in lines[0] and "disk is full" in lines[0]
    # Space back: the store reads whole, with no problem and the entry as it was.
    listed = cli("--dir", str(root), "list")
    assert listed.returncode == 0 and entry_id in listed.stdout
    assert cli("--dir", str(root), "problems").stdout.strip() == "no problems"


def test_committed_change_never_reports_failure(project) -> None:
    # Only MEMORY.md's rewrite fails (the disk filled after the commit): the approve is
    # done, so it exits 0 and warns that MEMORY.md lags.
    root, entry_id = project
    result = cli_with_failing_writes(
        root, errno.ENOSPC, "approve", entry_id, fail_under=root / "MEMORY.md"
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "warning: saved, but MEMORY.md was not rewritten" in result.stderr
    text = (root / ".memdesk" / "entries" / f"{entry_id}.toml").read_text()
    assert 'status = "confirmed"' in text
