"""A pair of entries that duplicate or contradict each other, and how pairs are ordered."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from memdesk.core.entry import Entry

PAIR_TYPES: tuple[str, ...] = ("exact", "near", "contradiction")
# Listing order: exact copies first, then contradictions (they need a decision), then
# near duplicates; strongest first within a type.
_TYPE_ORDER = {"exact": 0, "contradiction": 1, "near": 2}


@dataclass
class DuplicatePair:
    a: str  # entry id (older first)
    b: str
    type: str  # "exact" | "near" | "contradiction"
    score: float  # 1.0 for exact; the similarity otherwise
    reason: str
    method: str = "semantic"  # how it was found: "semantic" | "lexical" | "hash"

    def to_json(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "type": self.type,
            "score": round(self.score, 4),
            "reason": self.reason,
            "method": self.method,
        }


# The conflict screen's name for it.
Pair = DuplicatePair


P = TypeVar("P", bound=DuplicatePair)


def make_pair(
    a: Entry, b: Entry, kind: str, score: float, reason: str, method: str = "semantic"
) -> DuplicatePair:
    """The pair with the older entry first (by creation time, then id)."""
    first, second = (a, b) if (a.created, a.id) <= (b.created, b.id) else (b, a)
    return DuplicatePair(first.id, second.id, kind, score, reason, method)


def ordered(pairs: Iterable[P]) -> list[P]:
    # Scores rounded: a cosine from a focused block and from the whole matrix differ in
    # the last float32 bits, and that must not reorder a listing.
    return sorted(pairs, key=lambda p: (_TYPE_ORDER[p.type], -round(p.score, 5), p.a, p.b))


def sorted_key(a: str, b: str) -> tuple[str, str]:
    """The same key for (a, b) and (b, a)."""
    return (a, b) if a < b else (b, a)


def pair_key(a: str, b: str) -> str:
    """The key a dismissal is recorded under."""
    x, y = sorted_key(a, b)
    return f"pair:{x}:{y}"
