"""Derived files made of a JSON header line and a payload the header's digest checks.

The kept context block (`context/block_cache.py`), the entry snapshot
(`storage/entry_snapshot.py`) and the kept guard verdicts (`guard_verdicts.py`) are all
written as:

    {"format": "...", <the writer's own fields>, "blake2b": "<digest of the payload>"}\\n
    <payload bytes>

`encode` makes those bytes; `decode` gives the header and the payload back only when the
header is a JSON object of the expected format and the payload is the one it was written
with (a truncated, damaged or hand-made file reads as nothing). What else the header
holds is the caller's to check.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from memdesk.core.jsonfile import loads

DIGEST = "blake2b"


def digest_of(payload: bytes) -> str:
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


def encode(header: dict[str, Any], payload: bytes) -> bytes:
    """The file's bytes: `header` (its `format` first) with the payload's digest added
    last, one line, then the payload."""
    full = {**header, DIGEST: digest_of(payload)}
    return json.dumps(full, ensure_ascii=False).encode("utf-8") + b"\n" + payload


def decode(raw: bytes, format: str) -> tuple[dict[str, Any], bytes] | None:
    """(header, payload) of a file `encode` wrote for `format`; None when it is not one."""
    head, sep, payload = raw.partition(b"\n")
    if not sep:
        return None
    try:
        header = loads(head, "file header")
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(header, dict)
        or header.get("format") != format
        or header.get(DIGEST) != digest_of(payload)
    ):
        return None
    return header, payload
