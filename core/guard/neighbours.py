"""Secrets that only show when neighbouring texts are read together.

A key pasted over two chat messages, "the password is" in one message and the value in
the next, a PEM key appended to MEMORY.md one line at a time: each piece alone looks
harmless. These helpers redact the joined neighbourhood and carry the result back to
the pieces.

- `redact_across(a, b)`: two consecutive texts (the end of one, the start of the next).
- `redact_across_messages(messages)`: the same over a conversation, on copies.
- `multiline_secret_lines(lines)`: which lines of a run belong to a secret that spans
  lines (the caller refuses those lines).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from memdesk.core.guard.secrets import ALREADY, redact_text

WINDOW = 400  # characters on each side of a boundary that are read together
_EDGE_WORD = re.compile(
    r"(?i)(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?|auth(?:orization)?|bearer|"
    r"密码|口令|密钥|秘钥|令牌|私钥|凭证)\W{0,3}(?:is|was|are|=|:|是|为|：)?\W{0,3}$"
)

_WORD_NEAR_END = re.compile(
    r"(?i)(?:pass(?:word|wd|phrase)?|pwd|\bpw\b|secret|token|credentials?|creds|log-?in|"
    r"user(?:name)?|auth|密码|密碼|口令|密钥|密鑰|秘钥|令牌|私钥|凭证|憑證|账号|帳號|帐号|账户|帳戶)"
)


def _may_cross(a: str, b: str) -> bool:
    """Cheap test before reading two texts together: a word cut at the boundary (both
    sides touch it with a long run of token characters), or a secret-ish word ending
    one text while the next starts with a value."""
    tail_run = len(a) - len(a.rstrip(_TOKEN_CHARS))
    head_run = len(b) - len(b.lstrip(_TOKEN_CHARS))
    if tail_run >= 4 and head_run >= 4:
        return True
    if "-----" in a[-WINDOW:] or "-----" in b[:WINDOW]:
        return True  # key block edges
    if head_run >= 4 and bool(_EDGE_WORD.search(a[-40:].rstrip())):
        return True
    # A credential told over the boundary with a user name or separator between the
    # word and the value ("the login is root" | " / <value>", "账号 root，密碼" | "：<value>"):
    # a secret-ish word near the end of one text and a value within the next's first words.
    value_near = re.search(rf"[{re.escape(_TOKEN_CHARS)}]{{6,}}", b[:24])
    return value_near is not None and bool(_WORD_NEAR_END.search(a[-60:]))


_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~!@#$%^&*"
_SEPARATORS = ("", "\n")


class HasText(Protocol):
    """A message record: a dataclass (copied with `dataclasses.replace`) with text."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    text: str
    kind: str


M = TypeVar("M", bound=HasText)


def _changed_spans(original: str, redacted: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the parts of `original` that redaction replaced; pieces
    split by a few coincidentally equal characters are merged."""
    matcher = difflib.SequenceMatcher(None, original, redacted, autojunk=False)
    spans: list[list[int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if spans and i1 - spans[-1][1] <= 6:
            spans[-1][1], spans[-1][3] = i2, j2
        else:
            spans.append([i1, i2, j1, j2])
    out: list[tuple[int, int, str]] = []
    for i1, i2, j1, j2 in spans:
        found = ALREADY.search(redacted, max(0, j1 - 24), j2 + 24)
        kind = found.group(0)[len("[REDACTED:") : -1] if found else "secret"
        out.append((i1, i2, kind))
    return out


def redact_across(a: str, b: str) -> tuple[str, str, int]:
    """Redact what only shows when the end of `a` and the start of `b` are read
    together; returns (a, b, how many secrets)."""
    if not a or not b or not _may_cross(a, b):
        return a, b, 0
    found = 0
    for sep in _SEPARATORS:
        tail, head = a[-WINDOW:], b[:WINDOW]
        joined = tail + sep + head
        redacted, n = redact_text(joined)
        if not n:
            continue
        tail_alone, head_alone = redact_text(tail)[0], redact_text(head)[0]
        if redacted == tail_alone + sep + head_alone:
            continue
        boundary, resume = len(tail), len(tail) + len(sep)
        new_tail, new_head = tail, head
        # Right to left, so earlier offsets stay valid.
        for start, end, kind in reversed(_changed_spans(joined, redacted)):
            marker = f"[REDACTED:{kind}]"
            in_tail = (start, min(end, boundary)) if start < boundary else None
            in_head = (max(start, resume) - resume, end - resume) if end > resume else None
            crosses = in_tail is not None and in_head is not None
            if not crosses:
                # A span inside the separator alone is in neither message: nothing to check.
                piece = (
                    tail[in_tail[0] : in_tail[1]]
                    if in_tail
                    else head[in_head[0] : in_head[1]]
                    if in_head
                    else ""
                )
                alone = tail_alone if in_tail else head_alone
                if not piece.strip() or piece not in alone:
                    continue  # the piece alone is redacted anyway
            if in_head is not None and in_head[1] > in_head[0]:
                new_head = new_head[: in_head[0]] + marker + new_head[in_head[1] :]
            if in_tail is not None and in_tail[1] > in_tail[0]:
                new_tail = new_tail[: in_tail[0]] + marker + new_tail[in_tail[1] :]
            found += 1
        a = a[: len(a) - len(tail)] + new_tail
        b = new_head + b[len(head) :]
    return a, b, found


def redact_across_messages(messages: Sequence[M]) -> list[M]:
    """Copies of the text messages with secrets split between neighbours redacted."""
    out = list(messages)
    previous = -1
    for index, message in enumerate(out):
        if message.kind != "text" or not message.text:
            continue
        if previous >= 0:
            a, b, n = redact_across(out[previous].text, message.text)
            if n:
                out[previous] = dataclasses.replace(out[previous], text=a)
                out[index] = dataclasses.replace(message, text=b)
        previous = index
    return out


def multiline_secret_lines(lines: Sequence[str]) -> set[int]:
    """Indexes of lines that belong to a secret only visible across lines (a key block
    appended line by line, a `password:` whose value is on the next line)."""
    if len(lines) < 2:
        return set()
    joined = "\n".join(lines)
    redacted, n = redact_text(joined)
    if not n:
        return set()
    alone = [redact_text(line)[0] for line in lines]
    if redacted == "\n".join(alone):
        return set()
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    hit: set[int] = set()
    for start, end, _kind in _changed_spans(joined, redacted):
        touched = [i for i, s in enumerate(starts) if s < end and s + len(lines[i]) + 1 > start]
        piece = joined[start:end]
        if len(touched) > 1 or any(piece.strip() and piece in alone[i] for i in touched):
            hit.update(touched)
    return hit
