"""The search filters applied outside tantivy: time after retrieval, and status / kind /
scope as a mask over the rows of the vector matrix."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from memdesk.core.entry import Entry


def time_filter(
    entries: Mapping[str, Entry], since: dt.datetime | None, until: dt.datetime | None
) -> Callable[[str], bool]:
    """Whether an entry id was updated within [since, until]."""

    def ok(entry_id: str) -> bool:
        updated = entries[entry_id].updated
        if updated.tzinfo is None:  # hand-written files may omit the zone: UTC
            updated = updated.replace(tzinfo=dt.UTC)
        return (since is None or updated >= since) and (until is None or updated <= until)

    return ok


def row_mask(
    entries: Mapping[str, Entry], ids: Sequence[str], filters: Mapping[str, list[str]]
) -> np.ndarray | None:
    """True for the rows (`ids`) whose entry passes every non-empty filter; None when no
    filter is set."""
    active = {k: set(v) for k, v in filters.items() if v}
    if not active:
        return None
    return np.fromiter(
        (
            all(getattr(entries[i], k) in v for k, v in active.items()) if i in entries else False
            for i in ids
        ),
        dtype=bool,
        count=len(ids),
    )
