"""The desk's pairs, kept current between changes (see QueuePairs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry
from memdesk.core.pairs import lexical
from memdesk.core.pairs.dismissals import Dismissals
from memdesk.core.pairs.features import norm
from memdesk.core.pairs.find import LIVE_STATUSES, finder_pairs
from memdesk.core.pairs.lexical import entry_token_counts, lexical_pair
from memdesk.core.pairs.pair import Pair, make_pair, ordered, sorted_key


class QueuePairs:
    """`open_pairs(entries, meta_dir, search)`, kept current: the queue's pairs (those
    touching a candidate, `pairs`) and the conflict screen's (all of them, `all_pairs`).

    The desk asks after every change. At 10k entries a full pass costs seconds (a verdict
    for every pair sharing an uncommon word; a 10k × 10k similarity product with the
    model), the candidates' pairs alone ≈ a second, while a change touches one entry or a
    few. So the pairs are kept, and only those touching an entry that changed since the
    last call are found again. Which entries' pairs are known is kept too (`covered`):
    the queue needs only the candidates', the conflict screen every live entry's, and
    a caller in a background worker can extend the covered set a slice at a time
    (`update`, then `cover(limit=...)` until it returns 0) without holding a lock for
    the whole pass.

    A pair between two unchanged entries can still change when a token they share
    crosses PROPOSING_TOKEN_MAX_ENTRIES (it stops or starts proposing pairs): the
    entries holding such a token count as changed too. A new `search` object (the model
    finished loading) starts over. Dismissals are read on each listing.

    Entries are matched by identity first (the desk's cache hands out the same object
    until a file changes), then by the fields a pair depends on. With `search`, call it
    after the search has indexed the changed entries (its vectors are read for them).
    Not thread-safe: the caller serialises calls.
    """

    def __init__(self, meta_dir: Path) -> None:
        self.meta_dir = Path(meta_dir)
        self._reset(None)
        self.last_dirty = 0  # entries looked at again by the last update (benches, tests)
        self.seen: Sequence[Entry] | None = None  # the entries of the last update

    def _reset(self, search: Any) -> None:
        self._search: Any = search
        self._entries: dict[str, Entry] | None = None  # as of the last call
        # Of the live entries: token counts, their norms, token -> ids, hash -> ids.
        self._vectors: dict[str, Counter[str]] = {}
        self._norms: dict[str, float] = {}
        self._postings: dict[str, set[str]] = {}
        self._hashes: dict[str, set[str]] = {}
        self._candidates: set[str] = set()
        # Invariant: `_pairs` holds every pair (dismissed or not) touching a covered id.
        self._covered: set[str] = set()
        self._pairs: dict[tuple[str, str], Pair] = {}
        # id -> keys of the kept pairs touching it: a change or the queue's listing
        # reads the pairs of a few entries, not all of them (10k at 10k entries).
        self._touching: dict[str, set[tuple[str, str]]] = {}
        # Live ids the search had no vector for when last indexed here: their pairs
        # from the model are found once the vector is there (see `update`).
        self._unvectored: set[str] = set()

    # -- listings --------------------------------------------------------------------
    def pairs(self, entries: Sequence[Entry], search: Any = None) -> list[Pair]:
        """The queue's pairs: those touching a candidate, dismissed ones left out."""
        self.update(entries, search)
        self.cover(self._candidates)
        return self._listing(self._candidates)

    def all_pairs(self, entries: Sequence[Entry], search: Any = None) -> list[Pair]:
        """Every open pair among the live entries (what the conflict screen lists)."""
        self.update(entries, search)
        self.cover()
        return self._listing(None)

    def known_pairs(self, candidates_only: bool = False) -> list[Pair]:
        """The pairs found so far, without looking for more (dismissed ones left out):
        all of them once `cover()` returned 0 after the last `update`; with
        `candidates_only`, those touching a candidate (the queue's, once
        `cover(self.candidates)` returned 0)."""
        return self._listing(self._candidates if candidates_only else None)

    @property
    def candidates(self) -> frozenset[str]:
        """The candidates among the entries of the last `update`."""
        return frozenset(self._candidates)

    # -- keeping current -------------------------------------------------------------
    def update(
        self,
        entries: Sequence[Entry],
        search: Any = None,
        changes: Mapping[str, Entry | None] | None = None,
    ) -> None:
        """Take in what changed since the last call: the pairs touching a changed entry
        are found again (among the covered ones), nothing else is. `changes`: what the
        caller knows changed since the `entries` of the last call (id -> the entry now,
        None when gone), every other entry being the same object as then; the 10k
        entries are then not compared one by one."""
        if self._entries is None or search is not self._search:
            self._reset(search)
            changes = None
        before = self._entries if self._entries is not None else {}
        now_by_id = _applied(before, changes, len(entries))
        if now_by_id is not None and changes is not None:
            candidates: Iterable[Entry] = (e for e in changes.values() if e is not None)
        else:
            now_by_id = {e.id: e for e in entries}
            candidates = entries
        changed = {
            e.id
            for e in candidates
            if (old := before.get(e.id)) is not e
            and (old is None or _pair_fields(old) != _pair_fields(e))
        }
        added = sum(1 for i in changed if i not in before)
        if len(before) + added != len(now_by_id):  # something went away
            changed |= before.keys() - now_by_id.keys()
        self.seen = entries
        if self._unvectored:
            # An entry indexed before the search had its vector (ingested while the
            # model was embedding): it counts as changed once the vector is there.
            has = _vector_test(search)
            changed |= {i for i in self._unvectored if i in now_by_id and has(i)}
        dirty = self._reindex(changed, before, now_by_id)
        self._entries = now_by_id
        self.last_dirty = len(dirty)
        if not dirty:
            return
        for entry_id in dirty:
            for key in self._touching.pop(entry_id, ()):
                if self._pairs.pop(key, None) is not None:
                    other = key[1] if key[0] == entry_id else key[0]
                    self._touching.get(other, set()).discard(key)
        self._covered -= dirty
        self._covered &= self._vectors.keys()
        if self._covered:
            # A covered entry's pairs with a changed one were dropped: find them again.
            self._find(dirty & self._vectors.keys(), partners=self._covered, skip=set())

    def cover(self, ids: Collection[str] | None = None, limit: int | None = None) -> int:
        """Find the pairs of the live entries among `ids` (all live ones when None)
        whose pairs are not known yet, at most `limit` of them in this call; returns how
        many are left."""
        pool = self._vectors.keys() if ids is None else ids
        wanted = [i for i in pool if i in self._vectors and i not in self._covered]
        if not wanted:
            return 0
        wanted.sort()  # a slice at a time, in a stable order
        now = set(wanted if limit is None else wanted[:limit])
        self._find(now, partners=None, skip=self._covered)
        self._covered |= now
        return len(wanted) - len(now)

    def _listing(self, focus: set[str] | None) -> list[Pair]:
        assert self._entries is not None or not self._pairs
        now_by_id = self._entries or {}
        if focus is None:
            found: Iterable[Pair] = self._pairs.values()
        else:
            keys = set().union(*(self._touching.get(i, ()) for i in focus))
            found = (self._pairs[k] for k in keys)
        dismissed = Dismissals(self.meta_dir)
        kept = [p for p in found if not dismissed.contains_pair(now_by_id[p.a], now_by_id[p.b])]
        return ordered(kept)

    def _reindex(
        self, changed: set[str], before: dict[str, Entry], now_by_id: dict[str, Entry]
    ) -> set[str]:
        """Move the changed entries in the indexes; returns the ids whose pairs must be
        found again."""
        cap = lexical.PROPOSING_TOKEN_MAX_ENTRIES
        crossed: set[str] = set()
        has_vector = _vector_test(self._search)

        def move(entry_id: str, tokens: Iterable[str], add: bool) -> None:
            for token in tokens:
                ids = self._postings.setdefault(token, set())
                was_proposing = len(ids) <= cap
                if add:
                    ids.add(entry_id)
                else:
                    ids.discard(entry_id)
                if (len(ids) <= cap) != was_proposing:
                    crossed.add(token)
                if not ids:
                    del self._postings[token]

        for entry_id in changed:
            old_vector = self._vectors.pop(entry_id, None)
            if old_vector is not None:
                self._norms.pop(entry_id, None)
                move(entry_id, old_vector, add=False)
                old_hash = before[entry_id].text_hash
                self._hashes[old_hash].discard(entry_id)
                if not self._hashes[old_hash]:
                    del self._hashes[old_hash]
            self._candidates.discard(entry_id)
            self._unvectored.discard(entry_id)
            entry = now_by_id.get(entry_id)
            if entry is not None and entry.status in LIVE_STATUSES:
                if self._search is not None and not has_vector(entry_id):
                    self._unvectored.add(entry_id)
                vector = entry_token_counts(entry)
                self._vectors[entry_id] = vector
                self._norms[entry_id] = norm(vector)
                move(entry_id, vector, add=True)
                self._hashes.setdefault(entry.text_hash, set()).add(entry_id)
                if entry.status == "candidate":
                    self._candidates.add(entry_id)
        dirty = set(changed)
        for token in crossed:
            dirty |= self._postings.get(token, set())
        return dirty

    def _find(self, anchors: set[str], partners: set[str] | None, skip: set[str]) -> None:
        """Add the pairs of `anchors` (live ids) with the entries in `partners` (any live
        entry when None), leaving out partners in `skip` (their pairs are known)."""
        if not anchors or (partners is not None and not partners):
            return
        now_by_id = self._entries
        assert now_by_id is not None

        def wanted(y: str) -> bool:
            return y not in skip and (partners is None or y in partners)

        found: dict[tuple[str, str], Pair] = {}
        if self._search is not None:
            # In the caller's order: a finder's verdict reads its pair in pool order.
            live = [e for e in now_by_id.values() if e.id in self._vectors]
            for p in finder_pairs(live, self._search, anchors):
                other = p.b if p.a in anchors else p.a
                if wanted(other):
                    found[sorted_key(p.a, p.b)] = p
        else:  # what find_duplicates gives without vectors: same text hash
            for x in anchors:
                a = now_by_id[x]
                for y in self._hashes[a.text_hash]:
                    if y != x and wanted(y):
                        found[sorted_key(x, y)] = make_pair(
                            a, now_by_id[y], "exact", 1.0, "same normalised text", "hash"
                        )
        cap = lexical.PROPOSING_TOKEN_MAX_ENTRIES
        for x in anchors:
            proposed: set[str] = set()
            for token in self._vectors[x]:
                ids = self._postings[token]
                if len(ids) <= cap:
                    proposed |= ids
            proposed.discard(x)
            a = now_by_id[x]
            for y in proposed:
                key = sorted_key(x, y)
                if key in found or not wanted(y):
                    continue
                b = now_by_id[y]
                pair = lexical_pair(
                    a, b, self._vectors[x], self._vectors[y], self._norms[x] * self._norms[y]
                )
                if pair is not None:
                    found[key] = pair
        self._pairs.update(found)
        for key in found:
            self._touching.setdefault(key[0], set()).add(key)
            self._touching.setdefault(key[1], set()).add(key)


