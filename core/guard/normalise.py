"""Text as an attacker hopes the guard will not see it, made plain again.

Injection detection runs on `plain_text(text)` and on every variant `variants(text)`
gives: the same words with Unicode compatibility forms folded (NFKC: fullwidth ｉｇｎｏｒｅ
becomes ignore), invisible characters removed (zero-width spaces and joiners, soft
hyphens, bidi controls), Cyrillic and Greek letters that look like Latin ones folded to
them (іgnоrе with Cyrillic і and о), letters spaced apart joined ("i g n o r e"),
percent-encoded URL parts decoded, base64 and hex segments decoded when they decode to
text, a rot13 reading when it reads as English, the insides of HTML comments, text in
invisible Unicode tag characters, digits read as letters ("1gn0r3"), and
Traditional Chinese converted to Simplified (the Chinese patterns are written once).
Each `Reading` says whether it was hidden from a person reading the text as shown: a
decoding, a comment, or letters disguised as other characters.
"""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from dataclasses import dataclass

from memdesk.core.guard.decoders import (
    decoded_base64,
    decoded_hex,
    html_comments,
    leet_reading,
    rot13_reading,
    tag_text,
)
from memdesk.core.guard.hanzi import simplified

# Zero-width and other invisible format characters (category Cf) plus the soft hyphen
# and combining grapheme joiner: removed, they only hide words from a pattern.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]"
)

# Cyrillic and Greek letters drawn like Latin ones (lower and upper case).
_HOMOGLYPHS: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
    "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
    "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ո": "n", "ս": "u",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "γ": "y",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Latin letters from other blocks that NFKC keeps
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɩ": "i", "ʀ": "r", "ᴀ": "a", "ᴇ": "e", "ᴏ": "o",
}  # fmt: skip
_FOLD = str.maketrans(_HOMOGLYPHS)
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# Invisible characters between two letters: they split a word only to hide it (a
# zero-width joiner between emoji is how emoji are written, not a disguise).
_SPLIT_WORD = re.compile(
    "(?<=[^\\W\\d_])[\u00ad\u034f\u180e\u200b-\u200d\u2060-\u2064\ufeff]+(?=[^\\W\\d_])"
)

# "i g n o r e  p r e v i o u s": four or more single letters separated by one space.
_SPACED_LETTERS = re.compile(r"(?<![A-Za-z])(?:[A-Za-z][ .\-_]){3,}[A-Za-z](?![A-Za-z])")
_WORDS = re.compile(r"[^\W\d_]+")


def plain_text(text: str) -> str:
    """NFKC, invisible characters removed, look-alike letters folded to Latin."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    return text.translate(_FOLD)


def _join_spaced(text: str) -> str:
    return _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .\-_]", "", m.group(0)), text)


def disguised_letters(text: str) -> int:
    """How many letters of `text` are written as other characters: fullwidth or
    mathematical letters (NFKC makes them Latin), Cyrillic or Greek look-alikes inside a
    word that also holds Latin letters (a Greek or Russian word is a language, not a
    disguise), and words split by invisible characters."""
    if text.isascii():
        return 0
    count = len(_SPLIT_WORD.findall(text))
    for word in _WORDS.findall(_INVISIBLE.sub("", text)):
        if word.isascii():
            continue
        has_latin = any(ch.isascii() for ch in word)
        for ch in word:
            if ch.isascii():
                continue
            compat = unicodedata.normalize("NFKC", ch)
            if compat != ch and compat.isascii():
                count += 1  # fullwidth, mathematical, circled letters
            elif has_latin and ch in _HOMOGLYPHS:
                count += 1
    return count


@dataclass(frozen=True)
class Reading:
    """One way of reading a text; `hidden` when a person would not see it as shown."""

    text: str
    hidden: bool = False


def readings(text: str) -> list[Reading]:
    """Every reading of `text` the injection detector should see (the plain text first)."""
    plain = plain_text(text)
    out = [Reading(plain, hidden=disguised_letters(text) >= 2)]
    tagged = tag_text(text)
    if tagged is not None:
        out.append(Reading(tagged, hidden=True))
    joined = _join_spaced(plain)
    if joined != plain:
        out.append(Reading(joined, hidden=True))
    if "%" in plain and _PERCENT.search(plain):
        unquoted = urllib.parse.unquote(plain)
        if unquoted != plain:
            out.append(Reading(plain_text(unquoted), hidden=True))
    for decoded in decoded_base64(plain) + decoded_hex(plain):
        out.append(Reading(plain_text(decoded), hidden=True))
    turned = rot13_reading(plain)
    if turned is not None:
        out.append(Reading(turned, hidden=True))
    leet = leet_reading(plain)
    if leet is not None:
        out.append(Reading(leet, hidden=True))
    for comment in html_comments(plain):
        out.append(Reading(comment, hidden=True))
    chinese = [simplified(r.text) for r in out]
    out += [Reading(s, r.hidden) for r, s in zip(out, chinese, strict=True) if s != r.text]
    return out


def variants(text: str) -> list[str]:
    """The texts of `readings(text)`."""
    return [reading.text for reading in readings(text)]
