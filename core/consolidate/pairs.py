"""Pairs of entries worth a proposal, from one similarity matrix, at store scale.

The classification follows the search package's `classify_pair` (exact / near /
contradiction) with two consolidation-specific differences:
- a "rephrased" class: same kind and scope, similar, no change wording, no differing
  number, and a rare value in common -> the same fact said twice (merge);
- no contradiction from similarity alone: it needs change wording ("now", "switched to",
  改为...) or a differing number, because superseding hides the older entry.

Per-entry features (hash, value words, cue, digits) are computed once, and the matrix is
thresholded block by block with numpy, so 10k entries stay in seconds
(`classify_pair` re-tokenises both texts for every candidate pair).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search.duplicates import (
    _CHANGE_CUES,
    _HAS_DIGIT,
    DuplicatePair,
    _linked,
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
    pool: Sequence[Entry], matrix: np.ndarray | None, thresholds: PairThresholds
) -> list[DuplicatePair]:
    """exact / near / contradiction pairs among `pool` (rows of `matrix`), older first."""
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
    cue = np.array([bool(_CHANGE_CUES.search(e.search_text())) for e in pool])
    digits = np.array([any(_HAS_DIGIT.search(t) for t in v) for v in values])
    flagged = cue | digits  # could be a contradiction at the lower threshold
    slot_ids: dict[tuple[str, str], int] = {}
    slot = np.array([slot_ids.setdefault((e.kind, e.scope), len(slot_ids)) for e in pool])
    df: Counter[str] = Counter()
    for tokens in values:
        df.update(tokens)
    rare = max(5, len(pool) // 200)
    low = min(thresholds.contradiction, thresholds.rephrase, thresholds.duplicate)
    high = min(thresholds.rephrase, thresholds.duplicate)

    for start in range(0, len(pool), _BLOCK):
        block = matrix[start : start + _BLOCK] @ matrix.T
        rows = np.arange(start, min(start + _BLOCK, len(pool)))
        upper = rows[:, None] < np.arange(len(pool))[None, :]
        same_slot = slot[rows][:, None] == slot[None, :]
        either_flagged = flagged[rows][:, None] | flagged[None, :]
        keep = upper & (
            (block >= thresholds.duplicate)
            | (same_slot & (block >= high))
            | (same_slot & either_flagged & (block >= low))
        )
        for r, j in zip(*np.nonzero(keep), strict=True):
            i = start + int(r)
            j = int(j)
            if (i, j) in pairs:
                continue
            a, b = pool[i], pool[j]
            if _linked(a, b):
                continue
            score = float(block[r, j])
            only_a, only_b = values[i] - values[j], values[j] - values[i]
            shared = values[i] & values[j]
            numbers = any(_HAS_DIGIT.search(t) for t in only_a | only_b)
            change = bool(cue[i] or cue[j])
            same = a.kind == b.kind and a.scope == b.scope
            if (
                same
                and only_a
                and only_b
                and shared
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
            elif score >= thresholds.duplicate:
                pairs[(i, j)] = _pair(a, b, "near", score, f"similarity {score:.2f}")
            elif (
                same
                and score >= thresholds.rephrase
                and not change
                and not numbers
                and any(df[t] <= rare for t in shared)
            ):
                pairs[(i, j)] = _pair(a, b, "near", score, f"rephrased: similarity {score:.2f}")
    return _ordered(pairs.values())


def _ordered(pairs) -> list[DuplicatePair]:  # type: ignore[no-untyped-def]
    order = {"exact": 0, "contradiction": 1, "near": 2}
    return sorted(pairs, key=lambda p: (order[p.type], -p.score, p.a, p.b))
