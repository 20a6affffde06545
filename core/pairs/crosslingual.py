"""Pairs across languages: a Chinese and an English wording of one fact, or of two facts
that disagree.

The centred cosine of a translation pair stands out from the crowd but stays far below
the near-duplicate threshold (bilingual dev set, e5 centred: translations 0.3-0.58,
the 99th percentile of unrelated cross-language pairs 0.24), so a fixed threshold either
misses them or floods the queue. Finding translations among two piles of sentences is
bitext mining, and its standard answer is a margin, not a threshold (Artetxe & Schwenk,
"Margin-based parallel corpus mining with multilingual sentence embeddings", ACL 2019):
a pair counts when its cosine is well above what each side scores with its k nearest
entries of the other language, and each side is the other's best match. The ratio form:

    margin(x, y) = cos(x, y) / ((mean top-k cos of x + mean top-k cos of y) / 2), k = 4

A pair is proposed when x and y are each other's best match in the other language,
`margin >= MARGIN`, they have the same kind and scope, and no supersede links them. Its
verdict: a contradiction when one side tells a change ("不再", "switched to") and the
Chinese side names Latin-script values the English side does not ("created_at" against
"offset/limit"); a near-duplicate (the same fact in the other language) when the
Chinese side names no such value (a tool, a path, a port the English does not) and the
centred cosine also reaches NEAR_COSINE; else none. Word
overlap cannot judge "same subject" across languages, so the mutual best match stands
in for it. Bilingual dev set (docs/search.md): 6 of the 13 cross-lingual pairs a reader
finds (the contradiction among them), no false one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from memdesk.core.entry import Entry, linked
from memdesk.core.search.languages import CJK, LATIN, MIN_GROUP, language_of

# Nearest entries of the other language each side is compared with (Artetxe & Schwenk).
MARGIN_K = 4
# Ratio margin from which a mutual best match is a pair (bilingual dev set, chosen among
# 1.2 / 1.3 / 1.4: 11 / 9 / 7 of 13 pairs found, 4 / 3 / 2 false ones).
MARGIN = 1.3
# Fewer entries than this in either language: no pairs across them (as for centring).
MIN_CROSS_GROUP = MIN_GROUP
# Centred cosine a near-duplicate across languages also needs. A margin alone pairs
# entries that are merely on one subject: among 32 + 32 everyday statements with two
# translations in them, 11 unrelated pairs had margins of 1.3-1.7 (translations 2.0)
# and centred cosines of 0.24-0.42 (translations 0.57 and 0.61); on the bilingual dev
# set the translations found score 0.41-0.58 and the false pairs 0.41 and 0.44.
NEAR_COSINE = 0.45
_BLOCK = 1024
# A change told: a narrower list than features.CHANGE_CUES, whose "not", "不要" and
# "别用" are how instructions are worded in any language (e003, "不要直接敲系统里的
# pytest", read as a change, made a false contradiction of a mere neighbour).
CHANGE_TOLD = re.compile(
    r"\b(?:switch(?:ed|es)? (?:to|from)|instead of|no longer|replaced|moved to|"
    r"migrated|stopped|deprecated)\b|改用|换成|换到|不再|改为|改成|迁到|切到|弃用|取代",
    re.IGNORECASE,
)
_LATIN_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/+-]*")


@dataclass(frozen=True)
class CrossPair:
    x: int  # rows of the pool
    y: int
    cosine: float
    margin: float


@dataclass(frozen=True)
class _Best:
    row: np.ndarray  # best partner (a row of the other language) per row
    cosine: np.ndarray  # its cosine
    knn: np.ndarray  # mean cosine of the MARGIN_K nearest partners


def _best(matrix: np.ndarray, rows: np.ndarray, others: np.ndarray) -> _Best:
    """Each of `rows`' best match among `others` and its k-nearest mean, block by block."""
    k = min(MARGIN_K, len(others))
    best_row = np.empty(len(rows), dtype=np.intp)
    best_cos = np.empty(len(rows), dtype=np.float32)
    knn = np.empty(len(rows), dtype=np.float32)
    other_vectors = matrix[others]
    for start in range(0, len(rows), _BLOCK):
        block = matrix[rows[start : start + _BLOCK]] @ other_vectors.T
        top = np.argmax(block, axis=1)
        end = start + len(block)
        best_row[start:end] = others[top]
        best_cos[start:end] = block[np.arange(len(block)), top]
        knn[start:end] = np.partition(block, len(others) - k, axis=1)[:, -k:].mean(axis=1)
    return _Best(best_row, best_cos, knn)


