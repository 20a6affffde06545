"""Secrets recognised by the words around them rather than by their format.

- a password (or token, key...) stated in prose: "the staging database password is
  hunter2x!", "密码是 Tr0ub4dor";
- a long hex string (32-128 digits: 40, 48, 64...) or a high-entropy token near a
  secret-ish word ("webhook signing secret 9f8e...", "token: AbC9...");
- a 40-character AWS-style secret key (mixed-case base64), with or without its key id;
- a block of base64 lines (the body of a key whose BEGIN line is elsewhere).

Each finder is `(text) -> text with [REDACTED:kind]`, plus the number of redactions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

from memdesk.core.guard.hanzi import simplified
from memdesk.core.guard.secret_rules import PLACEHOLDER

SECRET_WORD = re.compile(
    r"(?i)(?:pass(?:word|wd|phrase|code)?|pwd|secret|token|api[ _-]?key|apikey|access[ _-]?key|"
    r"private[ _-]?key|signing[ _-]?key|credential|auth|bearer|signature|hmac|salt|cookie|session|"
    r"\bkey\b|密钥|秘钥|令牌|密码|口令|凭证|凭据|私钥)"
)
# Words that say a hex string is a checksum or a commit, not a secret.
_NOT_SECRET_HEX = re.compile(
    r"(?i)(?:commit|sha(?:1|256|512)?|checksum|digest|revision|\brev\b|md5|etag|hash|git|merge|"
    r"fingerprint|uuid|build id|提交|哈希|校验)"
)

_PROSE_EN = re.compile(
    r"(?i)\b(?P<key>pass(?:word|phrase|code)?|passwd|pwd|pw|pin(?:\s+code)?|secret(?:\s+key)?|"
    r"api[\s_-]?key|access[\s_-]?key|private[\s_-]?key|(?:auth|access|bearer|api|bot|deploy|refresh|"
    r"personal\s+access|session)?\s*token|credentials?)\b"
    r"(?:\s+(?:for|of|on|to|in|at)(?:\s+[\w.@:/-]+){1,3}?)?"
    r"\s*(?:\bis\b|\bwas\b|\bare\b|=|:|\bbe\b|\bis\s+now\b|\bis\s+set\s+to\b|\bset\s+to\b|"
    r"\bchanged\s+to\b|\breads?\b|\bbecomes?\b)\s*[:=]?\s*"
    r"[\"'“‘`]?(?P<value>[^\s\"'”’`]{4,})"
)
# Written in Simplified: Traditional text is folded first (hanzi.simplified, OpenCC's
# tw2sp: 密碼 -> 密码, 金鑰 -> 密钥, 權杖 -> 权杖, 設定為 -> 设置为).
_PROSE_ZH = re.compile(
    r"(?i)(?P<key>密码|口令|密钥|秘钥|私钥|金钥|访问令牌|令牌|权杖|通行码|通行密码|凭证|凭据|"
    r"token|api\s*key)"
    r"(?:现在|目前|已经|都|也|就)?"
    r"(?P<sep>\s*(?:是|为|：|:|=|设为|设置为|设定为|设成|改成|改为|换成|用的是|叫做?)\s*|\s+)"
    r"[\"'“‘`「]?(?P<value>[\x21-\x7e]{4,})"
)
_ZH_TECH_WORDS = frozenset(
    {"base64", "json", "string", "hex", "jwt", "uuid", "utf8", "utf-8", "ascii", "bearer",
     "null", "none", "env", "token", "oauth", "sha256", "md5", "https", "http"}
)  # fmt: skip
_HEX = re.compile(r"(?<![0-9A-Za-z_])[0-9a-fA-F]{32,128}(?![0-9A-Za-z_])")
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_.~-])[A-Za-z0-9+/=_.~-]{20,}(?![A-Za-z0-9+/=_.~-])")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_BASE64_LINE = r"[ \t]*[A-Za-z0-9+/]{40,100}={0,2}[ \t]*"
_BASE64_BLOCK = re.compile(r"(?m)(?:^" + _BASE64_LINE + r"\n){2,}^" + _BASE64_LINE + r"$")
_PATH_SEGMENT = re.compile(r"[A-Za-z][a-z0-9_.-]*|[a-z0-9_.-]+|[A-Z0-9_.-]+")
_TRAIL = ".,;:)]}>!?"


def mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def looks_like_path_or_word(value: str) -> bool:
    """`src/app/Main.tsx`, `snake_case_name`, `some-long-kebab-word`, a UUID (session
    and message ids name things, they grant nothing): not a secret."""
    if value.startswith(("http", "/", "./", "~", "[REDACTED")) or _UUID.fullmatch(value):
        return True
    parts = re.split(r"[/.]", value.strip("/."))
    if len(parts) > 1 and all(_PATH_SEGMENT.fullmatch(p) for p in parts if p):
        return True
    words = re.split(r"[_-]", value)
    return len(words) > 1 and all(w.isalpha() or not w for w in words)


def _case_flips(word: str) -> int:
    return sum(a.isupper() != b.isupper() for a, b in zip(word, word[1:], strict=False))


def passphrase_like(value: str) -> bool:
    """A password made of letters and hyphens: `Falcon-xQzvLtp` (a part in random case)
    or `correct-horse-battery-staple` (four words or more, or three long ones). Said
    after a password key word only: `auto-generated`, `per-user`, `write-only` and
    `iCloud-managed` stay words."""
    parts = value.split("-")
    if len(parts) < 2 or not all(p.isalpha() for p in parts):
        return False
    if any(_case_flips(p) >= 3 for p in parts):
        return True
    if len(parts) >= 4 and all(len(p) >= 3 for p in parts):
        return True
    return len(parts) == 3 and all(len(p) >= 4 for p in parts) and len(value) >= 15


def secret_like(value: str, *, password: bool = False) -> bool:
    """A stated value that is a credential rather than a word ("hunter2x!", not "stored")."""
    if len(value) < 4 or PLACEHOLDER.match(value):
        return False
    if password and passphrase_like(value):
        return True
    if value.isdigit():
        return password and len(value) >= 6
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(c in "!@#$%^&*+=?~|" for c in value)
    if value.isalpha() and (value.islower() or value.istitle() or value.isupper()):
        return False  # a plain word ("stored", "Required", "NONE")
    if looks_like_path_or_word(value):
        return False
    return (letters and (digits or symbols)) or _classes(value) >= 2 and len(value) >= 8


_PROSE_WORDS = ("pass", "pw", "pin", "secret", "key", "token", "credential")


def _zh_value(m: re.Match[str]) -> str | None:
    """The value a Chinese key word states, when it reads as a credential."""
    value = m.group("value").rstrip(".,;:)]}")
    if not m.group("sep").strip():  # "密码 X": a Chinese key word, a value that reads as one
        chinese = not m.group("key").isascii()
        ok = chinese and value[:1].isalnum() and secret_like(value, password=True)
        return value if ok else None
    ok = (
        len(value) >= 4
        and not PLACEHOLDER.match(value)
        and value.lower() not in _ZH_TECH_WORDS
        and (passphrase_like(value) or not looks_like_path_or_word(value))
        and (not value.isdigit() or len(value) >= 6)
    )
    return value if ok else None


def _is_password(key: str) -> bool:
    return any(w in key.lower() for w in ("pass", "pwd", "pin", "密码", "口令", "通行"))


def _redact_prose(text: str) -> tuple[str, int]:
    count = 0

    def replace(m: re.Match[str], *, zh: bool) -> str:
        nonlocal count
        password = _is_password(m.group("key"))
        if zh:
            found = _zh_value(m)
        else:
            found = m.group("value").rstrip(_TRAIL)
            found = found if secret_like(found, password=password) else None
        if found is None:
            return m.group(0)
        count += 1
        start = m.start("value") - m.start(0)
        whole = m.group(0)
        return (
            whole[:start] + mark("password" if password else "secret") + whole[start + len(found) :]
        )

    if len(text) < 2000:
        text = _PROSE_EN.sub(lambda m: replace(m, zh=False), text)
    else:  # long text: only around the key words
        pieces: list[str] = []
        last = 0
        for end in _word_ends(text, _PROSE_WORDS):
            if end < last:
                continue
            m = _PROSE_EN.search(text, max(last, end - 40), min(len(text), end + 400))
            if m is None or m.start() > end:
                continue
            pieces += [text[last : m.start()], replace(m, zh=False)]
            last = m.end()
        text = "".join([*pieces, text[last:]]) if pieces else text
    if not text.isascii():
        text = _PROSE_ZH.sub(lambda m: replace(m, zh=True), text)
        text, n = _redact_folded(text)
        count += n
    return text, count


def _redact_folded(text: str) -> tuple[str, int]:
    """`_PROSE_ZH` on the Simplified fold of `text` (Traditional: 密碼：X). A value is
    ASCII, which the fold leaves as it is: the n-th occurrence of a value in the fold is
    its n-th occurrence in `text`, so the redaction is made there."""
    folded = simplified(text)
    if folded == text:
        return text, 0
    spans: list[tuple[int, int, str]] = []
    for m in _PROSE_ZH.finditer(folded):
        value = _zh_value(m)
        if value is None:
            continue
        nth = folded.count(value, 0, m.start("value"))
        at = -1
        for _ in range(nth + 1):
            at = text.find(value, at + 1)
            if at < 0:
                break
        if at >= 0:
            spans.append(
                (at, at + len(value), "password" if _is_password(m.group("key")) else "secret")
            )
    done = 0
    limit = len(text) + 1
    for start, end, kind in sorted(set(spans), reverse=True):
        if end <= limit:  # overlapping finds: the first one only
            text, limit, done = text[:start] + mark(kind) + text[end:], start, done + 1
    return text, done


def _near_secret_word(text: str, start: int, end: int, before: int = 48, after: int = 24) -> bool:
    window = text[max(0, start - before) : start] + " " + text[end : end + after]
    return bool(SECRET_WORD.search(window))


def _redact_hex(text: str) -> tuple[str, int]:
    count = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal count
        value = m.group(0)
        if value.isdigit() or not _near_secret_word(text, m.start(), m.end()):
            return value
        if _NOT_SECRET_HEX.search(text[max(0, m.start() - 24) : m.start()]):
            return value
        count += 1
        return mark("hex-secret")

    return _HEX.sub(replace, text), count


def _word_ends(text: str, words: tuple[str, ...]) -> list[int]:
    """Where each occurrence of these lower-case words ends (plain `find`: fast)."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer: no offsets
        return [0]
    ends: list[int] = []
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            ends.append(at + len(word))
            at = lowered.find(word, at + 1)
    return sorted(ends)


