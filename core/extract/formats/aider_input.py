"""Aider input history (`.aider.input.history`): every prompt the person typed.

`# <date time>` lines stamp an entry; the entry's lines follow, each prefixed with `+`
(a multi-line prompt is several `+` lines). Lines starting with `/` are aider commands
("command"); the rest are the person's words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from memdesk.core.extract.formats.common import head_lines, iter_lines, message
from memdesk.core.extract.messages import Message, ReadStats

NAME = "aider-input"
LINE_BASED = True
DESCRIPTION = "Aider input history (.aider.input.history)"

_STAMP = re.compile(rb"^# \d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}")
_STAMP_TEXT = re.compile(r"^# (?P<when>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}\S*)\s*$")


def sniff(path: Path, head: bytes) -> bool:
    if path.name.endswith(".aider.input.history"):
        return True
    lines = head_lines(head, 4)
    return len(lines) >= 2 and bool(_STAMP.match(lines[0])) and lines[1].startswith(b"+")


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    stamp = ""
    entry: list[str] = []
    entry_line = 0

    def flush() -> Iterator[Message]:
        nonlocal entry
        text = "\n".join(entry).strip()
        if text:
            origin = "command" if text.startswith("/") else "person"
            yield message(
                origin, text, session=path.name, stamp=stamp, locator=f"{path}:{entry_line}"
            )
        entry = []

    for number, line in iter_lines(path, stats, start_offset, start_line, complete_lines_only):
        when = _STAMP_TEXT.match(line)
        if when:
            yield from flush()
            stamp = when.group("when")
            continue
        if line.startswith("+"):
            if not entry:
                entry_line = number
            entry.append(line[1:])
        elif line.strip():
            stats.warn(number, "not an input history line (expected '# date' or '+text')")
    yield from flush()