def cross_lingual_candidates(
    pool: Sequence[Entry], matrix: np.ndarray, focus: Collection[str] | None = None
) -> list[CrossPair]:
    """Mutual best matches across CJK and Latin entries whose margin reaches MARGIN
    (rows of `matrix`, one per pool entry, centred on their language's mean and unit
    length). `focus`: only pairs with a side among these ids (the same pairs as the
    full pass restricted to them). Nothing when a language has fewer than
    MIN_CROSS_GROUP entries: the k-nearest means need a crowd to compare with."""
    labels = np.array([language_of(e.search_text()) for e in pool])
    by_label = {label: np.flatnonzero(labels == label) for label in (LATIN, CJK)}
    if min(len(rows) for rows in by_label.values()) < MIN_CROSS_GROUP:
        return []
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32, copy=False)
    latin, cjk = by_label[LATIN], by_label[CJK]
    if focus is not None:  # the Latin side of every pair that may touch the focus
        focused_cjk = np.array([r for r in cjk.tolist() if pool[r].id in focus], dtype=np.intp)
        reached = _best(unit, focused_cjk, latin).row if len(focused_cjk) else latin[:0]
        focused_latin = [r for r in latin.tolist() if pool[r].id in focus]
        latin = np.unique(np.concatenate([np.array(focused_latin, dtype=np.intp), reached]))
        if not len(latin):
            return []
    # Every mutual pair is found once, from its Latin side.
    mine = _best(unit, latin, cjk)
    partners = np.unique(mine.row)
    theirs = _best(unit, partners, by_label[LATIN])
    at = {int(p): n for n, p in enumerate(partners)}
    out: list[CrossPair] = []
    for n, row in enumerate(latin.tolist()):
        partner = int(mine.row[n])
        back = at[partner]
        if int(theirs.row[back]) != row:
            continue  # not each other's best match
        if focus is not None and pool[row].id not in focus and pool[partner].id not in focus:
            continue
        cosine = float(mine.cosine[n])
        mean = (float(mine.knn[n]) + float(theirs.knn[back])) / 2
        margin = cosine / mean if mean > 0 else 0.0
        if margin >= MARGIN:
            out.append(CrossPair(row, partner, cosine, margin))
    return out


def latin_values(text: str) -> set[str]:
    """Words and numbers written in Latin script or digits, lowercased: what a Chinese
    and an English wording of one fact spell the same way (tool names, ports, paths)."""
    return {m.group(0).lower().strip(".:/+-") for m in _LATIN_VALUE.finditer(text)} - {""}


def cross_lingual_verdict(
    a: Entry, b: Entry, cosine: float, margin: float
) -> tuple[str, str] | None:
    """(type, reason) for a cross-language candidate pair, or None (other slot, settled
    by a supersede, two statements, or too far apart to be one fact)."""
    if a.kind != b.kind or a.scope != b.scope or linked(a, b):
        return None
    texts = (a.search_text(), b.search_text())
    cjk, latin = (texts[0], texts[1]) if language_of(texts[0]) == CJK else (texts[1], texts[0])
    only_cjk = latin_values(cjk) - latin_values(latin)
    if (CHANGE_TOLD.search(texts[0]) or CHANGE_TOLD.search(texts[1])) and only_cjk:
        shown = ", ".join(sorted(only_cjk)[:3])
        return (
            "contradiction",
            f"same {a.kind}/{a.scope} across languages, a change told and {shown} on one "
            f"side only (margin {margin:.2f})",
        )
    if only_cjk or cosine < NEAR_COSINE:  # two statements, or merely one subject
        return None
    return (
        "near",
        f"the same statement in two languages (similarity {cosine:.2f}, margin {margin:.2f})",
    )
