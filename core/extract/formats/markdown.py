"""Markdown chat logs with speaker markers, and daily logs whose lines are notes.

Chat logs: a turn starts at a speaker marker — a heading (`## User`, `### Assistant`,
`## User (04:33 UTC)`, `## Assistant — 10:02`), a bold or plain label with a colon
(`**User:**`, `Assistant:`, `用户：`). Markers inside code fences do not count. The
person's words are the user turns; `- **Used Tool** ...` lines in an assistant turn
(exports that list tool calls) are tool calls, not the assistant's words. Lines before
the first marker of a chat log (a title, a metadata table) are skipped.

Daily logs (`memory/YYYY-MM-DD.md`, OpenClaw style) and Markdown with no speaker
markers at all: every non-blank line outside headings and fences is a note (role
"note"), stamped with the day and the time of the heading above it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from memdesk.core.extract.formats.common import head_text, iter_lines, message
from memdesk.core.extract.messages import Message, ReadStats, normalise_role

NAME = "markdown"
LINE_BASED = True
DESCRIPTION = "Markdown chat log (speaker markers) or notes (daily log)"

SUFFIXES = (".md", ".markdown", ".txt")
_DAILY_LOG = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[-_ ].*)?\.(?:md|markdown)$", re.IGNORECASE)
_SPEAKER = re.compile(
    r"^\s*(?:#{1,6}\s*|>\s*)?(?:\*\*|__)?\s*"
    r"(?P<role>user|human|assistant|ai|system|tool|用户|助手|me|claude|chatgpt|gpt)"
    r"\s*(?:\*\*|__)?\s*(?P<colon>[:：])?\s*(?:\*\*|__)?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
# What may follow a speaker heading's name: a time or date, alone or in brackets.
_HEADING_TAIL = re.compile(
    r"^(?:\([^)]*\)|\[[^\]]*\]|[-—–·|,]\s*.*\d.*|\d{1,4}[-/:.]\d.*)$", re.IGNORECASE
)
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<title>.*)$")
_TIME_HEADING = re.compile(r"(?P<time>\b\d{1,2}:\d{2}(?::\d{2})?\b)")
_TOOL_LINE = re.compile(r"^\s*[-*]\s+\*\*Used\s+[\w.-]+\*\*")
_MAX_TURN_CHARS = 1 << 20
_ORIGIN_OF_ROLE = {"user": "person", "assistant": "assistant", "system": "injected", "tool": "tool"}


def speaker(line: str) -> tuple[str, str] | None:
    """(role, text after the marker) when `line` opens a turn."""
    match = _SPEAKER.match(line)
    if not match:
        return None
    is_heading = line.lstrip().startswith("#")
    rest = match.group("rest")
    if not (is_heading or match.group("colon")):
        return None  # "User" mid-sentence is not a marker; "User:" or "## User" is
    if is_heading and rest and not match.group("colon"):
        if not _HEADING_TAIL.match(rest.strip()):
            return None  # "## User guide" is a heading, not a speaker
        rest = ""  # "## User (04:33 UTC)": the time is not part of the turn
    role = normalise_role(match.group("role"))
    if role is None:
        role = "user" if match.group("role").lower() == "me" else "assistant"
    return role, rest


def has_speakers(text: str) -> bool:
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and speaker(line):
            return True
    return False


def sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() in SUFFIXES:
        return True
    if b"\0" in head or not head.strip() or head.lstrip()[:1] in (b"{", b"["):
        return False
    return has_speakers(head_text(head))


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    daily = _DAILY_LOG.match(path.name)
    session = daily.group(1) if daily else path.stem
    day = daily.group(1) if daily else ""
    chat = not daily and _file_has_speakers(path)
    lines = iter_lines(path, stats, start_offset, start_line, complete_lines_only)
    yield from markdown_messages(lines, str(path), session, day, chat, stats)


def _file_has_speakers(path: Path) -> bool:
    with path.open("rb") as handle:
        return has_speakers(handle.read(256 * 1024).decode("utf-8", errors="replace"))


def markdown_messages(
    lines: Iterable[tuple[int, str]],
    where: str,
    session: str,
    day: str,
    chat: bool,
    stats: ReadStats,
) -> Iterator[Message]:
    role: str | None = None
    turn: list[str] = []
    turn_line = 0
    size = 0
    stamp = day
    in_fence = False

    def flush() -> Iterator[Message]:
        nonlocal turn, size
        if role:
            yield from turn_messages(role, turn, session, stamp, f"{where}:{turn_line}")
        turn, size = [], 0

    for number, line in lines:
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        found = None if in_fence or not chat else speaker(line)
        if found:
            yield from flush()
            role, rest = found
            turn_line = number
            if rest.strip():
                turn.append(rest)
            continue
        if role is not None:
            if size < _MAX_TURN_CHARS:
                turn.append(line)
                size += len(line)
            elif size == _MAX_TURN_CHARS:
                stats.warn(number, "turn longer than 1 MiB: the rest is skipped")
                size += 1
            continue
        if chat:
            if line.strip():
                stats.ignored += 1  # a chat log's title or metadata table
            continue
        heading = _HEADING.match(line)
        if heading:
            time = _TIME_HEADING.search(heading.group("title"))
            if time and day:
                stamp = f"{day}T{time.group('time')}"
            continue
        if line.strip() and not in_fence and not line.lstrip().startswith("```"):
            yield Message("note", line.strip(), session, stamp, f"{where}:{number}")
    yield from flush()


def turn_messages(
    role: str, lines: list[str], session: str, stamp: str, locator: str
) -> Iterator[Message]:
    """One turn; an assistant turn's `- **Used X**` lines become one tool message."""
    origin = _ORIGIN_OF_ROLE.get(role, "")
    tools: list[str] = []
    if role == "assistant":
        tools = [line.strip() for line in lines if _TOOL_LINE.match(line)]
        if tools:
            lines = [line for line in lines if not _TOOL_LINE.match(line)]
    text = "\n".join(lines).strip()
    if text:
        yield message(origin, text, session=session, stamp=stamp, locator=locator, role=role)
    if tools:
        yield message(
            "tool",
            "\n".join(tools),
            session=session,
            stamp=stamp,
            locator=locator,
            kind="tool_use",
        )
