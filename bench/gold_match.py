"""The gold matching rule of bench-data/real/gold/README.md, for the benches.

A candidate text matches a gold fact when (1) every keyword occurs in it (case-
insensitive, light stemming, a 5+ character keyword word also matching a word it
begins, several words as a phrase, punctuated and Chinese keywords as substrings), or
(2) the fact has at least 8 content tokens and the candidate covers 0.7 of them."""

from __future__ import annotations

import re

from memdesk.core.stopwords import ENGLISH_STOPWORDS

_WORD = re.compile(r"[A-Za-z0-9_]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
COVER = 0.7
MIN_TOKENS = 8


def stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text)]


def content_tokens(text: str) -> set[str]:
    tokens = {stem(w) for w in _WORD.findall(text) if w.lower() not in ENGLISH_STOPWORDS}
    for run in _CJK.findall(text):
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def _keyword_in(keyword: str, text: str, text_words: list[str]) -> bool:
    if re.search(r"[^\w\s]", keyword) or _CJK.search(keyword):
        return keyword.lower() in text.lower()
    wanted = words(keyword)
    if not wanted:
        return keyword.lower() in text.lower()
    n = len(wanted)
    for start in range(len(text_words) - n + 1):
        ok = True
        for k, want in enumerate(wanted):
            have = text_words[start + k]
            if have == want or (len(want) >= 5 and have.startswith(want)):
                continue
            ok = False
            break
        if ok:
            return True
    return False


def matches(fact: dict, text: str) -> bool:
    text_words = words(text)
    keywords = fact.get("keywords") or []
    if keywords and all(_keyword_in(k, text, text_words) for k in keywords):
        return True
    gold = content_tokens(fact["text"])
    if len(gold) >= MIN_TOKENS:
        have = content_tokens(text)
        return len(gold & have) / len(gold) >= COVER
    return False
