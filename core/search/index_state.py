"""What the full-text index holds: entry id -> fingerprint, kept beside the index.

`search-state.json` is a snapshot; single updates are appended to `search-state.log`
(one JSON line each) so one changed entry does not rewrite the whole snapshot (100k
entries: ~5 MB). Loading reads the snapshot and replays the log; a torn last line after
a crash only makes that entry re-index.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from memdesk.core.atomic import append_line_durably, atomic_write_bytes
from memdesk.core.entry import Entry
from memdesk.core.jsonfile import loads, read_json

# 2: one int per entry (version and content hashed together), was [version, hex str].
STATE_VERSION = 2


def fingerprint(entry: Entry, context: str = "") -> int:
    """Changes whenever the version or anything the indexes hold changes (`context`: the
    text its neighbours and date add, neighbours.py). One 63-bit int: 36 bytes per entry
    in memory, where a [version, hex string] pair took ~140 (14 MB at 100k entries)."""
    data = [entry.version, entry.search_text(), entry.tags, entry.kind, entry.scope]
    data += [entry.status, entry.confidence]
    if context:
        data.append(context)
    digest = hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class IndexState:
    """The id -> fingerprint map of what the text index holds, on disk in `index_dir`."""

    def __init__(self, index_dir: Path) -> None:
        self.path = index_dir / "search-state.json"
        self.log_path = index_dir / "search-state.log"

    def load(self) -> dict[str, int]:
        """Snapshot plus the log of single updates since; {} when unreadable."""
        try:
            data = read_json(self.path)
            if data.get("version") != STATE_VERSION:
                return {}
            state = dict(data["entries"])
        except (OSError, ValueError, KeyError, TypeError):
            return {}
        try:
            lines = self.log_path.read_text("utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines:
            try:
                entry_id, value = loads(line, str(self.path))
            except (ValueError, TypeError):
                continue  # a torn last line after a crash: that entry re-indexes
            if value is None:
                state.pop(entry_id, None)
            else:
                state[entry_id] = value
        return state

    def save(self, state: dict[str, int]) -> None:
        """A new snapshot; the log it absorbed is removed."""
        # A new inode each time, and appends never through a link of either kind
        # (core/atomic.py): a name another user linked here keeps what it had.
        data = json.dumps({"version": STATE_VERSION, "entries": state}).encode("utf-8")
        atomic_write_bytes(self.path, data, durable=False)
        self.log_path.unlink(missing_ok=True)

    def log(self, state: dict[str, int], entry_id: str, value: int | None) -> None:
        """Record one update (`None`: removed) without rewriting the snapshot."""
        if not self.path.exists():
            self.save(state)
            return
        append_line_durably(self.log_path, json.dumps([entry_id, value]), durable=False)
