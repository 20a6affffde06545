"""Assembly cache (seed 001 `ContextCache`): TTL plus invalidation by tag.

Keys hold every input that changes the result (purpose, query, budget, unit, format,
scopes, candidates switch, day, store version). Tags are the ids of every entry the
assembly looked at (included or excluded), so a change to any of them drops it, even
when the caller's store version did not move.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.context.assembler import Assembly, assemble
from memdesk.core.context.settings import context_settings
from memdesk.core.entry import Entry


@dataclass
class _Cached:
    value: Assembly
    stored_at: float
    tags: frozenset[str] = field(default_factory=frozenset)


def entries_version(entries: Sequence[Entry]) -> int:
    """A cheap fingerprint of a list of entries: changes when any id or version does."""
    return hash(tuple((e.id, e.version) for e in entries))


class ContextCache:
    def __init__(self, ttl_seconds: float = 300.0, clock: Callable[[], float] = time.monotonic):
        self.ttl = ttl_seconds
        self._clock = clock
        self._items: dict[Hashable, _Cached] = {}
        self._by_tag: dict[str, set[Hashable]] = {}
        self.hits = 0
        self.misses = 0
        # Bumped by every invalidation: part of the version `assemble` memoises its entry
        # screening under, so a tag invalidation also refreshes that memo.
        self._epoch = 0

    @classmethod
    def from_settings(cls, settings: Any = None) -> ContextCache:
        """TTL from `context.cache_ttl_seconds`."""
        return cls(ttl_seconds=context_settings(settings).cache_ttl_seconds)

    def attach(self, store: Any) -> Callable[[], None]:
        """Drop cached assemblies that touched an entry whenever the Store commits a
        change to it (`Store.subscribe`); returns the unsubscribe function."""
        return store.subscribe(lambda change: self.invalidate_tags(change.ids))

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> Assembly | None:
        item = self._items.get(key)
        if item is None:
            return None
        if self._clock() - item.stored_at >= self.ttl:
            self._drop(key)
            return None
        return item.value

    def set(self, key: Hashable, value: Assembly, tags: Iterable[str] = ()) -> None:
        self._drop(key)
        item = _Cached(value, self._clock(), frozenset(tags))
        self._items[key] = item
        for tag in item.tags:
            self._by_tag.setdefault(tag, set()).add(key)

    def invalidate_by_tag(self, tag: str) -> int:
        self._epoch += 1
        keys = self._by_tag.pop(tag, set())
        for key in keys:
            self._drop(key)
        return len(keys)

    def invalidate_tags(self, tags: Iterable[str]) -> int:
        """Drop every assembly that touched any of `tags` (Store change callback: ids)."""
        return sum(self.invalidate_by_tag(t) for t in tags)

    def clear(self) -> None:
        self._epoch += 1
        self._items.clear()
        self._by_tag.clear()

    def _drop(self, key: Hashable) -> None:
        item = self._items.pop(key, None)
        if item is None:
            return
        for tag in item.tags:
            keys = self._by_tag.get(tag)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_tag[tag]

    # -- the usual way in -----------------------------------------------------------
    def assemble(
        self,
        entries: Sequence[Entry],
        *,
        store_version: Hashable | None = None,
        settings: Any = None,
        **options: Any,
    ) -> Assembly:
        """`assemble(...)` through the cache. `store_version` defaults to a fingerprint
        of `entries`; pass the store's own counter when there is one (cheaper)."""
        cs = context_settings(settings)
        version = entries_version(entries) if store_version is None else store_version
        scopes = options.get("scopes")
        key = (
            options.get("purpose") or cs.purpose,
            (options.get("query") or "").strip(),
            cs.budget if options.get("budget") is None else options["budget"],
            options.get("unit") or cs.unit,
            options.get("format") or cs.format,
            tuple(sorted(scopes)) if scopes else (),
            options.get("include_candidates"),
            options.get("metadata"),
            options.get("today") or dt.date.today(),
            id(options.get("search")) if options.get("search") else None,
            repr(cs),
            version,
        )
        found = self.get(key)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        result = assemble(entries, settings=cs, store_version=(version, self._epoch), **options)
        touched = [i.entry_id for i in result.included] + [e.entry_id for e in result.excluded]
        self.set(key, result, touched)
        return result
