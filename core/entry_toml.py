"""A fast reader for the TOML memdesk writes its entry files in, falling back to tomllib.

Parsing 10,000 entry files with `tomllib` (pure Python, a general TOML parser) is most of
what the first `memdesk context` after a clone costs (nothing derived yet: every file is
parsed once). The files memdesk writes (`entry_files.entry_to_toml`: `tomli_w`) use a
small, regular part of TOML, one statement per line:

    key = "text with \\" escapes"       key = 3          key = 2026-01-01
    key = 2026-01-01 00:03:00+00:00     key = []         [table]
    key = [                             key = \"\"\"
        "item",                         multi-line text\"\"\"
        \"\"\"
    a multi-line item\"\"\",
    ]

`loads_entry_toml` reads exactly that shape and returns what `tomllib.loads` returns for
it, or None for anything else (another spacing, a comment, a literal string, a float,
an inline table, a dotted key, a carriage return, a key or table given twice, an escape
or date `tomllib` would refuse...): the caller then parses the text with `tomllib`,
which also says what is wrong with a damaged file. So a file is never read differently
from how `tomllib` reads it; only a file in memdesk's own shape is read faster
(`tests/core/test_entry_toml.py` checks both on generated and mutated files).
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from typing import Any

# The characters a basic string holds as they are (TOML: no quote, no backslash, no
# control character but the tab), and the escapes `tomllib` (3.11+) reads.
_PLAIN = r'[^"\\\x00-\x08\x0a-\x1f\x7f]'
_ESCAPE = r'\\(?:["\\bfnrt]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})'
_BASIC_BODY = rf"(?:{_PLAIN}|{_ESCAPE})*"
_BARE_KEY = r"[A-Za-z0-9_-]+"

# `key = value` (a basic string, a whole number, a date or date-time, `[]`, or the
# start of a multi-line array or string), nothing else on the line.
_KEY_VALUE = re.compile(
    rf'(?:({_BARE_KEY})|"({_BASIC_BODY})") = (?:'
    rf'"({_BASIC_BODY})"'  # 3: a basic string
    r"|(0|[1-9][0-9]*)"  # 4: a whole number
    r"|([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"  # 5-7: a date
    r"(?: ([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,6}))?"  # 8-11
    r"([+-])([01][0-9]|2[0-3]):([0-5][0-9]))?"  # 12-14: its offset
    r"|(\[\])"  # 15: an empty array
    r"|(\[)"  # 16: an array, one item per line
    r'|(""")'  # 17: a multi-line string
    r")"
)
_TABLE = re.compile(rf"\[({_BARE_KEY})\]")
_ITEM = re.compile(rf'    "({_BASIC_BODY})",')
# One line of a multi-line basic string (raw newlines between them), and its last.
_ML_LINE = re.compile(_BASIC_BODY)
_ML_LAST = re.compile(rf'({_BASIC_BODY})"""')
_ML_LAST_ITEM = re.compile(rf'({_BASIC_BODY})""",')  # a multi-line item of an array
_ESCAPES = re.compile(r'\\(?:(["\\bfnrt])|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8}))')
_COMPACT = {'"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _NotThisShape(Exception):
    """Not the shape memdesk writes: `tomllib` reads it."""


def _unescape(body: str) -> str:
    """A basic string's text from its body (already matched against `_BASIC_BODY`)."""
    if "\\" not in body:
        return body
    return _ESCAPES.sub(_escaped, body)


def _escaped(found: re.Match[str]) -> str:
    short, four, eight = found.groups()
    if short is not None:
        return _COMPACT[short]
    code = int(four or eight, 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise _NotThisShape  # `tomllib` refuses a surrogate or out-of-range escape
    return chr(code)


@cache
def _zone(sign: str, hours: str, minutes: str) -> dt.tzinfo:
    """The zone `tomllib` gives an offset (its `cached_tz`)."""
    factor = -1 if sign == "-" else 1
    return dt.timezone(dt.timedelta(hours=factor * int(hours), minutes=factor * int(minutes)))


def loads_entry_toml(text: str) -> dict[str, Any] | None:
    """`tomllib.loads(text)` for a file in the shape memdesk writes, else None."""
    if "\r" in text:
        return None  # `tomllib` reads CRLF as LF; not worth the care here
    try:
        return _loads(text.split("\n"))
    except (_NotThisShape, ValueError, OverflowError):
        return None


def _loads(lines: list[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    table = root
    tables: set[str] = set()  # tables declared by a header
    match_key_value = _KEY_VALUE.fullmatch
    n = 0
    count = len(lines)
    while n < count:
        line = lines[n]
        n += 1
        if not line:
            continue
        found = match_key_value(line)
        if found is None:
            header = _TABLE.fullmatch(line)
            if header is None:
                raise _NotThisShape
            name = header.group(1)
            if name in tables or name in root:
                raise _NotThisShape  # declared twice: `tomllib` says so
            tables.add(name)
            table = root[name] = {}
            continue
        groups = found.groups()
        key = groups[0] if groups[0] is not None else _unescape(groups[1])
        if key in table:
            raise _NotThisShape
        value: Any
        if groups[2] is not None:
            value = _unescape(groups[2])
        elif groups[3] is not None:
            value = int(groups[3])
        elif groups[4] is not None:
            value = _date_or_time(groups[4:14])
        elif groups[14] is not None:
            value = []
        elif groups[15] is not None:
            value, n = _array(lines, n)
        else:
            value, n = _multi_line(lines, n)
        table[key] = value
    return root


def _date_or_time(parts: tuple[str | None, ...]) -> dt.date | dt.datetime:
    year, month, day, hour, minute, second, micros, sign, off_hours, off_minutes = parts
    assert year is not None and month is not None and day is not None
    if hour is None:
        return dt.date(int(year), int(month), int(day))
    assert minute is not None and second is not None
    assert sign is not None and off_hours is not None and off_minutes is not None
    return dt.datetime(
        int(year),
        int(month),
        int(day),
        int(hour),
        int(minute),
        int(second),
        int(micros.ljust(6, "0")) if micros else 0,
        tzinfo=_zone(sign, off_hours, off_minutes),
    )


def _array(lines: list[str], n: int) -> tuple[list[str], int]:
    """The items of an array written one basic string per line, and the next line."""
    items: list[str] = []
    match_item = _ITEM.fullmatch
    while n < len(lines):
        line = lines[n]
        n += 1
        if line == "]":
            if not items:
                raise _NotThisShape  # memdesk writes an empty array as `[]`
            return items, n
        if line == '    """':
            item, n = _multi_line(lines, n, _ML_LAST_ITEM)
            items.append(item)
            continue
        found = match_item(line)
        if found is None:
            raise _NotThisShape
        items.append(_unescape(found.group(1)))
    raise _NotThisShape  # never closed


def _multi_line(lines: list[str], n: int, end: re.Pattern[str] = _ML_LAST) -> tuple[str, int]:
    """A multi-line basic string opened at the end of the line before `n` (the newline
    right after the opening quotes is not part of it), and the next line; its last
    line matches `end`."""
    parts: list[str] = []
    while n < len(lines):
        line = lines[n]
        n += 1
        last = end.fullmatch(line)
        if last is not None:
            parts.append(last.group(1))
            return _unescape("\n".join(parts)), n
        if _ML_LINE.fullmatch(line) is None:
            raise _NotThisShape  # a quote inside, a backslash at the end of a line...
        parts.append(line)
    raise _NotThisShape
