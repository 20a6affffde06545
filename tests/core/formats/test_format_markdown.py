"""Markdown chat logs with speaker headings (with or without times), and notes."""

from __future__ import annotations

from pathlib import Path

from format_helpers import read_all, said, write_text

LOG = """# Conversation: 2026-02-13

| Field | Value |
|-------|-------|
| Session ID | `8a2d` |

---

## User (04:33 UTC)

The first sprint must leave the project in a working state.

## Assistant (04:34 UTC)

Great feedback. Let me review the build.

- **Used Read** on `.team/roster.md`

- **Used Bash**: Attempt to build

### Assistant

Build confirmed failing.

## User guide

This heading is part of the reply, not a speaker.
"""


def test_heading_log_with_times(tmp_path: Path) -> None:
    path = write_text(tmp_path / "2026-02-13T04-31-00-feedback.md", LOG)
    fmt, messages, stats = read_all(path)
    assert fmt == "markdown"
    assert said(messages, "person") == [
        "The first sprint must leave the project in a working state."
    ]
    assert said(messages, "assistant") == [
        "Great feedback. Let me review the build.",
        "Build confirmed failing.\n\n## User guide\n\nThis heading is part of the reply, not a speaker.",
    ]
    assert said(messages, "tool") == [
        "- **Used Read** on `.team/roster.md`\n- **Used Bash**: Attempt to build"
    ]
    assert messages[0].locator == f"{path}:9"
    assert not any("Session ID" in m.text for m in messages)  # the preamble table
    assert stats.ignored == 5


def test_plain_notes_stay_notes(tmp_path: Path) -> None:
    path = write_text(
        tmp_path / "notes.md", "# Notes\n\n- the gateway is only reachable via bastion\n"
    )
    fmt, messages, _ = read_all(path)
    assert fmt == "markdown"
    assert [(m.role, m.text) for m in messages] == [
        ("note", "- the gateway is only reachable via bastion")
    ]
