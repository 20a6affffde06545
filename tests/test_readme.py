"""The README is the front door: short, two quick-start commands, links that resolve."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_readme_is_at_most_300_lines() -> None:
    assert len(README.read_text("utf-8").splitlines()) <= 300


def test_readme_links_to_files_that_exist() -> None:
    text = README.read_text("utf-8")
    targets = re.findall(r"\]\(((?:docs|screenshots)/[^)#\s]+)\)", text)
    assert targets, "the README links to no docs or screenshots"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []


def test_quick_start_has_the_demo_and_the_test_command() -> None:
    text = README.read_text("utf-8")
    start = text.index("## Quick start")
    section = text[start : text.index("\n## ", start + 1)]
    commands = re.findall(r"```sh\n(.+?)\n```", section, re.S)
    assert len(commands) == 2
    assert commands[0].rstrip().endswith("memdesk demo")
    assert "pytest" in commands[1]
