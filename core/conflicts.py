"""Every open conflict in one list, and the ways to resolve each.

Four kinds of trouble need a person (design brief, "conflict resolution"):
- `concurrent-edit`: two writers changed the same entry (saved by the store's 3-way merge),
- `conflict-markers`: a `git pull` left `<<<<<<<` markers in an entry file,
- `contradiction`: two live entries about the same thing that say different things,
- `near-duplicate` / `exact-duplicate`: two live entries that say the same thing.

The first two come from `Store.open_conflicts()` and are resolved field by field
(ours / theirs / both / an edited value). Pairs come from the search service's duplicate
finder when it is there; without it (or without an embedding model) a lexical
similarity over the same Chinese/English tokens stands in, so the list is never empty
just because no model is installed. Pairs are resolved by keeping one and superseding
the other, merging one into the other, or dismissing the pair; dismissals are kept in
`.memdesk/dismissed.json` so a dismissed pair does not come back (unless either text
changes: then it is a new question).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import json
import math
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from memdesk.core.atomic import atomic_write_text
from memdesk.core.entry import Entry, linked, now
from memdesk.core.merge import Conflict, resolve
from memdesk.core.search.duplicates import DuplicatePair

FIELD_KINDS: tuple[str, ...] = ("concurrent-edit", "conflict-markers")
PAIR_KINDS: tuple[str, ...] = ("contradiction", "near-duplicate", "exact-duplicate")
KIND_LABELS: dict[str, str] = {
    "concurrent-edit": "edited twice",
    "conflict-markers": "git markers",
    "contradiction": "contradiction",
    "near-duplicate": "near-duplicate",
    "exact-duplicate": "duplicate",
}
_PAIR_KIND = {
    "exact": "exact-duplicate",
    "near": "near-duplicate",
    "contradiction": "contradiction",
}
LIVE_STATUSES: tuple[str, ...] = ("candidate", "confirmed")
# Fields holding one choice or one id: "both" cannot join them, so it keeps theirs.
SINGLE_VALUE_FIELDS = frozenset(
    {"kind", "scope", "status", "confidence", "superseded_by", "valid_until"}
)
DISMISSED_FILE = "dismissed.json"

# Lexical stand-in for embeddings (cosine of token counts): calibrated on the demo and
# the search dev set so that a reworded fact (same tools, same words) is a near-duplicate
# and "npm instead of pnpm" against "pnpm, not npm" is a contradiction candidate.
LEXICAL_DUPLICATE = 0.75
LEXICAL_CONTRADICTION = 0.45
# A token in more entries than this is too common to propose a pair (bounds the work).
PROPOSING_TOKEN_MAX_ENTRIES = 40


class ConflictError(ValueError):
    """A resolution that cannot be applied; the message says why, for a person."""


@dataclass
class Pair(DuplicatePair):
    """Two entries that contradict or duplicate each other (older first), and how the
    pair was found."""

    method: str = "semantic"  # "semantic" | "lexical" | "hash"

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "method": self.method}


@dataclass
class OpenConflict:
    """One row of the conflict screen."""

    kind: str  # one of FIELD_KINDS + PAIR_KINDS
    key: str  # stable identity (selection in a UI, dismissals)
    ids: list[str]
    title: str
    reason: str
    conflict: Conflict | None = None
    pair: Pair | None = None
    hashes: list[str] = field(default_factory=list)  # text hashes of a pair, for dismissals

    @property
    def is_pair(self) -> bool:
        return self.pair is not None

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "key": self.key,
            "ids": self.ids,
            "title": self.title,
            "reason": self.reason,
        }
        if self.conflict is not None:
            out["fields"] = self.conflict.field_names
            out["path"] = self.conflict.path
        if self.pair is not None:
            out["pair"] = self.pair.to_json()
        return out


# -- listing ---------------------------------------------------------------------------
def list_conflicts(
    store: Any,
    search: Any = None,
    *,
    include_pairs: bool = True,
    lock: AbstractContextManager[Any] | None = None,
) -> list[OpenConflict]:
    """Field conflicts first (they block a clean store), then contradictions, then
    duplicates; dismissed pairs are left out. `lock` is held while reading the store
    only, not while pairs are compared (that can take seconds at 10k entries)."""
    with lock if lock is not None else nullcontext():
        open_conflicts = store.open_conflicts()
        all_entries = store.entries() if include_pairs else []
    items: list[OpenConflict] = []
    for conflict in open_conflicts:
        side = conflict.theirs or conflict.ours or {}
        items.append(
            OpenConflict(
                kind=conflict.kind,
                key=f"{conflict.kind}:{conflict.entry_id}",
                ids=[conflict.entry_id],
                title=_one_line(side.get("summary", "")),
                reason=_field_reason(conflict),
                conflict=conflict,
            )
        )
    if not include_pairs:
        return items
    entries = {e.id: e for e in all_entries}
    dismissed = Dismissals(store.meta_dir)
    marked = {i.ids[0] for i in items}  # an entry in a field conflict waits for that first
    for pair in find_pairs(list(entries.values()), search):
        a, b = entries.get(pair.a), entries.get(pair.b)
        if a is None or b is None or a.id in marked or b.id in marked:
            continue
        key = pair_key(a.id, b.id)
        hashes = [a.text_hash, b.text_hash]
        if dismissed.contains(key, hashes):
            continue
        items.append(
            OpenConflict(
                kind=_PAIR_KIND[pair.type],
                key=key,
                ids=[a.id, b.id],
                title=_one_line(b.summary),
                reason=pair.reason,
                pair=pair,
                hashes=hashes,
            )
        )
    order = {k: i for i, k in enumerate((*FIELD_KINDS, *PAIR_KINDS))}
    items.sort(key=lambda i: (order.get(i.kind, 99), i.key))
    return items


def open_pairs(
    entries: Sequence[Entry],
    meta_dir: Path,
    search: Any = None,
    focus: set[str] | None = None,
) -> list[Pair]:
    """The pairs the conflict screen lists (dismissed ones left out): also what the
    review queue flags, so the two never disagree. `focus`: only pairs touching these
    ids (the queue needs the candidates' pairs, not all of them; `QueuePairs` keeps
    that list current between changes)."""
    by_id = {e.id: e for e in entries}
    dismissed = Dismissals(meta_dir)
    out: list[Pair] = []
    for pair in find_pairs(entries, search, focus=focus):
        a, b = by_id.get(pair.a), by_id.get(pair.b)
        if a is None or b is None:
            continue
        if dismissed.contains(pair_key(a.id, b.id), [a.text_hash, b.text_hash]):
            continue
        out.append(pair)
    return out


def find_pairs(
    entries: Sequence[Entry], search: Any = None, focus: set[str] | None = None
) -> list[Pair]:
    """Contradicting and duplicate pairs among live entries.

    The search service's finder (embeddings) when it is there, exact hashes otherwise;
    plus the lexical stand-in for pairs neither found."""
    live = [e for e in entries if e.status in LIVE_STATUSES]
    pairs = {_sorted_key(p.a, p.b): p for p in _finder_pairs(live, search, focus)}
    # Word overlap catches rewordings a model scores below its near-duplicate cut
    # (and everything when there is no model); the model's verdict wins where it has one.
    for p in lexical_pairs(live, focus=focus):
        pairs.setdefault(_sorted_key(p.a, p.b), p)
    return _ordered(pairs.values())


def _finder_pairs(live: Sequence[Entry], search: Any, focus: set[str] | None) -> list[Pair]:
    """The search service's pairs among `live` (exact hashes only without it, or when it
    fails); with `focus`, only those touching it."""
    from memdesk.core.search.duplicates import find_duplicates

    found: list[Any] = []
    if search is not None and getattr(search, "duplicates", None) is not None:
        try:
            found = list(_search_duplicates(search, live, focus))
        except Exception:  # a broken index must not hide the field conflicts
            found = []
    if not found:
        found = find_duplicates(live, focus=focus)  # no vectors: exact hashes only
    out = []
    for p in found:
        if focus is not None and p.a not in focus and p.b not in focus:
            continue
        method = "hash" if p.type == "exact" else "semantic"
        out.append(Pair(p.a, p.b, p.type, float(p.score), p.reason, method))
    return out


def _search_duplicates(search: Any, live: Sequence[Entry], focus: set[str] | None) -> Any:
    """`search.duplicates(live, focus=…)`; a finder without `focus` gets the whole list
    (the caller filters)."""
    if focus is not None:
        with contextlib.suppress(TypeError, ValueError):
            if "focus" in inspect.signature(search.duplicates).parameters:
                return search.duplicates(live, focus=focus)
    return search.duplicates(live)


def _ordered(pairs: Iterable[Pair]) -> list[Pair]:
    order = {"exact": 0, "contradiction": 1, "near": 2}
    return sorted(pairs, key=lambda p: (order[p.type], -p.score, p.a, p.b))


def lexical_pairs(entries: Sequence[Entry], focus: set[str] | None = None) -> list[Pair]:
    """Near-duplicates and likely contradictions by token overlap (no model needed);
    with `focus`, only pairs with at least one side in it."""
    vectors = {e.id: _token_counts(e) for e in entries}
    norms = {i: _norm(v) for i, v in vectors.items()}
    out: list[Pair] = []
    for a, b in _candidate_pairs(entries, vectors, focus):
        pair = _lexical_pair(a, b, vectors[a.id], vectors[b.id], norms[a.id] * norms[b.id])
        if pair is not None:
            out.append(pair)
    return out


def _lexical_pair(
    a: Entry, b: Entry, va: Counter[str], vb: Counter[str], norms: float
) -> Pair | None:
    """The lexical verdict on one proposed pair (`norms`: product of both vector norms)."""
    if a.text_hash == b.text_hash or linked(a, b):
        return None
    score = _dot(va, vb) / (norms or 1.0)
    if score < LEXICAL_CONTRADICTION:
        return None
    first, second = (a, b) if (a.created, a.id) <= (b.created, b.id) else (b, a)
    if score >= LEXICAL_DUPLICATE:
        return Pair(first.id, second.id, "near", score, f"word overlap {score:.2f}", "lexical")
    reason = lexical_contradiction(first, second)
    if not reason:
        return None
    return Pair(
        first.id,
        second.id,
        "contradiction",
        score,
        f"{reason}, word overlap {score:.2f}",
        "lexical",
    )


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
            if not dismissed.contains(pair_key(a.id, b.id), [a.text_hash, b.text_hash]):
                kept.append(pair)
        return _ordered(kept)

    def _reindex(
        self, changed: set[str], before: dict[str, Entry], now_by_id: dict[str, Entry]
    ) -> set[str]:
        """Move the changed entries in the indexes; returns the ids whose pairs must be
        found again."""
        cap = PROPOSING_TOKEN_MAX_ENTRIES
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
                vector = _token_counts(entry)
                self._vectors[entry_id] = vector
                self._norms[entry_id] = _norm(vector)
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
            for p in _finder_pairs(live, self._search, anchors):
                if p.a in other or p.b in other:
                    found[_sorted_key(p.a, p.b)] = p
        else:  # what find_duplicates gives without vectors: same text hash
            for x in anchors:
                a = now_by_id[x]
                for y in self._hashes[a.text_hash]:
                    if y != x and (x in other or y in other):
                        b = now_by_id[y]
                        first, second = (a, b) if (a.created, a.id) <= (b.created, b.id) else (b, a)
                        found[_sorted_key(x, y)] = Pair(
                            first.id, second.id, "exact", 1.0, "same normalised text", "hash"
                        )
        cap = PROPOSING_TOKEN_MAX_ENTRIES
        for x in anchors:
            partners: set[str] = set()
            for token in self._vectors[x]:
                ids = self._postings[token]
                if len(ids) <= cap:
                    partners |= ids
            partners.discard(x)
            a = now_by_id[x]
            for y in partners:
                key = _sorted_key(x, y)
                if key in found or (x not in other and y not in other):
                    continue
                b = now_by_id[y]
                pair = _lexical_pair(
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


def lexical_contradiction(a: Entry, b: Entry) -> str:
    """Why two similar entries likely contradict each other, or "" when they do not.

    Word overlap alone is weak evidence, so more is asked than of an embedding pair:
    the same kind and scope, about the same subject (≥ 30 % of the shorter one's value
    words shared), each side naming values the other does not, and a change cue on
    either side ("switched to", "not", "改用") or a differing number on each side."""
    from memdesk.core.search.duplicates import _CHANGE_CUES, _HAS_DIGIT, _value_tokens

    if a.kind != b.kind or a.scope != b.scope:
        return ""
    values_a, values_b = _value_tokens(a.search_text()), _value_tokens(b.search_text())
    shared = values_a & values_b
    only_a, only_b = values_a - values_b, values_b - values_a
    if not (shared and only_a and only_b):
        return ""
    if len(shared) / min(len(values_a), len(values_b)) < 0.3:
        return ""
    cue = bool(_CHANGE_CUES.search(a.search_text()) or _CHANGE_CUES.search(b.search_text()))
    numbers = any(_HAS_DIGIT.search(t) for t in only_a) and any(
        _HAS_DIGIT.search(t) for t in only_b
    )
    if not (cue or numbers):
        return ""
    why = "change wording" if cue else "different numbers"
    return (
        f"same {a.kind}/{a.scope}, different values "
        f"{sorted(only_a)[:3]} vs {sorted(only_b)[:3]} ({why})"
    )


def _candidate_pairs(
    entries: Sequence[Entry], vectors: dict[str, Counter[str]], focus: set[str] | None = None
) -> list[tuple[Entry, Entry]]:
    """Pairs sharing at least one uncommon token: an inverted index instead of comparing
    all n² pairs (10k entries stay well under a second). Tokens in more than
    PROPOSING_TOKEN_MAX_ENTRIES entries (common words, frequent Chinese characters) do
    not propose pairs; they still count in the similarity."""
    postings: dict[str, list[int]] = {}
    for index, entry in enumerate(entries):
        for token in vectors[entry.id]:
            postings.setdefault(token, []).append(index)
    cap = PROPOSING_TOKEN_MAX_ENTRIES
    seen: set[tuple[int, int]] = set()
    for indexes in postings.values():
        if len(indexes) > cap:
            continue
        if focus is None:
            seen.update(itertools.combinations(indexes, 2))
            continue
        focused = [i for i in indexes if entries[i].id in focus]
        for i in focused:
            seen.update((min(i, j), max(i, j)) for j in indexes if j != i)
    return [(entries[i], entries[j]) for i, j in sorted(seen)]


def _token_counts(entry: Entry) -> Counter[str]:
    return _text_token_counts(entry.search_text())


@functools.lru_cache(maxsize=1 << 15)
def _text_token_counts(text: str) -> Counter[str]:
    """Memoised: the queue recomputes its pairs after every change."""
    from memdesk.core.search.tokenizer import ENGLISH_STOPWORDS, tokenize

    return Counter(t for t in tokenize(text) if t not in ENGLISH_STOPWORDS)


def _norm(vector: Counter[str]) -> float:
    return math.sqrt(sum(n * n for n in vector.values()))


def _dot(a: Counter[str], b: Counter[str]) -> int:
    if len(b) < len(a):
        a, b = b, a
    return sum(n * b[t] for t, n in a.items() if t in b)


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    norm = math.sqrt(sum(n * n for n in a.values()) * sum(n * n for n in b.values()))
    return _dot(a, b) / norm if norm else 0.0


def _sorted_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def pair_key(a: str, b: str) -> str:
    x, y = _sorted_key(a, b)
    return f"pair:{x}:{y}"


def _one_line(text: str, width: int = 80) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _field_reason(conflict: Conflict) -> str:
    names = ", ".join(conflict.field_names) or "no field"
    if conflict.kind == "conflict-markers":
        return f"git conflict markers in {conflict.path}; differing: {names}"
    return f"changed on disk while being edited; conflicting: {names}"


# -- resolving field conflicts -----------------------------------------------------------
def resolve_fields(
    store: Any, item: OpenConflict, choices: dict[str, Any], actor: str = "user"
) -> Entry:
    """Apply per-field choices ("ours" / "theirs" / "both" / a value) and write the
    result atomically through the store; the conflict disappears from the list."""
    if item.conflict is None:
        raise ConflictError(f"{item.key} is not a field conflict")
    return store.resolve_conflict(item.conflict, resolve(item.conflict, choices), actor=actor)


def take_side(store: Any, item: OpenConflict, side: str, actor: str = "user") -> Entry:
    """Resolve every conflicting field the same way: "ours", "theirs" or "both"."""
    if side not in ("ours", "theirs", "both"):
        raise ConflictError(f"unknown side {side!r}; allowed: ours, theirs, both")
    if item.conflict is None:
        raise ConflictError(f"{item.key} is not a field conflict")
    return resolve_fields(store, item, side_choices(item.conflict, side), actor)


def side_choices(conflict: Conflict, side: str) -> dict[str, Any]:
    """The same side for every conflicting field ("both" keeps theirs where it cannot join)."""
    return {
        n: "theirs" if side == "both" and n in SINGLE_VALUE_FIELDS else side
        for n in conflict.field_names
    }


def merge_edit_text(conflict: Conflict, choices: dict[str, Any] | None = None) -> str:
    """The conflicting fields as TOML, prefilled with the merged values (`both` unless a
    choice says otherwise), for a person to edit into the final version."""
    resolved = resolve(conflict, side_choices(conflict, "both") | (choices or {}))
    table = {name: _tomlable(resolved.get(name)) for name in conflict.field_names}
    return tomli_w.dumps(table)


def parse_edit_text(conflict: Conflict, text: str) -> dict[str, Any]:
    """Choices for `resolve_fields` from the edited TOML; a missing field keeps "theirs"."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConflictError(f"the edited merge is not valid TOML: {exc}") from exc
    unknown = sorted(set(data) - set(conflict.field_names))
    if unknown:
        raise ConflictError(
            f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(conflict.field_names)}"
        )
    choices: dict[str, Any] = {}
    for name in conflict.field_names:
        if name in data:
            value = data[name]
            choices[name] = None if value == "" and name == "valid_until" else _jsonable(value)
    return choices


