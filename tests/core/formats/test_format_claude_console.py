"""Claude Code console copies (`>` prompts, `⏺` replies)."""

from __future__ import annotations

from pathlib import Path

from format_helpers import read_all, said, write_text

CONSOLE = """╭───────────────────────────────────────────────────╮
│ ✻ Welcome to Claude Code!                         │
│   cwd: /Users/me/BookMinder                       │
╰───────────────────────────────────────────────────╯

> We practice TDD here: write the failing spec first,
  then the code.

⏺ Understood. I'll start with the spec.

⏺ Read(spec/library_spec.py)
  ⎿  Read 40 lines (ctrl+r to expand)

⏺ Bash(python -m pytest -q)
  ⎿  3 passed

✻ Thinking…

  maybe mock the filesystem

⏺ All specs pass.

⏺ Update Todos
  ⎿  ☒ Write the spec

## Day 3 notes

The spec-first loop kept the library small.

> /clear
"""


def test_console_copy(tmp_path: Path) -> None:
    path = write_text(tmp_path / "day-003.md", CONSOLE)
    fmt, messages, stats = read_all(path)
    assert fmt == "claude-console"
    assert said(messages, "person") == [
        "We practice TDD here: write the failing spec first,\nthen the code."
    ]
    assert said(messages, "assistant") == [
        "Understood. I'll start with the spec.",
        "All specs pass.",
    ]
    assert said(messages, "tool") == [
        "Read(spec/library_spec.py)\nRead 40 lines (ctrl+r to expand)",
        "Bash(python -m pytest -q)\n3 passed",
        "Update Todos\n☒ Write the spec",
    ]
    assert [m.text for m in messages if m.role == "note"] == [
        "The spec-first loop kept the library small."
    ]
    assert said(messages, "command") == ["/clear"]
    assert not any("mock the filesystem" in m.text for m in messages)
    assert messages[0].locator == f"{path}:6"
    assert stats.ignored == 5  # the welcome box and the diary's heading
