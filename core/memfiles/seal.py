"""No secret value in a manifest: lines holding one are sealed before it is saved.

A manifest (`.memdesk/files/*.json`) travels with the repository, and it keeps each
block's text so that the adopted file renders byte for byte. So before a manifest is
written, every line of a block's text or of `rendered` that holds a secret (alone, or
with its neighbours: a key block, a value on the line after `password:`) is replaced by
its redacted form, and a salted, slow digest of the line is kept beside it. When the
manifest is read, each sealed line is looked up in the managed file itself: a line of
the file whose digest matches gives the original bytes back, so rendering keeps the
file as it is. A sealed line the file no longer has (someone removed it, or it was a
candidate held out of the file) stays redacted: if it is written again, it is written
redacted.

The digest is PBKDF2-SHA256 with a random salt per manifest: a long random token cannot
be found from it, but a short password can be guessed offline as from any hash; the
guard redacts those in entries too, so the manifest says no more than the entry.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from functools import lru_cache

from memdesk.core.memfiles.blocks import split_lines

ITERATIONS = 10_000
MULTILINE = "[REDACTED:secret]"  # a line that holds a secret only with its neighbours

Seals = list[list[object]]  # [[line index, digest], ...] as stored in JSON


def new_salt() -> str:
    return secrets.token_hex(16)


@lru_cache(maxsize=4096)
def digest(line: str, salt: str) -> str:
    raw = hashlib.pbkdf2_hmac("sha256", line.encode("utf-8"), salt.encode("ascii"), ITERATIONS)
    return raw.hex()[:32]


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def secret_lines(bare: Sequence[str]) -> dict[int, str]:
    """Line index -> its redacted form, for each line holding a secret (a copy)."""
    return dict(_secret_lines(tuple(bare)))


# A long-lived process (the desk, the watcher) saves and reads the same manifests again
# and again: the scan of unchanged text is remembered.
@lru_cache(maxsize=64)
def _secret_lines(bare: tuple[str, ...]) -> dict[int, str]:
    from memdesk.core.guard import multiline_secret_lines, redact_text

    out: dict[int, str] = {}
    for index, line in enumerate(bare):
        redacted, found = redact_text(line)
        if found:
            out[index] = redacted
    for index in multiline_secret_lines(list(bare)):
        out.setdefault(index, MULTILINE)
    return out


def seal(text: str, salt: str) -> tuple[str, Seals]:
    """(`text` with each secret line redacted, the seals that say which and whose digest)."""
    (out,) = seal_many([text], salt)
    return out


def seal_many(texts: Sequence[str], salt: str) -> list[tuple[str, Seals]]:
    """`seal` of consecutive texts (a manifest's blocks) read as one: a secret whose lines
    fall in two blocks is found as it is in the file."""
    split = [split_lines(text) for text in texts]
    bare = [_bare(line) for lines in split for line in lines]
    found = secret_lines(bare) if bare else {}
    out: list[tuple[str, Seals]] = []
    first = 0
    for lines in split:
        seals: Seals = []
        for index in range(len(lines)):
            redacted = found.get(first + index)
            if redacted is None:
                continue
            seals.append([index, digest(bare[first + index], salt)])
            lines[index] = redacted + lines[index][len(bare[first + index]) :]
        out.append(("".join(lines), seals))
        first += len(lines)
    return out


def as_seals(value: object) -> Seals:
    """Seals as read from JSON; anything that is not one is dropped."""
    out: Seals = []
    if not isinstance(value, list):
        return out
    for item in value:
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and isinstance(item[1], str)
        ):
            out.append([item[0], item[1]])
    return out


class Source:
    """The managed file's lines, by digest, computed once per file and salt."""

    def __init__(self, text: str, salt: str) -> None:
        bare = [_bare(line) for line in split_lines(text)]
        self.by_digest = {digest(bare[i], salt): bare[i] for i in secret_lines(bare)}

    def unseal(self, text: str, seals: Seals) -> str:
        if not seals:
            return text
        lines = split_lines(text)
        for index, wanted in seals:
            if not isinstance(index, int) or not 0 <= index < len(lines):
                continue
            original = self.by_digest.get(str(wanted))
            if original is not None:
                lines[index] = original + lines[index][len(_bare(lines[index])) :]
        return "".join(lines)


__all__ = ["ITERATIONS", "Seals", "Source", "as_seals", "digest", "new_salt", "seal", "seal_many"]
