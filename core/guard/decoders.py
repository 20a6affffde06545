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
    {
        "the", "and", "to", "of", "a", "in", "is", "you", "your", "all", "for", "this", "that",
        "with", "it", "me", "my", "on", "be", "are", "not", "do", "now", "from", "any", "every",
        "what", "as", "or", "at", "by", "if", "then", "them", "their", "these", "those", "will",
        "can", "must", "ignore", "previous", "prior", "instructions", "rules", "send", "file",
        "key", "keys", "token", "secret", "password", "run", "command", "user", "system",
        "prompt", "reveal", "print", "email", "upload", "forget", "above", "always", "never"
    }
)  # fmt: skip


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


_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


def rot13_reading(text: str) -> str | None:
    """The rot13 reading of `text` when it reads as English better than the text does
    (at least three more common words)."""
    words = _WORD.findall(text.lower())
    if len(words) < 3:
        return None
    gained = sum(1 for word in words if word.translate(_ROT13) in _COMMON) - sum(
        1 for word in words if word in _COMMON
    )
    return text.translate(_ROT13) if gained >= 3 else None


# Unicode tag characters (U+E0020..U+E007E) mirror ASCII and render as nothing: text
# written in them is invisible to a person and plain to a model.
_TAGS = re.compile("[\U000e0020-\U000e007e]{4,}")
# Digits and signs standing for letters ("1gn0r3 4ll pr3v10us").
_LEET = str.maketrans("013457@$", "oieastas")
_LEET_WORD = re.compile(
    r"\b(?=[A-Za-z0-9@$]*[A-Za-z])(?=[A-Za-z0-9@$]*[013457@$])[A-Za-z0-9@$]{3,}\b"
)


def tag_text(text: str) -> str | None:
    """The ASCII written in invisible Unicode tag characters, or None."""
    found = _TAGS.findall(text)
    if not found:
        return None
    return " ".join("".join(chr(ord(ch) - 0xE0000) for ch in run) for run in found)


def leet_reading(text: str) -> str | None:
    """`text` with digits read as the letters they stand for, when three or more words
    mix letters and such digits (a version number or a hash alone does not count)."""
    words = _LEET_WORD.findall(text)
    if len(words) < 3:
        return None
    return _LEET_WORD.sub(lambda m: m.group(0).lower().translate(_LEET), text)


def html_comments(text: str) -> list[str]:
    """The insides of HTML comments (an unclosed one runs to the end of the text)."""
    if "<!--" not in text:
        return []
    return [m.group(1).strip() for m in _HTML_COMMENT.finditer(text) if m.group(1).strip()][
        :MAX_DECODED
    ]
