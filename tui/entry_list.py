"""Helpers of `Services` (tui/services.py) for its list of entries: keeping it sorted
and counted after a change, and reading the texts ahead of the pair keeper."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Sequence

from memdesk.core.entry import Entry

# Entries whose pairs the conflict screen's pass finds per hold of the pair keeper
# (≈ 50 ms of CPU at 10k entries without the model).
PAIR_SLICE = 128


def read_texts(entries: Sequence[Entry], cancelled: Callable[[], bool]) -> bool:
    """Tokenize the entries for the pair keeper ahead of its first pass (memoised by
    text), a slice at a time: the pass then holds the keeper for less, and quitting
    meanwhile stops here. False once `cancelled()`."""
    from memdesk.core.pairs import LIVE_STATUSES
    from memdesk.core.pairs.lexical import entry_token_counts

    for start in range(0, len(entries), 4 * PAIR_SLICE):
        for entry in entries[start : start + 4 * PAIR_SLICE]:
            if entry.status in LIVE_STATUSES:
                entry_token_counts(entry)
        if cancelled():
            return False
    return True


def take_out(ordered: list[Entry], entry: Entry | None) -> None:
    """Remove `entry` from a list sorted by arrival (found by bisection)."""
    if entry is not None:
        at = bisect.bisect_left(ordered, arrival(entry), key=arrival)
        if at < len(ordered) and ordered[at] is entry:
            del ordered[at]
        else:  # not where its key says (should not happen): look for it
            ordered[:] = [e for e in ordered if e is not entry]


def arrival(entry: Entry) -> tuple[dt.datetime, str]:
    return (entry.created, entry.id)


def tally_add(counts: dict[str, int], entry: Entry | None, today: dt.date, sign: int) -> None:
    """Count `entry` in (sign 1) or out (sign -1) of the header counts."""
    if entry is None:
        return
    counts["entries"] += sign
    if entry.status == "candidate":
        counts["candidates"] += sign
    if entry.status in ("candidate", "confirmed") and entry.is_past_valid_until(today):
        counts["due"] += sign
