"""The current guard's verdict on the entries a context block is about to show.

An entry's `suspicious` flag is what the guard said when the entry was written. An entry
written before the guard knew a wording (before its meaning stage, on a machine
screening by rules alone, pulled from a branch, edited by hand) carries no flag although
the guard, as it is now, would flag it. A context block must never show such text: the
entries a block is about to show are screened again by the current guard
(`core/guard`: rules, plus the meaning model where it loads), and one it flags is left
out as if it carried the flag (`request.assemble_for_store` assembles again without it).
A person's clearance (`flags["cleared"]`, the fingerprint of the texts they vouched for)
holds as it does when the store writes.

Screening is cheap by rules, not by meaning (the model loads in about half a second),
so verdicts are kept (`core/guard_verdicts.py`: by a digest of the entry's texts and
flags, for one guard version), in memory and in `.memdesk/index/context-verdicts.json`;
the store notes there what it just wrote through the guard. A kept verdict never
imports the guard: a run whose entries were all screened before loads neither the guard
nor its model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.guard_verdicts import (
    VERDICTS_NAME,
    guard_version,
    read_verdicts,
    text_key,
    write_verdicts,
)

__all__ = ["VERDICTS_NAME", "GuardVerdicts", "flag_as", "guard_version", "screen_now"]


def screen_now(entry: Entry) -> str:
    """Why the current guard keeps `entry` out of a context block ("" if it does not):
    a `suspicious` finding in any field a person did not clear."""
    from memdesk.core.guard import CLEARED_FLAG, fingerprint, injection_in

    finding = injection_in(entry)
    if finding is None or not finding.suspicious:
        return ""
    cleared = entry.flags.get(CLEARED_FLAG, "")
    if cleared and set(fingerprint(entry).split(",")) <= set(cleared.split(",")):
        return ""  # a person read exactly these words and vouched for them
    return finding.reason


def _prepare(entries: Iterable[Entry]) -> None:
    """The meaning model's work for screening these entries, in one batch (it changes
    no verdict: `screen_now` then finds it cached)."""
    from memdesk.core.guard import prepare_screening

    prepare_screening(entries)


def _prepare_quietly(entries: list[Entry]) -> None:
    """`_prepare` in a background thread: any failure only means `flagged` does the
    work itself (and says what went wrong there)."""
    try:
        _prepare(entries)
    except Exception:  # noqa: BLE001 - decides nothing; the screen itself runs later
        pass


class GuardVerdicts:
    """Verdicts by text, kept at `path` (None: in memory only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._version: str | None = None
        self._kept: dict[str, str] | None = None
        self._seen: dict[str, str] = {}
        self.new = 0  # texts screened this run that the file did not hold
        self._warming: threading.Thread | None = None  # see `start`

    def _load(self) -> dict[str, str]:
        if self._kept is None:
            self._kept = {}
            if self.path is not None:
                self._version = guard_version()
                self._kept = read_verdicts(self.path, self._version)
        return self._kept

    def start(self, entries: Iterable[Entry]) -> None:
        """Begin, in a background thread, the meaning model's work for those of
        `entries` no verdict is known for, so the caller can do other work while it
        runs (the model's engine releases the GIL). Decides nothing: `flagged` waits
        for that thread, then screens every entry it is given as always."""
        if self._warming is not None:
            return
        unknown = [
            entry
            for entry in entries
            if "suspicious" not in entry.flags and self._known(text_key(entry)) is None
        ]
        if len(unknown) < 2:
            return
        self._warming = threading.Thread(
            target=_prepare_quietly, args=(unknown,), name="memdesk-screen", daemon=True
        )
        self._warming.start()

    def _known(self, key: str) -> str | None:
        reason = self._seen.get(key)
        return self._load().get(key) if reason is None else reason

    def flagged(self, entries: Iterable[Entry]) -> dict[str, str]:
        """{id: reason} of the entries the current guard flags suspicious and whose
        stored flags do not say so already."""
        if self._warming is not None:
            self._warming.join()  # the model's work begun by `start`
            self._warming = None
        out: dict[str, str] = {}
        known: list[tuple[Entry, str]] = []
        unknown: dict[str, Entry] = {}  # by text key: texts no verdict was kept for
        for entry in entries:
            if "suspicious" in entry.flags:
                continue  # already out of every block
            key = text_key(entry)
            known.append((entry, key))
            if key in self._seen or key in unknown:
                continue
            reason = self._load().get(key)  # the file is read at the first look-up
            if reason is None:
                unknown[key] = entry
            else:
                self._seen[key] = reason
        if len(unknown) > 1:
            _prepare(unknown.values())  # the meaning model's work for all, in one batch
        for key, entry in unknown.items():
            self._seen[key] = screen_now(entry)
            self.new += 1
        for entry, key in known:
            if self._seen[key]:
                out[entry.id] = self._seen[key]
        return out

    def known_clean(self, entry: Entry) -> bool:
        """Whether a verdict kept or given this run says the current guard lets `entry`
        through. Screens nothing: an entry never screened is not known clean."""
        if "suspicious" in entry.flags:
            return False
        key = text_key(entry)
        reason = self._seen.get(key)
        if reason is None:
            reason = self._load().get(key)
        return reason == ""

    def save(self) -> bool:
        """Rewrite the file when this run screened texts it did not hold (best effort)."""
        if not self.new or self.path is None:
            return False
        kept = self._load()
        # This run's verdicts last (newest): the oldest go first beyond the file's cap.
        verdicts = {k: v for k, v in kept.items() if k not in self._seen}
        verdicts.update(self._seen)
        if self._version is None:
            self._version = guard_version()
        if not write_verdicts(self.path, self._version, verdicts):
            return False
        self.new = 0
        return True


def flag_as(entry: Entry, reason: str) -> Entry:
    """A copy of `entry` carrying the `suspicious` flag the current guard gives it (the
    stored entry is not changed: `memdesk doctor` reports it for a person to act on)."""
    flagged = entry.copy()
    flagged.flags["suspicious"] = reason
    return flagged
