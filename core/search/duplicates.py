"""Duplicates and likely contradictions among entries, for the review queue.

- exact: same sha256 of the normalised summary (seed 000),
- near: cosine >= 0.95 (seed 001) with the same values; cross-lingual pairs count when
  the model maps both languages into one space,
- contradiction: same kind and scope, about the same thing (similar vectors and shared
  words) but each side names values the other does not ("use npm" vs "switched to
  pnpm"), with a change cue, a differing number/version, or very high similarity.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from memdesk.core.entry import Entry, linked
from memdesk.core.search.embedder import Embedder
from memdesk.core.search.settings import SearchSettings
from memdesk.core.search.tokenizer import ENGLISH_STOPWORDS, has_cjk, tokenize

DEFAULT_STATUSES: tuple[str, ...] = ("candidate", "confirmed")
_BLOCK = 1024
_CHANGE_CUES = re.compile(
    r"\b(?:switch(?:ed|es)?|instead|now|no longer|replac(?:e|ed|es)|moved? to|migrat\w*|"
    r"not|never|don'?t|stopp?ed|deprecated|rather than)\b|改用|换成|换到|不再|现在|改为|迁移|"
    r"弃用|不要|别用|而不是|取代",
    re.IGNORECASE,
)
_HAS_DIGIT = re.compile(r"\d")


@dataclass
class DuplicatePair:
    a: str  # entry id (older first)
    b: str
    type: str  # "exact" | "near" | "contradiction"
    score: float  # 1.0 for exact; cosine otherwise
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "type": self.type,
            "score": round(self.score, 4),
            "reason": self.reason,
        }


def _value_tokens(text: str) -> set[str]:
    """Words that carry the 'value' of a statement (tools, numbers, names), no CJK."""
    return {t for t in tokenize(text) if not has_cjk(t) and t not in ENGLISH_STOPWORDS}


def _as_written(stems: list[str], text: str) -> list[str]:
    """The words of `text` the stems came from ("decided", not "decid"): a reason a
    person reads quotes the entry, not the index."""
    surface: dict[str, str] = {}
    for word in _WORD.findall(text):
        for stem in tokenize(word):
            surface.setdefault(stem, word.lower())
    return [surface.get(stem, stem) for stem in stems]


_WORD = re.compile(r"[^\W_][\w.+#/-]*")


def classify_pair(
    a: Entry, b: Entry, similarity: float, settings: SearchSettings
) -> tuple[str, str] | None:
    """(type, reason) for a pair of entries with this cosine, or None."""
    if a.text_hash == b.text_hash:
        return "exact", "same normalised text"
    values_a, values_b = _value_tokens(a.search_text()), _value_tokens(b.search_text())
    only_a, only_b = values_a - values_b, values_b - values_a
    shared = values_a & values_b
    # About the same thing: a fair share of the shorter statement's words in common.
    same_subject = bool(shared) and len(shared) / min(len(values_a), len(values_b)) >= 0.3
    differs = bool(only_a and only_b) and same_subject
    same_slot = a.kind == b.kind and a.scope == b.scope
    if differs and same_slot and similarity >= settings.contradiction_similarity:
        # A change told on one side only ("switched to pnpm" vs "use npm").
        cue_a = bool(_CHANGE_CUES.search(a.search_text()))
        cue = cue_a != bool(_CHANGE_CUES.search(b.search_text()))
        # A number on each side that the other lacks ("port 8000" vs "port 8080").
        numbers = any(_HAS_DIGIT.search(t) for t in only_a) and any(
            _HAS_DIGIT.search(t) for t in only_b
        )
        if cue or numbers or similarity >= 0.8:
            why = "change wording" if cue else "different numbers" if numbers else "very similar"
            shown_a = _as_written(sorted(only_a)[:3], a.search_text())
            shown_b = _as_written(sorted(only_b)[:3], b.search_text())
            return (
                "contradiction",
                f"same {a.kind}/{a.scope}, different values "
                f"{shown_a} vs {shown_b} ({why}, similarity {similarity:.2f})",
            )
    if similarity >= settings.duplicate_similarity:
        return "near", f"similarity {similarity:.2f}"
    return None


def find_duplicates(
    entries: Sequence[Entry],
    embedder: Embedder | None = None,
    *,
    vectors: Mapping[str, np.ndarray] | None = None,
    settings: SearchSettings | None = None,
    statuses: Sequence[str] | None = DEFAULT_STATUSES,
    focus: Collection[str] | None = None,
) -> list[DuplicatePair]:
    """Pairs among `entries` (those with `statuses`; None = all), strongest first.

    Vectors come from `vectors` (e.g. the search cache) or are computed with `embedder`;
    without either only exact duplicates are found. `focus`: only pairs with at least
    one side among these ids (the same pairs as the full list restricted to them, but
    only the focused rows of the similarity matrix are computed).
    """
    settings = settings or SearchSettings(model="none")
    pool = [e for e in entries if statuses is None or e.status in statuses]
    focused = None if focus is None else set(focus)
    pairs: dict[tuple[str, str], DuplicatePair] = {}

    by_hash: dict[str, list[Entry]] = {}
    for entry in pool:
        by_hash.setdefault(entry.text_hash, []).append(entry)
    for group in by_hash.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if focused is None or a.id in focused or b.id in focused:
                    pairs[_key(a, b)] = _pair(a, b, "exact", 1.0, "same normalised text")

    if focused is not None and not any(e.id in focused for e in pool):
        return _ordered(pairs)
    matrix = _matrix(pool, embedder, vectors)
    if matrix is not None:
        threshold = min(settings.contradiction_similarity, settings.duplicate_similarity)
        rows = (
            list(range(len(pool)))
            if focused is None
            else [i for i, e in enumerate(pool) if e.id in focused]
        )
        for start in range(0, len(rows), _BLOCK):
            chunk = rows[start : start + _BLOCK]
            block = matrix[chunk] @ matrix.T
            hits_r, hits_c = np.nonzero(block >= threshold)
            for r, c in zip(hits_r.tolist(), hits_c.tolist(), strict=True):
                i = chunk[r]
                # Each unordered pair once, older index first as in the full pass; a
                # focused row also pairs with earlier rows outside the focus.
                if c == i or (c < i and (focused is None or pool[c].id in focused)):
                    continue
                a, b = (pool[i], pool[c]) if i < c else (pool[c], pool[i])
                if _key(a, b) in pairs or linked(a, b):
                    continue
                verdict = classify_pair(a, b, float(block[r, c]), settings)
                if verdict:
                    pairs[_key(a, b)] = _pair(a, b, verdict[0], float(block[r, c]), verdict[1])
    return _ordered(pairs)


def _ordered(pairs: Mapping[tuple[str, str], DuplicatePair]) -> list[DuplicatePair]:
    order = {"exact": 0, "contradiction": 1, "near": 2}
    return sorted(pairs.values(), key=lambda p: (order[p.type], -p.score, p.a, p.b))


def _matrix(
    pool: Sequence[Entry],
    embedder: Embedder | None,
    vectors: Mapping[str, np.ndarray] | None,
) -> np.ndarray | None:
    if len(pool) < 2:
        return None
    if vectors is not None and all(e.id in vectors for e in pool):
        stack = getattr(vectors, "stack", None)  # SearchService.vectors(): one bulk copy
        if callable(stack):
            return stack([e.id for e in pool])
        return np.stack([vectors[e.id] for e in pool]).astype(np.float32)
    if embedder is None:
        return None
    return embedder.embed([e.search_text() for e in pool])


def _key(a: Entry, b: Entry) -> tuple[str, str]:
    return (a.id, b.id) if a.id < b.id else (b.id, a.id)


def _pair(a: Entry, b: Entry, kind: str, score: float, reason: str) -> DuplicatePair:
    first, second = (a, b) if (a.created, a.id) <= (b.created, b.id) else (b, a)
    return DuplicatePair(first.id, second.id, kind, score, reason)
