"""Near and quoted duplicates collapse into one candidate that keeps every source.

Two sentences are the same candidate when their normalised texts (NFKC, case-folded,
punctuation and spaces removed) are equal, when one holds the other whole (a quoted copy:
"> use pnpm" under the person's "yes, use pnpm, not npm"), or when their character
bigram sets overlap with a Dice coefficient of at least 0.8 (a near copy: one word changed).
The one with the higher score is kept; the other's record and role are added to it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from operator import add

NEAR = 0.8
MIN_QUOTED_CHARS = 12  # "use pnpm" inside a longer sentence is not a copy of it

_DROP = re.compile(r"[\W_]+", re.UNICODE)


def normalise(text: str) -> str:
    return _DROP.sub("", unicodedata.normalize("NFKC", text).casefold())


def bigrams(text: str) -> frozenset[str]:
    if len(text) < 2:
        return frozenset([text])
    return frozenset(map(add, text, text[1:]))  # text[i] + text[i + 1]: every pair


@lru_cache(maxsize=16384)
def key_and_grams(text: str) -> tuple[str, frozenset[str]]:
    """normalise and bigrams, once per text: a transcript repeats its sentences, and the
    copies then share one (immutable) bigram set instead of each building its own."""
    key = normalise(text)
    return key, bigrams(key)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    total = len(a) + len(b)
    return 2 * len(a & b) / total if total else 0.0


@dataclass
class Found:
    """A scored sentence on its way to becoming a candidate."""

    text: str
    score: float
    role: str  # person | assistant | note
    locator: str
    order: int  # position in the transcript: ties keep the earlier one
    message_index: int = 0
    confidence: str = "low"  # from the hand rules (seed 001's scale), whatever ranks it
    also: list[tuple[str, str]] = field(default_factory=list)  # (role, locator) of copies
    key: str = ""
    grams: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.key, self.grams = key_and_grams(self.text)


def same(a: Found, b: Found) -> bool:
    if a.key == b.key:
        return True
    short, long = (a.key, b.key) if len(a.key) <= len(b.key) else (b.key, a.key)
    if len(short) >= MIN_QUOTED_CHARS and short in long:
        return True
    ratio = len(short) / len(long) if long else 1.0
    return ratio >= 0.6 and dice(a.grams, b.grams) >= NEAR


def collapse(found: list[Found]) -> list[Found]:
    """One Found per group of copies, best first kept; sources merged into `also`."""
    kept: list[Found] = []
    exact: dict[str, Found] = {}
    # The sources each winner already lists (a transcript may repeat a line thousands of
    # times: a set keeps the merge linear).
    listed: dict[int, set[tuple[str, str]]] = {}
    for item in sorted(found, key=lambda f: (-f.score, f.order)):
        # The same words again (a transcript repeating itself) are found without comparing.
        match = exact.get(item.key)
        candidates = [match] if match is not None else kept
        for winner in candidates:
            if same(winner, item):
                have = listed[id(winner)]
                for source in [(item.role, item.locator), *item.also]:
                    if source not in have:
                        have.add(source)
                        winner.also.append(source)
                # Copies of these words merge into the same winner: found without comparing.
                exact.setdefault(item.key, winner)
                break
        else:
            kept.append(item)
            exact[item.key] = item
            listed[id(item)] = {(item.role, item.locator), *item.also}
    return kept
