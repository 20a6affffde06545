"""The records a commit is made of: planned operations, a batch of them, and the
`Change` subscribers hear about once it is committed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.entry import Entry, EntryError, Source, new_id
from memdesk.core.storage.errors import StoreError

# Bookkeeping every write changes: not part of what an entry says.
BOOKKEEPING = ("version", "updated", "last_access")


@dataclass
class Op:
    """One planned entry change: `before` and `after` (None: no such entry)."""

    op: str
    entry_id: str
    before: Entry | None
    after: Entry | None
    changes: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class Batch:
    """Operations collected by `EntryStore.batch()`, committed as one group; `overlay`
    is what readers inside the batch see."""

    actor: str
    label: str
    ops: list[Op] = field(default_factory=list)
    overlay: dict[str, Entry | None] = field(default_factory=dict)


@dataclass
class Change:
    """What one commit did; sent to subscribers (memory files, the search index, the
    desk). `ops` has each entry's before and after state, for subscribers that only
    care about some changes."""

    op: str
    ids: list[str]
    actor: str
    group: str
    ops: list[Op] = field(default_factory=list, repr=False)


def diff(before: Entry | None, after: Entry | None) -> dict[str, list[Any]]:
    """Field -> [before, after] for every field that changed (bookkeeping left out)."""
    b = before.to_json() if before else {}
    a = after.to_json() if after else {}
    return {
        k: [b.get(k), a.get(k)] for k in {*a, *b} if k not in BOOKKEEPING and b.get(k) != a.get(k)
    }


def content(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """An entry's content without bookkeeping that every write changes."""
    if data is None:
        return None
    return {k: v for k, v in data.items() if k not in BOOKKEEPING}


def no_nulls(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def applied(entry: Entry, changes: dict[str, Any]) -> Entry:
    """`entry` with `changes` (field -> new value) made; StoreError when invalid."""
    data = entry.to_json()
    for key, value in changes.items():
        if isinstance(value, Source):
            value = value.to_dict()
        elif isinstance(value, dt.date):
            value = value.isoformat()
        data[key] = value
    try:
        return Entry.from_dict(no_nulls(data))
    except EntryError as exc:
        raise StoreError(str(exc)) from exc


def fresh_id(taken: Callable[[str], bool]) -> str:
    """A new entry id `taken` says is free."""
    candidate = new_id()
    while taken(candidate):
        candidate = new_id()
    return candidate


def folded(source: Entry, target: Entry) -> dict[str, Any]:
    """The fields of `target` once `source` is folded into it: its summary and facts
    become facts, its tags and links join."""
    facts = [*target.facts]
    for fact in [source.summary, *source.facts]:
        if fact != target.summary and fact not in facts:
            facts.append(fact)
    tags = [*target.tags, *[t for t in source.tags if t not in target.tags]]
    related = [*target.related, *[r for r in source.related if r not in target.related]]
    return {"facts": facts, "tags": tags, "related": related}
