"""A derived file of `digest -> small int` kept between runs of `memdesk context` (the
token counts, the weights): read only when its format and stamp match, written
atomically and privately, best effort. Both tables share this file format; what their
numbers mean and when they are stale is theirs to say."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path


def read_kept(
    path: Path, header: dict[str, object], table: str, valid: Callable[[int], bool]
) -> dict[str, int]:
    """The table named `table` of the file at `path`, or {} when the file is missing,
    damaged, of another format or stamp (`header`), or holds a value `valid` refuses."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if (
        not isinstance(data, dict)
        or any(data.get(key) != value for key, value in header.items())
        or not isinstance(data.get(table), dict)
    ):
        return {}
    kept: dict[str, int] = data[table]
    if not all(type(n) is int and valid(n) for n in kept.values()):
        return {}
    return kept


def write_kept(path: Path, header: dict[str, object], table: str, kept: dict[str, int]) -> bool:
    """Write the file (owner-only); False when it could not be written."""
    from memdesk.core.atomic import atomic_write_bytes

    data = {**header, table: kept}
    try:
        if not path.parent.is_dir():
            return False
        atomic_write_bytes(path, json.dumps(data).encode("utf-8"), durable=False)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
    except OSError:
        return False
    return True
