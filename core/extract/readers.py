"""Readers: agent artefacts on disk -> a stream of `Message`s.

The facade every caller uses (inbox, watcher, CLI, benches). The formats themselves —
Claude Code, Codex, Gemini CLI, Copilot CLI, Antigravity, ChatGPT export, Aider,
SpecStory, console copies, Markdown chat logs and daily logs, generic JSONL/JSON — are
one module each in `memdesk.core.extract.formats`, tried in order by `detect_format`.

Everything streams: JSONL and Markdown line by line, JSON arrays element by element, so
a 1 GB file is never loaded whole. Malformed lines are skipped and counted in
`ReadStats` with a warning naming file and line; known records that carry no
conversation (and record types newer than a reader) are skipped silently and counted
in `ReadStats.ignored`. A file no reader recognises raises `UnrecognisedFormat`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memdesk.core.extract import formats
from memdesk.core.extract.formats import NAMES, UnrecognisedFormat, by_name
from memdesk.core.extract.formats.common import render_tool_call
from memdesk.core.extract.formats.records import record_messages
from memdesk.core.extract.messages import Message, ReadStats

FORMATS: tuple[str, ...] = NAMES

__all__ = [
    "FORMATS",
    "UnrecognisedFormat",
    "detect_format",
    "is_line_based",
    "read_messages",
    "record_messages",
    "render_tool_call",
]


def detect_format(path: Path | str) -> str:
    """The name of the first format whose sniffer accepts the file.

    Raises `UnrecognisedFormat` (a ValueError naming the file and the formats tried)
    when none does.
    """
    return formats.detect(Path(path)).NAME


def is_line_based(fmt: str) -> bool:
    """Whether a read of this format can resume at a byte offset (JSONL, Markdown)."""
    return by_name(fmt).LINE_BASED


def read_messages(
    path: Path | str,
    *,
    stats: ReadStats | None = None,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
    fmt: str | None = None,
) -> Iterator[Message]:
    """Stream the messages of one file.

    `start_offset`/`start_line` resume an earlier read (line-based formats; whole-JSON
    files are always read from the start). With `complete_lines_only` a last line without
    its newline is left for later (the writer may still be appending to it).
    `stats.end_offset`/`end_line` tell where to resume next time.
    """
    path = Path(path)
    stats = stats if stats is not None else ReadStats(str(path))
    reader = by_name(fmt) if fmt else formats.detect(path)
    if not reader.LINE_BASED:
        start_offset, start_line = 0, 0
    for message in reader.read(
        path,
        stats,
        start_offset=start_offset,
        start_line=start_line,
        complete_lines_only=complete_lines_only,
    ):
        stats.messages += 1
        stats.said += message.is_said
        yield message
