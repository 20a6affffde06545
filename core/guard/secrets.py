"""Redaction: every secret in a text becomes `[REDACTED:<kind>]`.

`redact_text` runs the format rules (`secret_rules.py`), then `KEY=value` assignments and
passwords in URLs, then the rules that look at the words around a value
(`secret_context.py`). It is idempotent: redacting redacted text changes nothing.
`redact_data` does the same on every string inside JSON-like data (a saved conflict).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from memdesk.core.guard.secret_context import CONTEXT_FINDERS, mark
from memdesk.core.guard.secret_families import FAMILY_FINDERS, TOKEN_PREFIX
from memdesk.core.guard.secret_rules import (
    ASSIGNMENT,
    ASSIGNMENT_NEEDLES,
    ASSIGNMENT_TRIGGER,
    HOME_PATHS,
    PLACEHOLDER,
    PROVIDER_RULES,
    URL_PASSWORD,
    SecretRule,
)

REDACTED_PREFIX = "[REDACTED:"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
ALREADY = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


_ALL_NEEDLES = frozenset(n for rule in PROVIDER_RULES for n in rule.needles or ())
_ANY_NEEDLE = re.compile("|".join(re.escape(n) for n in sorted(_ALL_NEEDLES)))
# What the context rules and assignments need: a secret-ish word, a long run of token
# characters with a digit, or a non-ASCII text (Chinese key words).
_MAY_HOLD_CONTEXT_SECRET = re.compile(
    r"(?i)pass|pwd|secret|token|key|credential|auth|bearer|signature|hmac|salt|cookie|session|"
    r"dsn|webhook|\bpin\b|[A-Za-z0-9+/=_-]{20,}|[^\x00-\x7f]|://|"
    # the families of secret_families.py: a DSN's `@`, a tool's flags, login prose, hooks
    r"@|\s--?[A-Za-z]|hook|log ?in|sign ?in|cred|account|user|\bpw\b|[\w*.\]-]:(?:[\w.*@-]*:){3}|"
    + TOKEN_PREFIX
)


def _apply_rule(rule: SecretRule, text: str) -> str:
    if not rule.group_only:
        return rule.pattern.sub(mark(rule.kind), text)

    def replace(m: re.Match[str]) -> str:
        value = m.group("v")
        if value is None or value.startswith(REDACTED_PREFIX):
            return m.group(0)
        start, end = m.start("v") - m.start(0), m.end("v") - m.start(0)
        whole = m.group(0)
        return whole[:start] + mark(rule.kind) + whole[end:]

    return rule.pattern.sub(replace, text)


def _assignment(m: re.Match[str]) -> str:
    """`PASSWORD=...`, `"token": "..."`: redact the value unless it is a reference/placeholder."""
    key, value = m.group("key"), m.group("value").rstrip(".,:;)]}")
    if len(value) < 4 or PLACEHOLDER.match(value) or value.startswith(REDACTED_PREFIX):
        return m.group(0)
    if "session" in key.lower() and UUID.fullmatch(value):
        return m.group(0)  # an agent's session id (a UUID) names a log, it grants nothing
    upper = key.upper()
    if "AWS" in upper and "SECRET" in upper:
        kind = "aws-secret"
    elif "PASS" in upper or "PWD" in upper:
        kind = "password"
    elif "COOKIE" in upper or "SESSION" in upper:
        kind = "cookie"
    elif "KEY" in upper:
        kind = "api-key"
    elif "SECRET" in upper:
        kind = "secret"
    elif "DSN" in upper or "WEBHOOK" in upper:
        if "://" not in value:
            return m.group(0)
        kind = "url-secret"
    else:
        kind = "token"
    start = m.start("value") - m.start(0)
    whole = m.group(0)
    return whole[:start] + mark(kind) + whole[start + len(value) :]


def _redact_assignments(text: str) -> str:
    """ASSIGNMENT, tried only where its trigger (a key word right before `=`/`:`) is:
    run over a whole text, its leading word pattern backtracks over every word."""
    out: list[str] = []
    last = 0
    for trigger in ASSIGNMENT_TRIGGER.finditer(text):
        start = trigger.start()
        if start < last:
            continue
        while start > last and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
            start -= 1
        if start > last and text[start - 1] in "\"'":
            start -= 1
        m = ASSIGNMENT.match(text, start)
        if m is None:
            continue
        out.append(text[last : m.start()])
        out.append(_assignment(m))
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _url_password(m: re.Match[str]) -> str:
    password = m.group("pw")
    if password.startswith(REDACTED_PREFIX) or PLACEHOLDER.match(password):
        return m.group(0)
    return f"{m.group('scheme')}{m.group('user')}:{mark('url-password')}@"


def redact_text(text: str) -> tuple[str, int]:
    """Replace every secret in `text` by `[REDACTED:<kind>]`; returns (text, how many)."""
    if not text:
        return text, 0
    lowered = text.lower()
    if not _ANY_NEEDLE.search(lowered) and not _MAY_HOLD_CONTEXT_SECRET.search(text):
        return text, 0  # the common case: no format's needle, no digit run, no key word
    before = len(ALREADY.findall(text))
    present = {n for n in _ALL_NEEDLES if n in lowered}
    for rule in PROVIDER_RULES:
        if rule.needles is not None and present.isdisjoint(rule.needles):
            continue
        text = _apply_rule(rule, text)
    if ("=" in text or ":" in text) and any(n in lowered for n in ASSIGNMENT_NEEDLES):
        text = _redact_assignments(text)
    if "://" in text and "@" in text:
        text = URL_PASSWORD.sub(_url_password, text)
    lowered = text.lower()
    for _name, worth_it, finder in (*FAMILY_FINDERS, *CONTEXT_FINDERS):
        if worth_it(text, lowered):
            text, n = finder(text)
            if n:
                lowered = text.lower()
    return text, len(ALREADY.findall(text)) - before


def secret_kinds(text: str) -> list[str]:
    """The kinds of secret in `text`, one per occurrence; [] when clean."""
    redacted, count = redact_text(text)
    if not count:
        return []
    already = Counter(ALREADY.findall(text))
    kinds: list[str] = []
    for marker in ALREADY.findall(redacted):
        if already[marker]:
            already[marker] -= 1
        else:
            kinds.append(marker[len(REDACTED_PREFIX) : -1])
    return kinds


def redact_data(value: Any) -> tuple[Any, int]:
    """`redact_text` on every string inside lists and dicts (keys kept)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        total = 0
        out_list = []
        for item in value:
            new, n = redact_data(item)
            out_list.append(new)
            total += n
        return out_list, total
    if isinstance(value, dict):
        total = 0
        out_dict = {}
        for key, item in value.items():
            new, n = redact_data(item)
            out_dict[key] = new
            total += n
        return out_dict, total
    return value, 0


def shorten_home_paths(text: str) -> tuple[str, int]:
    """`/home/NAME/x`, `/Users/NAME/x`, `C:\\Users\\NAME\\x` -> `~/x` (names are personal)."""
    total = 0
    for pattern in HOME_PATHS:
        text, n = pattern.subn("~", text)
        total += n
    if total:
        text = text.replace("~\\", "~/")
    return text, total
