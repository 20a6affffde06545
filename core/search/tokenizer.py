"""One tokenizer for Chinese and English in the same field.

tantivy's default tokenizer keeps "运行测试" as one token, so "测试" finds nothing. Here
every CJK character is its own token and every run of other letters/digits is one token,
lowercased and English-stemmed ("running" -> "run"). Queries turn a run of CJK
characters into its overlapping bigrams as phrases, so "测试" must match "测" followed by
"试", while a long Chinese question still matches entries sharing only some of its words.

The same rules exist twice: as a tantivy analyzer (indexing, strict query parsing) and
in Python (lenient queries, matched terms for the reason of a hit). The Python stemmer
is the same Snowball implementation tantivy uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from memdesk.core.stopwords import ENGLISH_STOPWORDS

if TYPE_CHECKING:
    import tantivy  # imported where an index opens: the tokenizer alone stays light

ANALYZER_NAME = "memdesk_cjk_en"

_CJK_CLASS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
# Rust regex syntax (tantivy): one CJK character, or a run of letters/digits minus CJK.
TANTIVY_PATTERN = rf"[{_CJK_CLASS}]|[[\p{{L}}\p{{N}}]--[{_CJK_CLASS}]]+"

# Python `re` has no \p{..}; the same classes spelled as ranges.
_CJK_RANGES = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0002ffff"  # CJK Extensions B..F
)
_CJK_CHAR = re.compile(f"[{_CJK_RANGES}]")
_TOKEN = re.compile(f"(?P<cjk>[{_CJK_RANGES}]+)|(?P<word>(?:(?![{_CJK_RANGES}])[^\\W_])+)")

CHINESE_STOPCHARS: frozenset[str] = frozenset("的了是在和也就都而及与着或么吗呢吧啊什哪")


class Stemmer(Protocol):
    def stem_word(self, word: str) -> str: ...


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer:
    from py_rust_stemmers import SnowballStemmer  # shipped with fastembed

    return SnowballStemmer("english")


@lru_cache(maxsize=200_000)  # hit reasons stem the same words again and again
def stem(word: str) -> str:
    return _stemmer().stem_word(word.lower())


def tokenize(text: str) -> list[str]:
    """Index tokens as tantivy produces them: CJK characters and stemmed words."""
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        if match.group("cjk"):
            out.extend(match.group("cjk"))
        else:
            out.append(stem(match.group("word")))
    return out


@dataclass(frozen=True)
class QueryTerm:
    """One unit of a lenient query: a stemmed word, a CJK character or a CJK bigram."""

    tokens: tuple[str, ...]  # one token, or two for a CJK bigram (matched as a phrase)
    display: str  # how the user wrote it, for the reason of a hit


def query_terms(text: str) -> list[QueryTerm]:
    """Terms of a natural-language query; stopwords dropped unless nothing else is left."""
    terms: list[QueryTerm] = []
    weak: list[QueryTerm] = []
    seen: set[tuple[str, ...]] = set()

    def add(term: QueryTerm, is_stop: bool) -> None:
        if term.tokens in seen:
            return
        seen.add(term.tokens)
        (weak if is_stop else terms).append(term)

    for match in _TOKEN.finditer(text):
        run = match.group("cjk")
        if run:
            if len(run) == 1:
                add(QueryTerm((run,), run), run in CHINESE_STOPCHARS)
                continue
            for i in range(len(run) - 1):
                pair = run[i : i + 2]
                add(QueryTerm(tuple(pair), pair), all(c in CHINESE_STOPCHARS for c in pair))
        else:
            word = match.group("word")
            add(QueryTerm((stem(word),), word), word.lower() in ENGLISH_STOPWORDS)
    return terms or weak


def has_cjk(text: str) -> bool:
    return bool(_CJK_CHAR.search(text))


_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def scripts_of(text: str) -> frozenset[str]:
    """Which writing systems a text is written in: "cjk" (two or more CJK characters) and
    "latin" (a Latin word besides code-like names when CJK is there: at least two).
    A query and an entry with no script in common cannot share words, so full text
    cannot find one from the other."""
    cjk = len(_CJK_CHAR.findall(text, 0, 4000)) >= 2
    latin_words = len(_LATIN_WORD.findall(text, 0, 4000))
    out = set()
    if cjk:
        out.add("cjk")
    if latin_words >= (2 if cjk else 1):
        out.add("latin")
    return frozenset(out)


def build_tantivy_analyzer() -> tantivy.TextAnalyzer:
    """The tantivy analyzer; must be registered again on every index open."""
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(TANTIVY_PATTERN))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
