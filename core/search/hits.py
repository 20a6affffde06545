"""A search hit and how it explains itself (matched terms, similarity, status)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.entry import Entry
from memdesk.core.search.tokenizer import QueryTerm, tokenize


@dataclass
class Hit:
    entry_id: str
    score: float
    reason: str
    matched_terms: list[str] = field(default_factory=list)
    similarity: float | None = None
    text_rank: int | None = None
    semantic_rank: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id,
            "id": self.entry_id,
            "score": round(self.score, 6),
            "reason": self.reason,
            "matched_terms": self.matched_terms,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "text_rank": self.text_rank,
            "semantic_rank": self.semantic_rank,
        }


def matched_terms(terms: Sequence[QueryTerm], entry: Entry) -> list[str]:
    """The query terms (as the person typed them) that the entry's text holds."""
    text = entry.search_text() + "\n" + " ".join(entry.tags)
    tokens = set(tokenize(text))
    lowered = text.lower()
    out: list[str] = []
    for term in terms:
        if len(term.tokens) == 1:
            found = term.tokens[0] in tokens
        else:
            found = "".join(term.tokens) in lowered
        if found:
            out.append(term.display)
    return out


def reason_of(hit: Hit, entry: Entry) -> str:
    """One line saying why the hit is there: matched terms, similarity, status."""
    parts: list[str] = []
    if hit.matched_terms:
        parts.append("matched " + ", ".join(hit.matched_terms))
    elif hit.text_rank is not None:
        parts.append("full-text match")
    if hit.similarity is not None:
        parts.append(f"similarity {hit.similarity:.2f}")
    if entry.status != "confirmed":
        parts.append(entry.status)
    return "; ".join(parts)
