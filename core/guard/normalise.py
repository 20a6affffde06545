"""Text as an attacker hopes the guard will not see it, made plain again.

Injection detection runs on `plain_text(text)` and on every variant `variants(text)`
gives: the same words with Unicode compatibility forms folded (NFKC: fullwidth ｉｇｎｏｒｅ
becomes ignore), invisible characters removed (zero-width spaces and joiners, soft
hyphens, bidi controls), Cyrillic and Greek letters that look like Latin ones folded to
them (іgnоrе with Cyrillic і and о), letters spaced apart joined ("i g n o r e"),
percent-encoded URL parts decoded, and base64 segments decoded when they decode to text.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
import urllib.parse

# Zero-width and other invisible format characters (category Cf) plus the soft hyphen
# and combining grapheme joiner: removed, they only hide words from a pattern.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
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

# "i g n o r e  p r e v i o u s": four or more single letters separated by one space.
_SPACED_LETTERS = re.compile(r"(?<![A-Za-z])(?:[A-Za-z][ .\-_]){3,}[A-Za-z](?![A-Za-z])")
# A base64 run long enough to hide a sentence.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_MAX_DECODED = 20  # segments decoded per text: bounds the work on a long base64 blob


def plain_text(text: str) -> str:
    """NFKC, invisible characters removed, look-alike letters folded to Latin."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    return text.translate(_FOLD)


def _join_spaced(text: str) -> str:
    return _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .\-_]", "", m.group(0)), text)


def decoded_base64(text: str) -> list[str]:
    """Text hidden in base64 segments (standard or URL-safe) that decode to readable text."""
    out: list[str] = []
    for match in _BASE64.finditer(text):
        if len(out) >= _MAX_DECODED:
            break
        segment = match.group(0)
        if segment.isalpha() and (segment.islower() or segment.isupper()):
            continue  # one long word, not base64
        padded = segment + "=" * (-len(segment) % 4)
        try:
            raw = base64.b64decode(
                padded, altchars=b"-_" if "-" in segment or "_" in segment else None
            )
        except (binascii.Error, ValueError):
            continue
        try:
            decoded = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        printable = sum(1 for ch in decoded if ch.isprintable() or ch in "\n\t")
        if (
            decoded
            and printable / len(decoded) >= 0.95
            and re.search(r"[A-Za-z\u3400-\u9fff]{3}", decoded)
        ):
            out.append(decoded)
    return out


def variants(text: str) -> list[str]:
    """Every reading of `text` the injection patterns should see (the plain text first)."""
    plain = plain_text(text)
    out = [plain]
    joined = _join_spaced(plain)
    if joined != plain:
        out.append(joined)
    if "%" in plain and _PERCENT.search(plain):
        unquoted = urllib.parse.unquote(plain)
        if unquoted != plain:
            out.append(unquoted)
    for decoded in decoded_base64(plain):
        out.append(plain_text(decoded))
    return out
