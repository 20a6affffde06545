"""The review queue's pairs, kept current between changes (see QueuePairs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
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
    """`open_pairs(entries, meta_dir, search, focus=<the candidates>)`, kept current.

    The review queue asks after every change. At 10k entries a full pass costs ≈ 50 ms
    without a model (token vectors and postings of every entry) and a 10k × 10k
    similarity product with one, while a change touches one entry or a few. So the
    pairs are kept, and only those touching an entry that changed since the last call
    are found again. A pair between two unchanged entries can still change when a token
    they share crosses PROPOSING_TOKEN_MAX_ENTRIES (it stops or starts proposing
    pairs): the entries holding such a token count as changed too. A new `search`
    object (the model finished loading) starts over. Dismissals are read on each call.

    Entries are matched by identity first (the desk's cache hands out the same object
    until a file changes), then by the fields a pair depends on. With `search`, call it
    after the search has indexed the changed entries (its vectors are read for them).
    Not thread-safe: the caller serialises calls.
    """

    def __init__(self, meta_dir: Path) -> None:
        self.meta_dir = Path(meta_dir)
        self._search: Any = None
        self._entries: dict[str, Entry] | None = None  # as of the last call
        # Of the live entries: token counts, their norms, token -> ids, hash -> ids.
        self._vectors: dict[str, Counter[str]] = {}
        self._norms: dict[str, float] = {}
        self._postings: dict[str, set[str]] = {}
        self._hashes: dict[str, set[str]] = {}
        self._candidates: set[str] = set()
        self._pairs: dict[tuple[str, str], Pair] = {}  # touching a candidate, undismissed or not
        self.last_dirty = 0  # entries looked at again by the last call (for benches/tests)

    def pairs(self, entries: Sequence[Entry], search: Any = None) -> list[Pair]:
        if self._entries is None or search is not self._search:
            self._search = search
            self._entries, self._vectors, self._norms = {}, {}, {}
            self._postings, self._hashes, self._candidates, self._pairs = {}, {}, set(), {}
        before = self._entries
        now_by_id = {e.id: e for e in entries}
        changed = {
            e.id
            for e in entries
            if (old := before.get(e.id)) is not e
            and (old is None or _pair_fields(old) != _pair_fields(e))
        }
        added = sum(1 for i in changed if i not in before)
        if len(before) + added != len(now_by_id):  # something went away
            changed |= before.keys() - now_by_id.keys()
        dirty = self._reindex(changed, before, now_by_id)
        self._entries = now_by_id
        self.last_dirty = len(dirty)
        if dirty:
            self._pairs = {
                k: p for k, p in self._pairs.items() if k[0] not in dirty and k[1] not in dirty
            }
            self._find(dirty, now_by_id)
        dismissed = Dismissals(self.meta_dir)
        kept = []
        for pair in self._pairs.values():
            a, b = now_by_id[pair.a], now_by_id[pair.b]
            if not dismissed.contains_pair(a, b):
                kept.append(pair)
        return ordered(kept)

    def _reindex(
        self, changed: set[str], before: dict[str, Entry], now_by_id: dict[str, Entry]
    ) -> set[str]:
        """Move the changed entries in the indexes; returns the ids whose pairs must be
        found again."""
        cap = lexical.PROPOSING_TOKEN_MAX_ENTRIES
        crossed: set[str] = set()

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
            entry = now_by_id.get(entry_id)
            if entry is not None and entry.status in LIVE_STATUSES:
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

    def _find(self, dirty: set[str], now_by_id: dict[str, Entry]) -> None:
        """Add the pairs touching `dirty` (and a candidate) to the kept ones."""
        dirty_live = {i for i in dirty if i in self._vectors}
        focus = self._candidates
        if not dirty_live or not focus:
            return
        # Walk from the smaller side; a pair must touch both a changed entry and a
        # candidate (the focus of the queue).
        if len(dirty_live) <= len(focus):
            anchors, other = dirty_live, focus
        else:
            anchors, other = focus, dirty_live
        found: dict[tuple[str, str], Pair] = {}
        if self._search is not None:
            # In the caller's order: a finder's verdict reads its pair in pool order.
            live = [e for e in now_by_id.values() if e.id in self._vectors]
            for p in finder_pairs(live, self._search, anchors):
                if p.a in other or p.b in other:
                    found[sorted_key(p.a, p.b)] = p
        else:  # what find_duplicates gives without vectors: same text hash
            for x in anchors:
                a = now_by_id[x]
                for y in self._hashes[a.text_hash]:
                    if y != x and (x in other or y in other):
                        b = now_by_id[y]
                        found[sorted_key(x, y)] = make_pair(
                            a, b, "exact", 1.0, "same normalised text", "hash"
                        )
        cap = lexical.PROPOSING_TOKEN_MAX_ENTRIES
        for x in anchors:
            partners: set[str] = set()
            for token in self._vectors[x]:
                ids = self._postings[token]
                if len(ids) <= cap:
                    partners |= ids
            partners.discard(x)
            a = now_by_id[x]
            for y in partners:
                key = sorted_key(x, y)
                if key in found or (x not in other and y not in other):
                    continue
                b = now_by_id[y]
                pair = lexical_pair(
                    a, b, self._vectors[x], self._vectors[y], self._norms[x] * self._norms[y]
                )
                if pair is not None:
                    found[key] = pair
        self._pairs.update(found)


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
