"""The gold matching rule of `bench-data/real/gold/README.md`, in one place.

`bench/extract_real.py` scores with it and a training script can reuse it to label
sentences. The rule, as the README states it:

A candidate (its summary and facts) matches a gold fact when either

1. every keyword of the fact appears in the candidate: case-insensitive, light stemming
   (strip a trailing s / es / ed / ing and a final e); a keyword word of 5+ characters
   also matches a candidate word it begins ("dedup" matches "deduplication", but not
   across `_`); a keyword of several words must occur as a phrase; keywords holding
   punctuation (`db:seed:replant`, `sqlite://`) and Chinese keywords match as
   substrings; or
2. for a gold fact with at least 8 content tokens, the candidate's content tokens cover
   at least 0.7 of the fact's. Content tokens are English words minus stopwords,
   stemmed as above, plus CJK character bigrams.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memdesk.core.stopwords import ENGLISH_STOPWORDS

COVER_MIN_TOKENS = 8
COVER_RATIO = 0.7
PREFIX_MIN_CHARS = 5

_WORD = re.compile(r"[a-z0-9_]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_PLAIN_KEYWORD = re.compile(r"[A-Za-z0-9_ ]+")
_SUFFIXES = ("ing", "es", "ed", "s")


def stem(word: str) -> str:
    """Light stemming: one trailing s / es / ed / ing, then a final e."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 2:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _word_matches(keyword: str, candidate: str) -> bool:
    """One keyword word against one candidate word (both lower case)."""
    if stem(keyword) == stem(candidate):
        return True
    if len(keyword) >= PREFIX_MIN_CHARS:
        for prefix in {keyword, stem(keyword)}:
            if candidate.startswith(prefix) and "_" not in candidate[len(prefix) :]:
                return True
    return False


def keyword_in(keyword: str, text: str, text_words: Sequence[str] | None = None) -> bool:
    """Rule 1 for one keyword."""
    keyword = keyword.strip()
    if not keyword:
        return True
    if not _PLAIN_KEYWORD.fullmatch(keyword) or _CJK.search(keyword):
        return keyword.lower() in text.lower()  # punctuation or Chinese: a substring
    wanted = words(keyword)
    have = list(text_words) if text_words is not None else words(text)
    span = len(wanted)
    for start in range(len(have) - span + 1):
        if all(_word_matches(k, have[start + i]) for i, k in enumerate(wanted)):
            return True
    return False


def content_tokens(text: str) -> set[str]:
    """English words minus stopwords, stemmed, plus CJK character bigrams."""
    lowered = text.lower()
    tokens = {stem(w) for w in _WORD.findall(lowered) if w not in ENGLISH_STOPWORDS}
    for run in _CJK_RUN.findall(lowered):
        if len(run) == 1:
            tokens.add(run)
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    tokens.discard("")
    return tokens


@dataclass
class GoldFact:
    id: str
    text: str
    keywords: list[str]
    tokens: set[str] = field(default_factory=set)

    @classmethod
    def from_json(cls, data: dict) -> GoldFact:
        return cls(
            str(data.get("id", "")),
            str(data["text"]),
            [str(k) for k in data.get("keywords", [])],
            content_tokens(str(data["text"])),
        )


def matches(fact: GoldFact | dict, text: str, text_words: Sequence[str] | None = None) -> bool:
    """Does a candidate text (summary and facts joined) match this gold fact? `fact` may
    be a gold file's JSON object as read."""
    if isinstance(fact, dict):
        fact = GoldFact.from_json(fact)
    have = list(text_words) if text_words is not None else words(text)
    if fact.keywords and all(keyword_in(k, text, have) for k in fact.keywords):
        return True
    if len(fact.tokens) >= COVER_MIN_TOKENS:
        covered = len(fact.tokens & content_tokens(text))
        if covered >= COVER_RATIO * len(fact.tokens):
            return True
    return False


@dataclass
class FileScore:
    """One file's candidates against its gold facts."""

    candidates: int
    matched_candidates: int
    gold: int
    matched_gold: int
    # For reading by hand: which gold facts each candidate matched.
    pairs: list[list[str]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        if self.candidates == 0:
            return 1.0 if self.gold == 0 else 0.0
        return self.matched_candidates / self.candidates

    @property
    def recall(self) -> float | None:
        return self.matched_gold / self.gold if self.gold else None


def score_file(candidate_texts: Iterable[str], facts: Sequence[GoldFact]) -> FileScore:
    texts = list(candidate_texts)
    hit_gold: set[str] = set()
    pairs: list[list[str]] = []
    matched = 0
    for text in texts:
        have = words(text)
        found = [f.id for f in facts if matches(f, text, have)]
        pairs.append(found)
        if found:
            matched += 1
            hit_gold.update(found)
    return FileScore(len(texts), matched, len(facts), len(hit_gold), pairs)


@dataclass
class Totals:
    candidates: int = 0
    matched_candidates: int = 0
    gold: int = 0
    matched_gold: int = 0

    def add(self, score: FileScore) -> None:
        self.candidates += score.candidates
        self.matched_candidates += score.matched_candidates
        self.gold += score.gold
        self.matched_gold += score.matched_gold

    @property
    def precision(self) -> float:
        return self.matched_candidates / self.candidates if self.candidates else 0.0

    @property
    def recall(self) -> float:
        return self.matched_gold / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0
