"""Drive the real `memdesk demo` in a real terminal (tmux): keys in, screen out."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import tomllib
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install -y tmux) and could not be found"
)


def memdesk_command() -> str:
    script = Path(sys.executable).parent / "memdesk"
    return str(script) if script.exists() else f"{sys.executable} -m memdesk.cli"


class Tmux:
    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, *args: str) -> str:
        return subprocess.run(
            [TMUX, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def flag(self, name: str) -> str:
        return self.run("display-message", "-p", "-t", self.name, f"#{{{name}}}").strip()

    def wait(self, predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")
            time.sleep(0.05)


@pytest.fixture
def tmux():  # type: ignore[no-untyped-def]
    session = Tmux(f"memdesk-test-{uuid.uuid4().hex[:8]}")
    session.run(
        "new-session", "-d", "-s", session.name, "-x", "120", "-y", "36",
        "-e", "MEMDESK_NO_MODEL=1", "-e", "PS1=$ ", "bash --norc --noprofile",
    )  # fmt: skip
    yield session
    subprocess.run([TMUX, "kill-session", "-t", session.name], capture_output=True)


def test_demo_in_a_real_terminal(tmux: Tmux, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    tmux.keys(f"{memdesk_command()} demo --path {demo}; echo EXIT=$?", "Enter")
    tmux.wait(lambda: "candidates waiting, oldest first" in tmux.screen(), "the review queue")
    # 15 candidates, plus the 2 lines agents appended to the demo's MEMORY.md (read off the
    # queue's heading: the title bar's count is cut off when the folder's path is long)
    tmux.wait(lambda: "17 candidates waiting" in tmux.screen(), "MEMORY.md appends in the queue")
    screen = tmux.screen()
    assert "记住：跑 e2e 测试前要先" in screen  # Chinese renders in the table
    assert tmux.flag("alternate_on") == "1"

    tmux.keys("a")  # approve the oldest candidate
    entry = demo / ".memdesk" / "entries" / "cand-001.toml"
    tmux.wait(
        lambda: tomllib.loads(entry.read_text("utf-8"))["status"] == "confirmed",
        "cand-001 approved on disk",
    )
    tmux.wait(lambda: "approved: cand-001" in tmux.screen(), "the approval notification")

    tmux.keys("q")
    tmux.wait(lambda: "EXIT=0" in tmux.screen(), "a clean exit")
    # The terminal is restored: normal screen, no mouse reporting, cursor visible.
    assert tmux.flag("alternate_on") == "0"
    assert tmux.flag("mouse_any_flag") == "0"
    assert tmux.flag("cursor_flag") == "1"


def test_an_approval_pressed_just_before_q_is_on_disk(tmux: Tmux, tmp_path: Path) -> None:
    """The desk ends its process without waiting for its workers (tui/run.py): a write
    still queued when `q` comes is done first, and the terminal is restored."""
    demo = tmp_path / "demo"
    tmux.keys(f"{memdesk_command()} demo --path {demo}; echo EXIT=$?", "Enter")
    tmux.wait(lambda: "17 candidates waiting" in tmux.screen(), "the review queue")
    tmux.keys("a", "q")  # one burst: the approval is still queued when q is handled
    tmux.wait(lambda: "EXIT=0" in tmux.screen(), "a clean exit")
    entry = demo / ".memdesk" / "entries" / "cand-001.toml"
    assert tomllib.loads(entry.read_text("utf-8"))["status"] == "confirmed"
    assert '"op":"approve"' in (demo / ".memdesk" / "journal.jsonl").read_text("utf-8")
    assert tmux.flag("alternate_on") == "0"
    assert tmux.flag("mouse_any_flag") == "0"
    assert tmux.flag("cursor_flag") == "1"


def test_a_temporary_demo_leaves_nothing(tmux: Tmux, tmp_path: Path) -> None:
    """Its folder is removed once the desk's workers are done, then the process ends."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    tmux.keys(f"TMPDIR={scratch} {memdesk_command()} demo; echo EXIT=$?", "Enter")
    tmux.wait(lambda: "17 candidates waiting" in tmux.screen(), "the review queue")
    tmux.keys("q")
    tmux.wait(lambda: "EXIT=0" in tmux.screen(), "a clean exit")
    assert list(scratch.iterdir()) == []
