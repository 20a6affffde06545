"""Elements of a top-level JSON array, one at a time, without loading the whole file."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import IO, Any

from memdesk.core.extract.messages import ReadStats
from memdesk.core.jsonfile import BadJSON, loads, reason

# Bytes read at a time (a module setting so tests can force elements across chunks).
CHUNK = 1 << 20


def iter_json_values(handle: IO[bytes], stats: ReadStats) -> Iterator[tuple[int, Any]]:
    """Elements of a top-level JSON array one by one (or the single top-level value).

    Reads CHUNK bytes at a time and decodes each element with `raw_decode` as soon as it
    is complete, so memory holds one element, not the file.
    """
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buffer = ""
    eof = False

    def more() -> bool:
        nonlocal buffer, eof
        if eof:
            return False
        chunk = handle.read(CHUNK)
        if not chunk:
            eof = True
            buffer += utf8.decode(b"", final=True)
            return False
        buffer += utf8.decode(chunk)
        return True

    def skip_space(pos: int) -> int:
        nonlocal buffer
        while True:
            while pos < len(buffer) and buffer[pos] in " \t\r\n\ufeff":
                pos += 1
            if pos < len(buffer) or not more():
                return pos

    pos = skip_space(0)
    if pos >= len(buffer):
        return
    if buffer[pos] != "[":  # a single value: the whole file is one record
        while more():
            pass
        try:
            value = loads(buffer[pos:], stats.path)
        except BadJSON as exc:
            stats.warn(exc.line or 1, exc.reason)
        else:
            yield 0, value
        return
    pos += 1
    index = 0
    while True:
        pos = skip_space(pos)
        if pos >= len(buffer):
            stats.warn(f"#{index}", "unterminated JSON array")
            return
        if buffer[pos] == "]":
            return
        if buffer[pos] == ",":
            pos += 1
            continue
        while True:
            try:
                value, end = decoder.raw_decode(buffer, pos)
                break
            except json.JSONDecodeError as exc:
                grown = len(buffer)
                # Not enough text yet: read until the buffer has doubled, then retry
                # (keeps the cost linear even for one very large element).
                while len(buffer) < 2 * grown and more():
                    pass
                if len(buffer) == grown:
                    stats.warn(f"#{index}", reason(exc))
                    return
            except (ValueError, RecursionError) as exc:  # too deep, a huge integer
                stats.warn(f"#{index}", reason(exc))
                return
        yield index, value
        index += 1
        buffer = buffer[end:]
        pos = 0
