"""Helpers every format reader shares: line streaming, head sniffing, tagged blocks.

Readers stream: `iter_lines` / `iter_records` hand out one line (or one decoded JSON
record) at a time and keep `stats.end_offset` / `stats.end_line` exact, so a later read
can resume where this one stopped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.messages import Message, ReadStats
from memdesk.core.jsonfile import JSON_ERRORS, loads, reason

# Bytes of a file's start the sniffers look at.
HEAD_BYTES = 64 * 1024


def read_head(path: Path, size: int = HEAD_BYTES) -> bytes:
    with path.open("rb") as handle:
        return handle.read(size)


def head_lines(head: bytes, limit: int = 8) -> list[bytes]:
    """The first non-blank lines of `head` (the last may be cut short by the head's end)."""
    out: list[bytes] = []
    for line in head.splitlines():
        if line.strip():
            out.append(line.strip())
            if len(out) >= limit:
                break
    return out


def head_records(head: bytes, limit: int = 8) -> list[dict[str, Any]]:
    """The complete JSON-object lines among the first lines of `head`."""
    out: list[dict[str, Any]] = []
    for line in head_lines(head, limit):
        if not line.startswith(b"{"):
            continue
        try:
            value = loads(line, "head")
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def first_byte(head: bytes) -> bytes:
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return stripped[:1]


def head_text(head: bytes) -> str:
    return head.decode("utf-8", errors="replace")


def iter_lines(
    path: Path, stats: ReadStats, start_offset: int, start_line: int, complete_only: bool
) -> Iterator[tuple[int, str]]:
    """(line number, text without its newline) from `start_offset` on."""
    with path.open("rb") as handle:
        handle.seek(start_offset)
        offset, number = start_offset, start_line
        stats.end_offset, stats.end_line = offset, number
        for raw in handle:
            if complete_only and not raw.endswith(b"\n"):
                break
            offset += len(raw)
            number += 1
            yield number, raw.decode("utf-8", errors="replace").rstrip("\r\n")
            stats.end_offset, stats.end_line = offset, number


def iter_records(
    path: Path, stats: ReadStats, start_offset: int, start_line: int, complete_only: bool
) -> Iterator[tuple[int, Any]]:
    """(line number, decoded JSON value) of each non-blank line; bad lines are warned."""
    loads = json.loads
    with path.open("rb") as handle:
        handle.seek(start_offset)
        offset, number = start_offset, start_line
        stats.end_offset, stats.end_line = offset, number
        for raw in handle:
            if complete_only and not raw.endswith(b"\n"):
                break
            offset += len(raw)
            number += 1
            if raw.strip():
                try:
                    record = loads(raw)
                except JSON_ERRORS as exc:  # json.loads itself: this loop is hot
                    stats.warn(number, reason(exc))
                else:
                    yield number, record
            stats.end_offset, stats.end_line = offset, number


def text_of(value: Any) -> str:
    """Text of a content value: a string, or a list of parts with `text`."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return ""
    pieces = []
    for part in value:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            pieces.append(part["text"])
    return "\n".join(p for p in pieces if p)


def split_tagged(text: str, tags: dict[str, str], default: str) -> list[tuple[str, str]]:
    """Cut `text` into (origin, text) pieces: `<tag>...</tag>` blocks take the origin the
    table gives their tag, everything outside them takes `default`. Adjacent pieces of
    the same origin are joined; blank pieces dropped."""
    if "<" not in text:
        return [(default, text.strip())] if text.strip() else []
    pattern = _tag_pattern(tuple(sorted(tags)))
    pieces: list[tuple[str, str]] = []
    pos = 0
    for match in pattern.finditer(text):
        pieces.append((default, text[pos : match.start()]))
        tag = match.group(1).lower()
        origin = tags.get(tag, default)  # table keys are lower case
        pieces.append((origin, match.group(3)))
        pos = match.end()
    pieces.append((default, text[pos:]))
    merged: list[tuple[str, str]] = []
    for origin, piece in pieces:
        if not piece.strip():
            continue
        if merged and merged[-1][0] == origin:
            merged[-1] = (origin, merged[-1][1] + "\n" + piece.strip())
        else:
            merged.append((origin, piece.strip()))
    return merged


_PATTERNS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _tag_pattern(tags: tuple[str, ...]) -> re.Pattern[str]:
    pattern = _PATTERNS.get(tags)
    if pattern is None:
        names = "|".join(re.escape(t) for t in tags)
        pattern = re.compile(rf"<({names})(\s[^>]*)?>(.*?)(?:</\1\s*>|\Z)", re.S | re.I)
        _PATTERNS[tags] = pattern
    return pattern


# Role a message gets from who wrote it: words that are not the person's never carry
# role "user", so an extractor that only looks at roles still attributes them right.
ROLE_OF_ORIGIN: dict[str, str] = {
    "person": "user",
    "assistant": "assistant",
    "subagent": "system",
    "compaction": "system",
    "injected": "system",
    "command": "system",
    "tool": "tool",
}


def message(
    origin: str,
    text: str,
    *,
    session: str = "",
    stamp: str = "",
    locator: str = "",
    kind: str = "text",
    role: str | None = None,
    record: str = "",
) -> Message:
    return Message(
        role or ROLE_OF_ORIGIN.get(origin, "system"),
        text,
        session,
        stamp,
        locator,
        kind,
        origin,
        record,
    )


def render_tool_call(name: str, data: Any) -> str:
    """A readable line for a tool call: the shell command itself for shell-like tools."""
    if isinstance(data, str):
        try:
            data = loads(data, name)
        except ValueError:
            return f"[{name}] {data[:500]}"
    if isinstance(data, dict):
        for key in ("command", "cmd", "script", "CommandLine"):
            value = data.get(key)
            if isinstance(value, str):
                return f"$ {value}"
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return "$ " + " ".join(value)
        for key in (
            "file_path",
            "absolute_path",
            "path",
            "pattern",
            "url",
            "TargetFile",
            "AbsolutePath",
        ):
            if isinstance(data.get(key), str):
                return f"[{name}] {data[key]}"
    return f"[{name}] {json.dumps(data, ensure_ascii=False, default=str)[:500]}"
