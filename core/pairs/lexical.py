"""Pairs by word overlap: no model needed, exact, and cheap enough for every change.

The similarity is the cosine of token counts (features.token_counts); candidates come
from an inverted index of uncommon tokens, so 10k entries are not compared n² times.
The verdict is the one every finder uses (verdict.py) with the `words` threshold row.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from memdesk.core.entry import Entry
from memdesk.core.pairs.features import dot, norm, token_counts
from memdesk.core.pairs.pair import DuplicatePair, make_pair
from memdesk.core.pairs.thresholds import THRESHOLDS, PairThresholds
from memdesk.core.pairs.verdict import verdict

WORDS: PairThresholds = THRESHOLDS["words"]
# A token in more entries than this is too common to propose a pair (bounds the work).
PROPOSING_TOKEN_MAX_ENTRIES = 40
# For `lexical_contradiction`: every similarity passes, nothing is near by score alone.
_RULES_ONLY = PairThresholds(
    duplicate=2.0, contradiction=0.0, number_contradiction=0.0, rephrase=2.0
)


def entry_token_counts(entry: Entry) -> Counter[str]:
    return token_counts(entry.search_text())


def lexical_pairs(entries: Sequence[Entry], focus: set[str] | None = None) -> list[DuplicatePair]:
    """Near-duplicates and likely contradictions by token overlap; with `focus`, only
    pairs with at least one side in it."""
    vectors = {e.id: entry_token_counts(e) for e in entries}
    norms = {i: norm(v) for i, v in vectors.items()}
    out: list[DuplicatePair] = []
    for a, b in candidate_pairs(entries, vectors, focus):
        pair = lexical_pair(a, b, vectors[a.id], vectors[b.id], norms[a.id] * norms[b.id])
        if pair is not None:
            out.append(pair)
    return out


def lexical_pair(
    a: Entry, b: Entry, va: Counter[str], vb: Counter[str], norms: float
) -> DuplicatePair | None:
    """The verdict on one proposed pair (`norms`: product of both vector norms). Exact
    copies are the hash finder's; this one adds what overlap says."""
    if a.text_hash == b.text_hash:
        return None
    score = dot(va, vb) / (norms or 1.0)
    if score < min(WORDS.contradiction, WORDS.number_contradiction, WORDS.rephrase):
        return None
    found = verdict(a, b, score, WORDS, label="word overlap")
    if found is None:
        return None
    return make_pair(a, b, found.type, score, found.reason, "lexical")


def lexical_contradiction(a: Entry, b: Entry) -> str:
    """Why two entries would contradict each other by the verdict's rules whatever their
    similarity (same slot and subject, different values, a cue or numbers), or ""."""
    found = verdict(a, b, 1.0, _RULES_ONLY)
    return found.reason if found is not None and found.type == "contradiction" else ""


def candidate_pairs(
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
