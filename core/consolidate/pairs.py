"""Pairs of entries worth a proposal, from one similarity matrix, at store scale.

The classification follows the search package's `classify_pair` (exact / near /
contradiction) with two consolidation-specific differences:
- a "rephrased" class: same kind and scope, similar, no change wording, no differing
  number, and a rare value in common -> the same fact said twice (merge);
- no contradiction from similarity alone: it needs change wording ("now", "switched to",
  改为...) or a differing number, because superseding hides the older entry.

Both need a rare value in common (one that at most max(5, n/200) entries mention): it
is what makes two statements about the same thing rather than two facts written alike
("The A server listens on port 1" / "The B server now listens on port 2").

Per-entry features are computed once; near duplicates come from the matrix thresholded
block by block, contradiction/rephrase candidates from the postings of rare values, so
10k entries stay in seconds (`classify_pair` re-tokenises both texts for every pair).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from memdesk.core.entry import Entry, linked
from memdesk.core.search.duplicates import (
    _CHANGE_CUES,
    _HAS_DIGIT,
    DuplicatePair,
    _pair,
    _value_tokens,
)

_BLOCK = 1024


@dataclass(frozen=True)
class PairThresholds:
    duplicate: float = 0.95
    contradiction: float = 0.4
    rephrase: float = 0.7
    number_contradiction: float = 0.5


def find_pairs(
    pool: Sequence[Entry],
    matrix: np.ndarray | None,
    thresholds: PairThresholds,
    near_candidates: set[tuple[int, int]] | None = None,
) -> list[DuplicatePair]:
    """exact / near / contradiction pairs among `pool` (rows of `matrix`), older first.

    `near_candidates` (index pairs i < j) replaces the all-pairs search for near
    duplicates: the lexical path knows which pairs can be near (they share rare
    features), a model's vectors do not, so they get the dense block search.
    """
    pairs: dict[tuple[int, int], DuplicatePair] = {}
    by_hash: dict[str, list[int]] = {}
    for i, entry in enumerate(pool):
        by_hash.setdefault(entry.text_hash, []).append(i)
    for group in by_hash.values():
        for x, i in enumerate(group):
            for j in group[x + 1 :]:
                pairs[(i, j)] = _pair(pool[i], pool[j], "exact", 1.0, "same normalised text")
    if matrix is None or len(pool) < 2:
        return _ordered(pairs.values())

    values = [_value_tokens(e.search_text()) for e in pool]
    cue = [bool(_CHANGE_CUES.search(e.search_text())) for e in pool]
    postings: dict[str, list[int]] = {}
    for i, tokens in enumerate(values):
        for token in tokens:
            if not _CHANGE_CUES.fullmatch(token):  # "now", "not": wording, not a value
                postings.setdefault(token, []).append(i)
    rare = max(5, len(pool) // 200)

    # Near duplicates may cross kinds: every pair above the (high) threshold.
    for start in range(0, len(pool) if near_candidates is None else 0, _BLOCK):
        block = matrix[start : start + _BLOCK] @ matrix.T
        for r, j in zip(*np.nonzero(block >= thresholds.duplicate), strict=True):
            i, j = start + int(r), int(j)
            if i < j and (i, j) not in pairs and not linked(pool[i], pool[j]):
                score = float(block[r, j])
                pairs[(i, j)] = _pair(pool[i], pool[j], "near", score, f"similarity {score:.2f}")

    # Contradictions and rephrasings are about the same thing: they share a value few
    # entries mention (a tool, a service, a command). Candidates come from those
    # values' postings, so the work grows with the pairs that matter, not with n^2.
    about_same: set[tuple[int, int]] = set()
    for ids in postings.values():
        if 2 <= len(ids) <= rare:
            for x, i in enumerate(ids):
                for j in ids[x + 1 :]:
                    if (i, j) not in pairs:
                        about_same.add((i, j))
    candidates = about_same | {c for c in near_candidates or () if c not in pairs}
    if not candidates:
        return _ordered(pairs.values())
    ordered = sorted(candidates)
    left = np.array([i for i, _ in ordered])
    right = np.array([j for _, j in ordered])
    scores = np.einsum("ij,ij->i", matrix[left], matrix[right])
    low = min(thresholds.contradiction, thresholds.rephrase, thresholds.number_contradiction)
    for (i, j), score in zip(ordered, scores.tolist(), strict=True):
        if score < low:
            continue
        a, b = pool[i], pool[j]
        if linked(a, b):
            continue
        if score >= thresholds.duplicate:
            pairs[(i, j)] = _pair(a, b, "near", score, f"similarity {score:.2f}")
            continue
        if a.kind != b.kind or a.scope != b.scope or (i, j) not in about_same:
            continue
        only_a, only_b = values[i] - values[j], values[j] - values[i]
        numbers = any(_HAS_DIGIT.search(t) for t in only_a | only_b)
        change = cue[i] or cue[j]
        if (
            only_a
            and only_b
            and (
                (change and score >= thresholds.contradiction)
                or (numbers and score >= thresholds.number_contradiction)
            )
        ):
            why = "change wording" if change else "different numbers"
            pairs[(i, j)] = _pair(
                a,
                b,
                "contradiction",
                score,
                f"same {a.kind}/{a.scope}, different values {sorted(only_a)[:3]} vs "
                f"{sorted(only_b)[:3]} ({why}, similarity {score:.2f})",
            )
        elif score >= thresholds.rephrase and not change and not numbers:
            pairs[(i, j)] = _pair(a, b, "near", score, f"rephrased: similarity {score:.2f}")
    return _ordered(pairs.values())


def _ordered(pairs) -> list[DuplicatePair]:  # type: ignore[no-untyped-def]
    order = {"exact": 0, "contradiction": 1, "near": 2}
    return sorted(pairs, key=lambda p: (order[p.type], -p.score, p.a, p.b))
