"""Reading JSON from disk or stdin: one helper, so bad JSON is one line naming where.

`json.loads` raises more than `JSONDecodeError`: a value nested a few thousand deep
raises `RecursionError`, and an integer of more than 4,300 digits a bare `ValueError`.
Both went out as "unexpected ..." crashes. Here each becomes `BadJSON`, a `StoreError`
(one clear line) that is also a `ValueError`, so a reader that sets a damaged file
aside on `ValueError` keeps doing so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memdesk.core import plain_file
from memdesk.core.storage.errors import StoreError

# State files (pending batch, conflicts, MEMORY.md's state, manifests) are small; an
# export read back by `import` is the largest JSON memdesk reads.
MAX_JSON = 256 << 20


class BadJSON(StoreError, ValueError):
    """JSON that cannot be read; the message names where (file, and line when known)."""

    def __init__(self, source: str, reason: str, line: int | None = None) -> None:
        self.source = source
        self.reason = reason
        self.line = line
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {reason}")


# What `json.loads` raises on bad input: a hot loop that calls it directly catches these
# and words the failure with `reason`.
JSON_ERRORS = (ValueError, RecursionError)


def reason(exc: BaseException) -> str:
    """Why JSON could not be read, in a few words (no file: the caller names it)."""
    if isinstance(exc, BadJSON):
        return exc.reason
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed JSON: {exc.msg}"
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to read"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    # An integer past Python's digit limit, and the like.
    return "cannot read a JSON value: " + (str(exc).split(";")[0].strip() or type(exc).__name__)


def loads(text: str | bytes, source: str) -> Any:
    """`json.loads(text)`, with any failure as `BadJSON` naming `source` (and the line)."""
    try:
        return json.loads(text)
    except JSON_ERRORS as exc:
        line = exc.lineno if isinstance(exc, json.JSONDecodeError) else None
        raise BadJSON(source, reason(exc), line) from None


def read_json(path: Path, limit: int = MAX_JSON) -> Any:
    """The JSON value in the file at `path` (UTF-8, a plain file of at most `limit`
    bytes); `BadJSON` names the file. OSError (missing, unreadable, a FIFO or device,
    too large: `plain_file.NotPlainFile`) passes through for the caller to judge."""
    try:
        text = plain_file.read_text(path, limit)
    except UnicodeDecodeError as exc:
        raise BadJSON(str(path), f"not UTF-8 text (byte {exc.start})") from None
    return loads(text, str(path))
