"""The table of memory-file formats, and which one a path is."""

from __future__ import annotations

import os
import re
from pathlib import Path

from memdesk.core.memfiles import (
    agents_md,
    claude_auto_memory,
    claude_md,
    codex_memories,
    gemini_md,
    openclaw,
)
from memdesk.core.memfiles.format import MemoryFormat

FORMATS: dict[str, MemoryFormat] = {
    f.name: f
    for f in (
        claude_md.FORMAT,
        agents_md.FORMAT,
        gemini_md.FORMAT,
        claude_auto_memory.FORMAT,
        claude_auto_memory.TOPIC,
        openclaw.FORMAT,
        openclaw.DAILY,
        codex_memories.FORMAT,
    )
}
MARKDOWN = MemoryFormat(
    name="markdown", agent="any agent", file_names=(), description="a plain Markdown file"
)
FORMATS[MARKDOWN.name] = MARKDOWN
_DAILY = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


class UnknownFormat(ValueError):
    pass


def get_format(name: str) -> MemoryFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormat(
            f"unknown memory-file format {name!r}; known: {', '.join(sorted(FORMATS))}"
        ) from None


def detect_format(path: Path, text: str = "") -> MemoryFormat:
    """The format a path most likely has, from its name and place."""
    parts = path.parts
    name = path.name
    if ("memories" in parts[:-1] and ".codex" in parts) or _in_codex_home(path):
        return codex_memories.FORMAT
    if ".claude" in parts and "memory" in parts[:-1]:
        return claude_auto_memory.FORMAT if name == "MEMORY.md" else claude_auto_memory.TOPIC
    if path.parent.name == "memory" and _DAILY.match(name):
        return openclaw.DAILY
    for fmt in (claude_md.FORMAT, agents_md.FORMAT, gemini_md.FORMAT):
        if name in fmt.file_names:
            return fmt
    if name == "MEMORY.md":
        # The 200-line note agents write at the top of an auto-memory file.
        if "loaded automatically" in text[:2000]:
            return claude_auto_memory.FORMAT
        return openclaw.FORMAT
    if path.parent.name == "memory" and text.startswith("---") and "type:" in text[:500]:
        return claude_auto_memory.TOPIC
    return MARKDOWN


def _in_codex_home(path: Path) -> bool:
    home = os.environ.get("CODEX_HOME")
    if not home:
        return False
    return Path(home, "memories") in path.parents