def _tomlable(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dict):
        return {k: _tomlable(v) for k, v in value.items() if v is not None}
    return value


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# -- resolving pairs ------------------------------------------------------------------------
def keep_one(store: Any, item: OpenConflict, keep_id: str, actor: str = "user") -> Entry:
    """Keep `keep_id` and supersede the other entry of the pair with it."""
    other = _other(item, keep_id)
    _, kept = store.supersede(other, keep_id, actor=actor)
    return kept


def merge_pair(store: Any, item: OpenConflict, into_id: str, actor: str = "user") -> Entry:
    """Fold the other entry of the pair into `into_id` (its text becomes a fact)."""
    return store.merge_into(_other(item, into_id), into_id, actor=actor)


def dismiss(store: Any, item: OpenConflict) -> None:
    """Not a problem: remember it so the pair stays out of the list."""
    if item.pair is None:
        raise ConflictError("only contradictions and duplicates can be dismissed")
    Dismissals(store.meta_dir).add(item.key, item.hashes, item.kind)


def _other(item: OpenConflict, chosen: str) -> str:
    if item.pair is None or chosen not in item.ids:
        raise ConflictError(f"{chosen} is not one of {', '.join(item.ids)}")
    return item.ids[1] if item.ids[0] == chosen else item.ids[0]


class Dismissals:
    """`.memdesk/dismissed.json`: pairs a person said are fine, with the texts they saw."""

    def __init__(self, meta_dir: Path) -> None:
        self.path = Path(meta_dir) / DISMISSED_FILE
        self._loaded: dict[str, dict[str, Any]] | None = None

    def load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
            pairs = data.get("pairs", {})
            return pairs if isinstance(pairs, dict) else {}
        except (OSError, ValueError, AttributeError):
            return {}

    def contains(self, key: str, hashes: Sequence[str]) -> bool:
        """Read once per instance: a listing asks for every pair it found."""
        if self._loaded is None:
            self._loaded = self.load()
        record = self._loaded.get(key)
        return bool(record) and sorted(record.get("hashes", [])) == sorted(hashes)

    def add(self, key: str, hashes: Sequence[str], kind: str) -> None:
        pairs = self.load()
        pairs[key] = {"hashes": list(hashes), "kind": kind, "time": now().isoformat()}
        text = json.dumps({"pairs": pairs}, ensure_ascii=False, indent=1, sort_keys=True)
        atomic_write_text(self.path, text + "\n")
        self._loaded = None
