"""Secrets appended to MEMORY.md: how a line is overwritten in place, and which new
lines belong to a secret spanning lines (a key block appended line by line)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from memdesk.core import plain_file


class SecretCandidate(Protocol):
    """A line read from a memory file, and where it is (`memory_md.ExternalLine`)."""

    text: str
    path: Path | None
    offset: int
    multiline_secret: bool


SCRUB_KINDS = {
    "begin": "-----BEGIN PRIVATE KEY-----",
    "end": "-----END PRIVATE KEY-----",
    # What a scrubbed line that ended in a token's first half stands for when the next
    # line is read with it (a known prefix, a body too short for the whole token).
    "token-head": "ghp_ScrubbedTokenHead",
}
_SCRUBBED = re.compile(r"^<!-- ?redacted:([a-z0-9-]+)")


def scrubbed_line(length: int, kind: str) -> bytes:
    """A comment line of exactly `length` bytes that says a secret was removed."""
    for text in (f"<!-- redacted:{kind} -->", f"<!--redacted:{kind}-->"):
        if len(text) <= length:
            return (text + " " * (length - len(text))).encode("ascii")
    if length >= 7:
        return ("<!--" + " " * (length - 7) + "-->").encode("ascii")
    return b" " * length


def scrub_file(path: Path, raw: bytes, kind: str) -> int:
    """Overwrite every whole-line copy of `raw` in `path` by a comment of the same length;
    how many. In place (byte offsets and appenders holding the file open stay valid),
    except when the file has another name (a hard link, which a tar or a copy can bring
    from outside the working directory): then the scrubbed text goes to a new inode by
    atomic replace, and the other name keeps what it had."""
    from memdesk.core.atomic import atomic_write_bytes

    with plain_file.open_plain(path):  # a FIFO is never opened to write
        pass
    with open(path, "r+b") as handle:
        data = handle.read()
        spots: list[int] = []
        at = data.find(raw)
        while at >= 0:
            end = at + len(raw)
            if (at == 0 or data[at - 1 : at] == b"\n") and data[end : end + 1] in (b"\n", b"\r"):
                spots.append(at)
            at = data.find(raw, end)
        if not spots:
            return 0
        line = scrubbed_line(len(raw), kind)
        if os.fstat(handle.fileno()).st_nlink > 1:
            scrubbed = bytearray(data)
            for at in spots:
                scrubbed[at : at + len(raw)] = line
            handle.close()
            atomic_write_bytes(path, bytes(scrubbed))
            return len(spots)
        for at in spots:
            handle.seek(at)
            handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
    return len(spots)


def scrub_kind(text: str) -> str:
    """What a scrubbed line says it was (key block edges keep their role)."""
    if "-----BEGIN" in text and "PRIVATE KEY" in text:
        return "key-begin"
    if "-----END" in text and "PRIVATE KEY" in text:
        return "key-end"
    from memdesk.core.guard.secret_families import TOKEN_HEAD

    if TOKEN_HEAD.search(text):
        return "token-head"  # the rest of the token may be appended on the next line
    return "secret"


def _context_text(line: str) -> str:
    """A line as the secret scan reads it: a scrubbed key line stands for what it was,
    so the rest of a key block appended later is still seen as inside the block."""
    found = _SCRUBBED.match(line.strip())
    if not found:
        return line
    kind = found.group(1)
    if kind.endswith("-begin"):
        return SCRUB_KINDS["begin"]
    if kind.endswith("-end"):
        return SCRUB_KINDS["end"]
    if kind == "token-head":
        return SCRUB_KINDS["token-head"]
    return ""


# A line that can be a piece of a secret spanning lines: a key block's edge or body, a
# line ending in `:`/`=` (a value on the next line), or one starting with a run of letters
# and digits (the rest of a token cut at the line's end). Only these make a file be read
# whole.
_FRAGMENT = re.compile(
    r"-----(?:BEGIN|END)|PRIVATE KEY|PuTTY-User-Key|^[A-Za-z0-9+/]{40,}={0,2}$|"
    r"<!-- ?redacted:|[:=：]\s*$|"
    r"^(?:[-*+>]\s+)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{6,}(?![A-Za-z0-9_-])"
)
_CONTEXT_LINES = 120


def mark_multiline_secrets(found: Sequence[SecretCandidate]) -> None:
    """Mark new lines that belong to a secret spanning lines, reading each file whole
    (lines ingested earlier are the context of lines appended now)."""
    if not found:
        return  # the guard is not imported for nothing (≈ 0.5 s of CPU at a desk's start)
    from memdesk.core.guard import multiline_secret_lines

    # memory_md imports this module; its line splitter is asked for at call time.
    from memdesk.core.memory_md import split_lines

    # Every new line of a file with a fragment is a candidate: a key's last body line is
    # short and looks like any word, yet belongs to the key.
    by_path: dict[Path, dict[int, SecretCandidate]] = {}
    fragments: set[Path] = set()
    for line in found:
        if line.path is not None:
            by_path.setdefault(line.path, {})[line.offset] = line
            if _FRAGMENT.search(line.text):
                fragments.add(line.path)
    for path, lines in by_path.items():
        if path not in fragments:
            continue
        try:
            data = plain_file.read_bytes(path, 16 << 20)
        except OSError:
            continue
        numbered = split_lines(data[: data.rfind(b"\n") + 1])
        # Only the stretch from a little before the first new fragment: a key block is
        # tens of lines, and the whole file of a busy agent is thousands.
        first = next((i for i, (offset, _) in enumerate(numbered) if offset in lines), 0)
        numbered = numbered[max(0, first - _CONTEXT_LINES) :]
        texts = [_context_text(raw.decode("utf-8", "replace")) for _, raw in numbered]
        for index in multiline_secret_lines(texts):
            secret = lines.get(numbered[index][0])
            if secret is not None:
                secret.multiline_secret = True
