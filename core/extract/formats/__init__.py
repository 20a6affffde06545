"""Transcript formats: one module per format, tried in order by `detect`.

Every module follows `TranscriptFormat`: a `NAME`, a `sniff(path, head)` that looks at
the file name and its first bytes, and a `read(path, stats, ...)` that streams the
file's `Message`s, each with its role, its origin (who wrote the words) and a locator.
Adding a format is one module here, one entry in `FORMATS` and one test file.

Order matters: the specific agent formats come first, the generic readers (any
`{role, content}` JSONL/JSON, any Markdown) last.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from memdesk.core.extract.formats import (
    aider_chat,
    aider_input,
    antigravity,
    chatgpt,
    claude_code,
    claude_console,
    codex,
    copilot_cli,
    gemini_cli,
    json_records,
    jsonl,
    markdown,
    specstory,
)
from memdesk.core.extract.formats.common import read_head
from memdesk.core.extract.messages import Message, ReadStats


class TranscriptFormat(Protocol):
    """What a format module provides."""

    NAME: str  # the name `--format`, settings and reports use
    LINE_BASED: bool  # a read can resume at a byte offset / line (start_offset ...)
    DESCRIPTION: str

    def sniff(self, path: Path, head: bytes) -> bool:
        """True when the file is in this format (`head`: its first 64 KiB)."""
        ...

    def read(
        self,
        path: Path,
        stats: ReadStats,
        *,
        start_offset: int = 0,
        start_line: int = 0,
        complete_lines_only: bool = False,
    ) -> Iterator[Message]:
        """The file's messages, streamed; problems counted and warned in `stats`."""
        ...


FORMATS: tuple[TranscriptFormat, ...] = (
    claude_code,
    codex,
    gemini_cli,
    copilot_cli,
    antigravity,
    chatgpt,
    aider_chat,
    aider_input,
    specstory,
    claude_console,
    markdown,
    jsonl,
    json_records,
)
NAMES: tuple[str, ...] = tuple(f.NAME for f in FORMATS)


class UnrecognisedFormat(ValueError):
    """No reader recognises a file: names the file and the formats tried."""

    def __init__(self, path: Path | str, reason: str = "") -> None:
        self.path = str(path)
        detail = f" ({reason})" if reason else ""
        super().__init__(
            f"{path}: not a transcript format memdesk reads{detail}; tried: {', '.join(NAMES)}"
        )


def by_name(name: str) -> TranscriptFormat:
    for fmt in FORMATS:
        if name == fmt.NAME:
            return fmt
    raise ValueError(f"unknown transcript format {name!r}; allowed: {', '.join(NAMES)}")


def detect(path: Path, head: bytes | None = None) -> TranscriptFormat:
    """The first format whose sniffer accepts the file; UnrecognisedFormat when none."""
    head = read_head(path) if head is None else head
    if b"\0" in head[:8192]:
        raise UnrecognisedFormat(path, "binary content")
    for fmt in FORMATS:
        if fmt.sniff(path, head):
            return fmt
    if not head.strip():  # a session file just created: nothing to read yet, no error
        suffix = path.suffix.lower()
        if suffix in (".jsonl", ".ndjson"):
            return jsonl
        if suffix == ".json":
            return json_records
    raise UnrecognisedFormat(path)