def _redact_entropy(text: str) -> tuple[str, int]:
    """High-entropy tokens starting within 40 characters after a secret-ish word (only
    those stretches are scanned)."""
    spans: list[tuple[int, int]] = []
    for end in _word_ends(text, _SECRET_WORDS_LOWER):
        for m in _TOKEN.finditer(text, end, min(len(text), end + 40 + 400)):
            if m.start() > end + 40:
                break
            if spans and m.start() < spans[-1][1]:
                continue
            value = m.group(0).rstrip(".")
            if _classes(value) < 2 or not any(c.isdigit() for c in value):
                continue
            if "[REDACTED" in text[max(0, m.start() - 10) : m.start()]:
                continue
            if looks_like_path_or_word(value) or entropy(value) < 3.5:
                continue
            spans.append((m.start(), m.start() + len(value)))
    spans = sorted(set(spans))
    kept: list[tuple[int, int]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    for start, stop in reversed(kept):
        text = text[:start] + mark("token") + text[stop:]
    return text, len(kept)


def _redact_aws_secret(text: str) -> tuple[str, int]:
    count = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal count
        value = m.group(0)
        if _classes(value) < 3 or entropy(value) < 4.0 or looks_like_path_or_word(value):
            return value
        count += 1
        return mark("aws-secret")

    return _AWS_SECRET.sub(replace, text), count


def _redact_base64_block(text: str) -> tuple[str, int]:
    count = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal count
        lines = m.group(0).split("\n")
        if sum(_classes(line) >= 3 for line in lines) * 2 < len(lines):
            return m.group(0)
        count += 1
        return mark("private-key")

    return _BASE64_BLOCK.sub(replace, text), count


_SECRET_WORDS_LOWER = (
    "pass", "pwd", "secret", "token", "key", "credential", "auth", "bearer", "signature",
    "hmac", "salt", "cookie", "session", "密钥", "秘钥", "令牌", "密码", "口令", "凭证", "凭据", "私钥",
    "密碼", "鑰", "權杖", "权杖", "通行码", "通行碼", "憑證", "憑據", "金钥",
)  # fmt: skip


def _has_secret_word(lowered: str) -> bool:
    return any(word in lowered for word in _SECRET_WORDS_LOWER)


_DIGIT = re.compile(r"\d")


def _has_digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


# (name, cheap pre-check, finder), run in this order after the format rules.
CONTEXT_FINDERS: list[tuple[str, Callable[[str, str], bool], Callable[[str], tuple[str, int]]]] = [
    ("base64-block", lambda t, low: "\n" in t, _redact_base64_block),
    (
        "prose",
        lambda t, low: (
            any(w in low for w in ("pass", "pw", "pin", "secret", "key", "token", "credential"))
            or (not t.isascii() and _has_secret_word(low))
        ),
        _redact_prose,
    ),
    ("hex", lambda t, low: _has_digit(t) and _has_secret_word(low), _redact_hex),
    ("aws-secret", lambda t, low: len(t) >= 40 and _has_digit(t), _redact_aws_secret),
    (
        "entropy",
        lambda t, low: len(t) >= 20 and _has_digit(t) and _has_secret_word(low),
        _redact_entropy,
    ),
]
