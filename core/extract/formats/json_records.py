"""Generic JSON: an array (or one object) of message records (see `records`).

Streams the array element by element, so a large file is never loaded whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from memdesk.core.extract.formats.common import first_byte, head_lines
from memdesk.core.extract.formats.jsonstream import iter_json_values
from memdesk.core.extract.formats.records import record_messages, with_origin
from memdesk.core.extract.messages import Message, ReadStats
from memdesk.core.jsonfile import loads

NAME = "json"
LINE_BASED = False
DESCRIPTION = "generic JSON array (or object with messages) of {role, content} records"

_RECORD_KEY = re.compile(rb'"(?:role|speaker|author|messages|summary)"\s*:')


def sniff(path: Path, head: bytes) -> bool:
    start = first_byte(head)
    if start == b"[" or (start == b"{" and (path.suffix.lower() == ".json" or _spans_lines(head))):
        return _RECORD_KEY.search(head) is not None
    return False


def _spans_lines(head: bytes) -> bool:
    """A pretty-printed object: its first line alone is not complete JSON."""
    lines = head_lines(head, 1)
    try:
        loads(lines[0], "head")
    except (ValueError, IndexError):
        return True
    return False


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    with path.open("rb") as handle:
        for index, element in iter_json_values(handle, stats):
            found = record_messages(element, f"{path}#{index}", stats)
            if found is None:
                stats.warn(f"#{index}", "not a message record")
                continue
            for one in found:
                yield from with_origin(one)
        stats.end_offset = handle.tell()
