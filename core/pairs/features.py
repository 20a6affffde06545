"""What a pair verdict reads of a text: one tokenizer for every pair finder.

- value tokens: the words that carry a statement's value (tools, numbers, names), no CJK
  and no stopwords: two statements about the same thing share some, a contradiction
  has some on each side the other lacks;
- token counts: every token (Chinese characters and bigrams included) minus English
  stopwords, for the word-overlap similarity used when no model is loaded;
- change cues: wording that says something changed ("switched to", "not", 改用).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable

from memdesk.core.search.tokenizer import ENGLISH_STOPWORDS, has_cjk, tokenize

CHANGE_CUES = re.compile(
    r"\b(?:switch(?:ed|es)?|instead|now|no longer|replac(?:e|ed|es)|moved? to|migrat\w*|"
    r"not|never|don'?t|stopp?ed|deprecated|rather than)\b|改用|换成|换到|不再|现在|改为|迁移|"
    r"弃用|不要|别用|而不是|取代",
    re.IGNORECASE,
)
HAS_DIGIT = re.compile(r"\d")
# Names of things: CamelCase, snake_case, dotted or slashed paths and files, words with
# digits. Two statements each naming a thing the other does not are about two things.
_IDENTIFIER = re.compile(
    r"\b(?:[A-Za-z]+[a-z0-9][A-Z][A-Za-z0-9]*|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+|"
    r"[A-Za-z0-9_-]*[A-Za-z][A-Za-z0-9_-]*(?:[./][A-Za-z0-9_-]+)+|[A-Za-z]+\d[A-Za-z0-9]*)"
)


def value_tokens(text: str) -> set[str]:
    """Words that carry the 'value' of a statement (tools, numbers, names), no CJK."""
    return {t for t in tokenize(text) if not has_cjk(t) and t not in ENGLISH_STOPWORDS}


def as_written(stems: list[str], text: str) -> list[str]:
    """The words of `text` the stems came from ("decided", not "decid"): a reason a
    person reads quotes the entry, not the index."""
    surface = _surface_words(text)
    return [surface.get(stem, stem) for stem in stems]


@functools.lru_cache(maxsize=1 << 12)
def _surface_words(text: str) -> dict[str, str]:
    """Stem -> the first word of `text` it came from (callers must not change the dict:
    it is cached; an entry in several contradictions is read once)."""
    surface: dict[str, str] = {}
    for word in _WORD.findall(text):
        for stem in _word_stems(word):
            surface.setdefault(stem, word.lower())
    return surface


@functools.lru_cache(maxsize=1 << 16)
def _word_stems(word: str) -> tuple[str, ...]:
    return tuple(tokenize(word))


_WORD = re.compile(r"[^\W_](?:[\w+#/-]|\.(?=\w))*")


def identifiers(text: str) -> frozenset[str]:
    """The names of things a statement mentions (lowercased)."""
    return frozenset(m.group(0).lower() for m in _IDENTIFIER.finditer(text))


def has_change_cue(text: str) -> bool:
    return bool(CHANGE_CUES.search(text))


def has_number(tokens: Iterable[str]) -> bool:
    return any(HAS_DIGIT.search(t) for t in tokens)


@functools.lru_cache(maxsize=1 << 15)
def token_counts(text: str) -> Counter[str]:
    """Token counts minus English stopwords. Memoised: the queue recomputes its pairs
    after every change."""
    return Counter(t for t in tokenize(text) if t not in ENGLISH_STOPWORDS)


def norm(vector: Counter[str]) -> float:
    return math.sqrt(sum(n * n for n in vector.values()))


def dot(a: Counter[str], b: Counter[str]) -> int:
    if len(b) < len(a):
        a, b = b, a
    return sum(n * b[t] for t, n in a.items() if t in b)


def cosine(a: Counter[str], b: Counter[str]) -> float:
    """Word-overlap similarity of two token count vectors."""
    both = norm(a) * norm(b)
    return dot(a, b) / both if both else 0.0
