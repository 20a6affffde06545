"""One line for a TOML file that does not parse: the file, the line, what is wrong.

`tomllib` puts the position in the message ("... (at line 3, column 9)"); people read
`path:line: ...` best, the form compilers and linters use.
"""

from __future__ import annotations

import re
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


def loads_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with arrays or tables nested too deeply for the parser's recursion
    (a hostile settings or entry file) raised as the `TOMLDecodeError` every reader
    already turns into one line, not as a RecursionError."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply to read") from None
