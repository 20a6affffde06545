"""What the store agrees to write: the do-not-write guard's verdict and the size limit."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.entry_files import MAX_ENTRY_BYTES, entry_to_toml
from memdesk.core.storage.errors import GuardRefused, StoreError, TooLarge

# Texts this process's guard let through unflagged (by `guard_verdicts.text_key`), until
# the commit that writes them notes them for `memdesk context` (`note_written`).
_PASSED: dict[str, None] = {}
_PASSED_MAX = 4096
# The guard's version as this process loaded it (worked out at its first screen).
_VERSION: list[str] = []


def screened(entry: Entry, cleared: str = "") -> Entry:
    """The entry as it will be written, or GuardRefused / TooLarge."""
    from memdesk.core.guard import screen

    verdict = screen(entry, cleared=cleared)
    if verdict.entry is None:
        raise GuardRefused(verdict.reasons or ["refused"])
    # Validate and normalise exactly as a read from disk would (trimmed summary,
    # known kinds...), so the journal's after-state is what the file reads back as.
    checked = Entry.from_dict(verdict.entry.to_dict())
    # A file the store would refuse to read must not be written (only big texts
    # can come near the limit: the others skip the extra serialisation).
    rough = len(checked.summary) + sum(map(len, checked.facts)) + len(checked.source.excerpt)
    if rough * 4 > MAX_ENTRY_BYTES:
        size = len(entry_to_toml(checked))
        if size > MAX_ENTRY_BYTES:
            raise TooLarge(size)
    if "suspicious" not in checked.flags:
        _passed(checked)
    return checked


def _passed(entry: Entry) -> None:
    from memdesk.core.guard_verdicts import guard_version, text_key

    if not _VERSION:
        _VERSION.append(guard_version())
    if len(_PASSED) >= _PASSED_MAX:
        _PASSED.clear()  # an import of thousands: the context screens what it shows
    _PASSED[text_key(entry)] = None


def note_written(index_dir: Path, written: Iterable[Entry]) -> None:
    """After a commit: keep, for `memdesk context`, that this process's guard let these
    entries' texts through (those it screened as they are written), so the next
    session's hook does not screen them again (best effort: a cache)."""
    if not _PASSED or not _VERSION:
        return
    from memdesk.core.guard_verdicts import note_passed, text_key

    keys = [key for key in map(text_key, written) if key in _PASSED]
    for key in keys:
        del _PASSED[key]
    with contextlib.suppress(OSError):
        note_passed(index_dir, _VERSION[0], keys)


def cleared_of(current: Entry) -> str:
    """The fingerprint a person vouched for on `current` ("" if none); the guard is
    imported here, at the first write, so commands that only read never load it."""
    from memdesk.core.guard import CLEARED_FLAG

    return current.flags.get(CLEARED_FLAG, "")


def check_flag_name(name: str) -> None:
    """StoreError unless `name` is a flag the guard sets."""
    from memdesk.core.guard import FLAG_NAMES

    if name not in FLAG_NAMES:
        raise StoreError(f"unknown flag {name!r}; the guard sets: {', '.join(FLAG_NAMES)}")


def unflagged(current: Entry, name: str) -> Entry:
    """`current` without the guard's flags, vouched for as it reads now: screened with
    its fingerprint cleared, so the flag stays gone until the text changes."""
    from memdesk.core.guard import FLAG_NAMES, fingerprint

    if name not in current.flags:
        raise StoreError(f"entry {current.id} has no {name!r} flag")
    wanted = current.copy()
    for flag in FLAG_NAMES:
        wanted.flags.pop(flag, None)
    return screened(wanted, cleared=fingerprint(current))