def _applied(
    before: dict[str, Entry], changes: Mapping[str, Entry | None] | None, size: int
) -> dict[str, Entry] | None:
    """`before` with `changes` applied, or None when that cannot be the listing of
    `size` entries (the caller then compares them all)."""
    if changes is None or not before:
        return None
    now_by_id = dict(before)
    for entry_id, entry in changes.items():
        if entry is None:
            now_by_id.pop(entry_id, None)
        else:
            now_by_id[entry_id] = entry
    return now_by_id if len(now_by_id) == size else None


def _vector_test(search: Any) -> Callable[[str], bool]:
    """Whether `search` has an entry's vector (its `vectors()` mapping); a search that
    does not say is taken to have every vector."""
    vectors = getattr(search, "vectors", None)
    if search is None or not callable(vectors):
        return lambda _entry_id: True
    try:
        held = vectors()
    except Exception:  # a broken index: the pairs come from word overlap anyway
        return lambda _entry_id: True
    return held.__contains__


def _pair_fields(entry: Entry) -> tuple[Any, ...]:
    """What a pair verdict reads of an entry (text, slot, status, age, links)."""
    return (
        entry.summary,
        tuple(entry.facts),
        entry.status,
        entry.kind,
        entry.scope,
        entry.created,
        entry.superseded_by,
        tuple(entry.supersedes),
    )
