"""Text matching the desk does without the search model: a substring filter, and a
similarity of two texts for suggestions."""

from __future__ import annotations

from collections.abc import Iterable

from memdesk.core.entry import Entry, normalise_text


def text_filter(entries: Iterable[Entry], query: str) -> list[Entry]:
    """Entries whose text contains every word of `query` (case and width folded)."""
    words = normalise_text(query).split()
    if not words:
        return list(entries)
    return [e for e in entries if all(w in normalise_text(e.search_text()) for w in words)]


def overlap(a: str, b: str) -> float:
    """Share of character bigrams two texts have in common (works for CJK and English)."""

    def grams(text: str) -> set[str]:
        t = normalise_text(text)
        return {t[i : i + 2] for i in range(len(t) - 1)}

    ga, gb = grams(a), grams(b)
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / len(ga | gb)
