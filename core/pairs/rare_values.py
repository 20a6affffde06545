"""Pairs worth a consolidation proposal, from one similarity matrix, at store scale.

The verdict is the one every finder uses (verdict.py); what differs is which pairs are
asked: a contradiction or a rephrasing must share a rare value (one that at most
max(5, n/200) entries mention): it is what makes two statements about the same thing
rather than two facts written alike ("The A server listens on port 1" / "The B server
now listens on port 2"), and superseding or merging hides an entry.

Near duplicates come from the matrix thresholded block by block (or, for lexical
vectors, from `near_candidates`: pairs sharing a rare feature), contradiction and
rephrase candidates from the postings of rare values, so 10k entries stay in seconds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from memdesk.core.entry import Entry, linked
from memdesk.core.pairs.features import CHANGE_CUES
from memdesk.core.pairs.pair import DuplicatePair, make_pair, ordered
from memdesk.core.pairs.thresholds import PairThresholds
from memdesk.core.pairs.verdict import Statement, verdict

_BLOCK = 1024


def find_consolidation_pairs(
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
                pairs[(i, j)] = make_pair(
                    pool[i], pool[j], "exact", 1.0, "same normalised text", "hash"
                )
    if matrix is None or len(pool) < 2:
        return ordered(pairs.values())

    statements = [Statement.of(e) for e in pool]
    postings: dict[str, list[int]] = {}
    for i, statement in enumerate(statements):
        for token in statement.values:
            if not CHANGE_CUES.fullmatch(token):  # "now", "not": wording, not a value
                postings.setdefault(token, []).append(i)
    rare = max(5, len(pool) // 200)

    # Near duplicates may cross kinds: every pair above the (high) threshold.
    for start in range(0, len(pool) if near_candidates is None else 0, _BLOCK):
        block = matrix[start : start + _BLOCK] @ matrix.T
        for r, j in zip(*np.nonzero(block >= thresholds.duplicate), strict=True):
            i, j = start + int(r), int(j)
            if i < j and (i, j) not in pairs and not linked(pool[i], pool[j]):
                score = float(block[r, j])
                pairs[(i, j)] = make_pair(
                    pool[i], pool[j], "near", score, f"similarity {score:.2f}"
                )

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
        return ordered(pairs.values())
    ordered_candidates = sorted(candidates)
    left = np.array([i for i, _ in ordered_candidates])
    right = np.array([j for _, j in ordered_candidates])
    scores = np.einsum("ij,ij->i", matrix[left], matrix[right])
    for (i, j), score in zip(ordered_candidates, scores.tolist(), strict=True):
        if score < thresholds.duplicate and (i, j) not in about_same:
            continue  # no rare value in common: only a near duplicate counts
        found = verdict(
            pool[i], pool[j], score, thresholds, statements=(statements[i], statements[j])
        )
        if found is not None:
            pairs[(i, j)] = make_pair(pool[i], pool[j], found.type, score, found.reason)
    return ordered(pairs.values())
