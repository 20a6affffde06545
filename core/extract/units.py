"""How long a sentence is, in a unit that means the same in Chinese and English.

Chinese is written without spaces, so `len(text.split())` counts a whole Chinese clause
as one word, and a character count makes English look three times longer than it is.
A *unit* is one Latin word (or number), or CJK_PER_WORD CJK characters: about what one
English word says (a Chinese word is one to two characters; a line of Chinese carries
as much as a line of English about 1.5 times as many characters long). Mixed lines
("把 max_jobs 降到 20") count both parts.
"""

from __future__ import annotations

import re

CJK_PER_WORD = 1.5
# Han characters, and Japanese kana (written without spaces too)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
# A Latin word or number glued to Chinese ("token过期", "用Parquet"): no space between.
_LATIN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'’.-]*")


def cjk_chars(text: str) -> int:
    return 0 if text.isascii() else len(CJK.findall(text))


def units(text: str) -> float:
    """Space-separated words; a word holding CJK counts its Latin runs plus its CJK
    characters / CJK_PER_WORD. (English text counts exactly as `len(text.split())`.)"""
    if text.isascii():
        return float(len(text.split()))
    total = 0.0
    for word in text.split():
        cjk = len(CJK.findall(word))
        if cjk:
            total += len(_LATIN_RUN.findall(CJK.sub(" ", word))) + cjk / CJK_PER_WORD
        else:
            total += 1
    return total
