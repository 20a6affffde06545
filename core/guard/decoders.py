"""Text hidden in an encoding, decoded when the decoding reads as text.

Each decoder returns the readable texts it finds (at most `MAX_DECODED` a text, so a
long blob costs bounded work): base64 segments (standard or URL-safe), hex runs (plain,
`\\x41`-escaped or space-separated), a rot13 reading when it has more common English
words than the original, and the insides of HTML comments (rendered Markdown hides
them from a person, an agent reading the raw file sees them). A decoding that is
binary, mostly unprintable or has no run of letters is not text and is dropped: a git
hash or a random token decodes to noise.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

MAX_DECODED = 20

# A base64 run long enough to hide a sentence.
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
# Eight or more hex bytes, written together, as \x escapes or separated by spaces.
_HEX = re.compile(
    r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])"
    r"|(?:\\x[0-9A-Fa-f]{2}){8,}"
    r"|(?<![0-9A-Fa-f])[0-9A-Fa-f]{2}(?:[ :][0-9A-Fa-f]{2}){7,}(?![0-9A-Fa-f])"
)
_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|$)", re.DOTALL)
_LETTERS = re.compile(r"[A-Za-z\u3400-\u9fff]{3}")
_WORD = re.compile(r"[a-z]+")
# The most frequent English words, and the words an instruction to an agent is made of.
_COMMON = frozenset(
    "the and to of a in is you your all for this that with it me my on be are not do "
    "now from any every what as or at by if then them their these those will can must "
    "ignore previous prior instructions rules send file key keys token secret password "
    "run command user system prompt reveal print email upload forget above always never".split()
)


def _readable(raw: bytes) -> str | None:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not decoded:
        return None
    printable = sum(1 for ch in decoded if ch.isprintable() or ch in "\n\t")
    if printable / len(decoded) < 0.95 or not _LETTERS.search(decoded):
        return None
    return decoded


def decoded_base64(text: str) -> list[str]:
    """Text hidden in base64 segments (standard or URL-safe) that decode to readable text."""
    out: list[str] = []
    for match in _BASE64.finditer(text):
        if len(out) >= MAX_DECODED:
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
        decoded = _readable(raw)
        if decoded is not None:
            out.append(decoded)
    return out


def decoded_hex(text: str) -> list[str]:
    """Text hidden in hex runs that decode to readable text."""
    out: list[str] = []
    for match in _HEX.finditer(text):
        if len(out) >= MAX_DECODED:
            break
        digits = re.sub(r"\\x|[ :]", "", match.group(0))
        decoded = _readable(bytes.fromhex(digits))
        if decoded is not None:
            out.append(decoded)
    return out


def _common_words(text: str) -> int:
    return sum(1 for word in _WORD.findall(text.lower()) if word in _COMMON)


def rot13_reading(text: str) -> str | None:
    """The rot13 reading of `text` when it reads as English better than the text does."""
    letters = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    if letters < 16:
        return None
    turned = codecs.encode(text, "rot13")
    gained = _common_words(turned) - _common_words(text)
    return turned if gained >= 3 else None


def html_comments(text: str) -> list[str]:
    """The insides of HTML comments (an unclosed one runs to the end of the text)."""
    if "<!--" not in text:
        return []
    return [m.group(1).strip() for m in _HTML_COMMENT.finditer(text) if m.group(1).strip()][
        :MAX_DECODED
    ]
