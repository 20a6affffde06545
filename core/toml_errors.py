"""One line for a TOML file that does not parse: the file, the line, what is wrong.

`tomllib` puts the position in the message ("... (at line 3, column 9)"); people read
`path:line: ...` best, the form compilers and linters use.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from typing import Any

_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)\s*$|\s*\(at end of document\)\s*$")


def toml_error_line(exc: tomllib.TOMLDecodeError) -> int | None:
    """The line a TOML error points at, when it says."""
    match = _POSITION.search(str(exc))
    return int(match.group(1)) if match and match.group(1) else None


def describe_toml_error(path: Path | str, exc: tomllib.TOMLDecodeError | UnicodeDecodeError) -> str:
    """`PATH:LINE: not valid TOML: WHAT` (no line when the parser gives none)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"{path}: not UTF-8 text (byte {exc.start})"
    line = toml_error_line(exc)
    what = _POSITION.sub("", str(exc))
    where = f"{path}:{line}" if line else f"{path}"
    return f"{where}: not valid TOML: {what}"


_DIGITS = re.compile(r"[0-9][0-9_]*")


def _too_long_number(text: str) -> tomllib.TOMLDecodeError:
    """The error for a whole number with more digits than Python turns into an int (its
    int-from-text limit, 4300 by default, raises a bare ValueError inside `tomllib`),
    pointing at the first such number when it can be found."""
    limit = sys.get_int_max_str_digits()
    for found in _DIGITS.finditer(text):
        digits = len(found.group()) - found.group().count("_")
        if limit and digits > limit:
            start = found.start()
            line = text.count("\n", 0, start) + 1
            column = start - (text.rfind("\n", 0, start) + 1) + 1
            return tomllib.TOMLDecodeError(
                f"a number of {digits:,} digits; at most {limit:,} are read"
                f" (at line {line}, column {column})"
            )
    return tomllib.TOMLDecodeError(f"a number with more than {limit:,} digits; not read")


def loads_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with arrays or tables nested too deeply for the parser's recursion
    and whole numbers too long for Python's int (a hostile settings or entry file) raised
    as the `TOMLDecodeError` every reader already turns into one line, not as a
    RecursionError or a bare ValueError naming no file."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply to read") from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as exc:  # the int-from-text limit (no other ValueError escapes)
        if "integer string conversion" in str(exc):
            raise _too_long_number(text) from None
        raise tomllib.TOMLDecodeError(str(exc)) from None
