"""`.memdesk/dismissed.json`: pairs a person said are fine, honoured by every pair finder.

A dismissal records the two texts' hashes: when either text changes, the pair is a new
question and comes back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memdesk.core.atomic import atomic_write_text
from memdesk.core.entry import Entry, now
from memdesk.core.jsonfile import read_json
from memdesk.core.pairs.pair import pair_key

DISMISSED_FILE = "dismissed.json"


class Dismissals:
    """`.memdesk/dismissed.json`: pairs a person said are fine, with the texts they saw."""

    def __init__(self, meta_dir: Path) -> None:
        self.path = Path(meta_dir) / DISMISSED_FILE
        self._loaded: dict[str, dict[str, Any]] | None = None

    def load(self) -> dict[str, dict[str, Any]]:
        try:
            data = read_json(self.path)
            pairs = data.get("pairs", {})
            return pairs if isinstance(pairs, dict) else {}
        except (OSError, ValueError, AttributeError):
            return {}

    def contains(self, key: str, hashes: Sequence[str]) -> bool:
        """Read once per instance: a listing asks for every pair it found."""
        if self._loaded is None:
            self._loaded = self.load()
        record = self._loaded.get(key)
        if not record:
            return False
        return sorted(record.get("hashes", [])) == sorted(hashes)

    def add(self, key: str, hashes: Sequence[str], kind: str) -> None:
        pairs = self.load()
        pairs[key] = {"hashes": list(hashes), "kind": kind, "time": now().isoformat()}
        text = json.dumps({"pairs": pairs}, ensure_ascii=False, indent=1, sort_keys=True)
        atomic_write_text(self.path, text + "\n")
        self._loaded = None

    def contains_pair(self, a: Entry, b: Entry) -> bool:
        """Was this pair, with these texts, dismissed?"""
        return self.contains(pair_key(a.id, b.id), [a.text_hash, b.text_hash])
