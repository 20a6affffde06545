"""A FIFO, a device or a huge file where the repository has a file memdesk reads
(settings.toml, MEMORY.md, an entry file): one line naming the file, never a hang or
a read without end (core/plain_file.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store

fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _memdesk(root: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memdesk.cli", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,  # a hang fails the test instead of blocking it
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    store = Store.init(tmp_path / "repo")
    store.add(Entry(summary="Always run make check before pushing", status="confirmed"))
    return tmp_path / "repo"


@fifo
@pytest.mark.parametrize(
    "args",
    [
        ["context"],
        ["context", "--purpose", "coding", "--budget", "2000"],
        ["doctor"],
        ["problems"],
        ["list"],  # reads no settings it needs: lists, as with a settings.toml that is not TOML
    ],
)
def test_settings_fifo_is_refused_not_waited_on(root: Path, args: list[str]) -> None:
    settings = root / ".memdesk" / "settings.toml"
    settings.unlink()
    os.mkfifo(settings)
    done = _memdesk(root, *args)
    assert "Traceback" not in done.stderr
    if args == ["list"]:
        assert done.returncode == 0 and "make check" in done.stdout
    else:
        said = [line for line in (done.stdout + done.stderr).splitlines() if "named pipe" in line]
        assert said and "settings.toml" in said[0]


def test_huge_settings_is_too_large(root: Path) -> None:
    settings = root / ".memdesk" / "settings.toml"
    with settings.open("a") as handle:
        handle.write(("# padding\n" * 1000) * 120)  # 1.2 MB of comments
    done = _memdesk(root, "context")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "settings.toml" in lines[0] and "too large" in lines[0]


@fifo
@pytest.mark.parametrize(
    "args", [["ingest"], ["render"], ["add", "Use tabs", "--status", "confirmed"]]
)
def test_memory_md_fifo_is_not_waited_on(root: Path, args: list[str]) -> None:
    (root / "MEMORY.md").unlink(missing_ok=True)
    os.mkfifo(root / "MEMORY.md")
    done = _memdesk(root, *args, timeout=25)
    assert "Traceback" not in done.stderr


@fifo
def test_entry_file_fifo_is_a_problem_not_a_hang(root: Path) -> None:
    os.mkfifo(root / ".memdesk" / "entries" / "piped.toml")
    done = _memdesk(root, "list")
    assert done.returncode == 0, done.stderr
    assert "make check" in done.stdout
