"""The desk's first look at a store: the review queue's rows and the header counts
without building every entry.

At 10k entries building every entry object from the snapshot takes about a second; the
queue shows the candidates (2% of them). `first_look` builds those and reads only the
status and expiry date of the others (`EntryFileCache.glance`); the full read follows
in the background. Every file is still stat'ed: a record is used only while its file is
unchanged, and a changed or unknown file is read as usual.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.storage.engine import EntryStore

# Statuses whose entries count as due once past their valid_until (see `Entry`).
DUE_STATUSES = ("candidate", "confirmed")


@dataclass
class FirstLook:
    candidates: list[Entry]  # oldest first (created, then id)
    counts: dict[str, int]  # "entries", "candidates", "due"
    marker_ids: set[str] = field(default_factory=set)  # entry files with conflict markers
    complete: bool = False  # every entry was built and is cached: a full read is cheap


def first_look(store: EntryStore, today: dt.date) -> FirstLook:
    """The candidates, the counts and the entry files holding conflict markers."""
    look = store.files.glance(("candidate",))
    counts = {"entries": 0, "candidates": 0, "due": 0}
    today_text = today.isoformat()  # ISO dates compare as text
    for status, valid_until in look.shape:
        counts["entries"] += 1
        if status == "candidate":
            counts["candidates"] += 1
        if status in DUE_STATUSES and valid_until is not None and valid_until < today_text:
            counts["due"] += 1
    return FirstLook(
        candidates=sorted(look.entries, key=lambda e: (e.created, e.id)),
        counts=counts,
        marker_ids={Path(p.path).stem for p in look.problems if p.kind == "conflict-markers"},
        complete=look.unread == 0,
    )
