"""What each entry's text weighs (`weigh.py`), kept between runs of a big store.

Weighing runs several regular expressions over every line of every entry: at 10,000
entries it is a large part of assembling context in a new process. The result depends
only on the entry's text (summary, facts, headings) and on `weigh.py` itself, so it is
kept in `.memdesk/index/context-weights.json` (derived, ignored by git with the rest of
`index/`) under a digest of that text:

- a text whose digest is not in the file is weighed as before (and kept next time);
- the file names the stat of `weigh.py` it was made with: new or edited weighing code
  ignores it whole, and so does a file that is damaged or not in this shape;
- it is used only for a store of at least `MIN_ENTRIES` entries (`assemble_for_store`)
  and rewritten (best effort, atomically) only when the run weighed texts it did not
  hold; texts of deleted
  entries are dropped once they outnumber the live ones. A read-only store or a full
  disk just weighs again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from memdesk.core.context import weigh as weigh_module
from memdesk.core.context.kept_table import read_kept, write_kept
from memdesk.core.context.weigh import CODE_ONLY_WEIGHT, EMPHASIS_WEIGHT, Weight, weigh
from memdesk.core.entry import Entry

WEIGHTS_NAME = "context-weights.json"
_FORMAT = "memdesk-context-weights/1"
MIN_ENTRIES = 500
# The three weights `weigh` gives, by code in the file.
_BY_CODE: dict[int, Weight] = {
    0: Weight(1.0, ""),
    1: Weight(CODE_ONLY_WEIGHT, "code or sample data"),
    2: Weight(EMPHASIS_WEIGHT, "stressed rule"),
}
WEIGHT_BY_CODE = _BY_CODE  # for the kept ranking rows (kept_rows.py)
_CODE_OF: dict[Weight, int] = {weight: code for code, weight in _BY_CODE.items()}


def _code_stamp() -> list[int]:
    """The stat of weigh.py: the kept weights hold only for the code that made them."""
    try:
        st = os.stat(weigh_module.__file__)
    except (OSError, TypeError):
        return []
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def text_digest(entry: Entry) -> str:
    """A digest of exactly what `weigh` reads of an entry."""
    text = "\x1f".join(
        (entry.summary, "\x1e".join(entry.facts), "\x1e".join(entry.section))
    ).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=12).hexdigest()


class KeptWeights:
    """`weigh` through the weights kept at `path` (a callable: entry -> Weight)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._stamp = _code_stamp()
        self._kept: dict[str, int] = self._read() if self._stamp else {}
        self._seen: dict[str, int] = {}
        self.new = 0  # texts weighed this run that the file did not hold

    def _read(self) -> dict[str, int]:
        return read_kept(self.path, self._header(), "weights", lambda code: code in _BY_CODE)

    def _header(self) -> dict[str, object]:
        return {"format": _FORMAT, "code": self._stamp}

    def __call__(self, entry: Entry) -> Weight:
        digest = text_digest(entry)
        code = self._kept.get(digest)
        if code is None:
            weight = weigh(entry)
            code = _CODE_OF.get(weight)
            if code is None:  # a weight this file cannot hold: never kept
                return weight
            self.new += 1
        self._seen[digest] = code
        return _BY_CODE[code]

    def save(self) -> bool:
        """Rewrite the file when this run weighed new texts (best effort)."""
        if not self.new or not self._stamp:
            return False
        # Texts weighed before but not this run (entries another request's scope or
        # status rules left out) stay, unless they outnumber this run's: deleted ones.
        merged = {**self._kept, **self._seen}
        weights = merged if len(merged) <= 2 * len(self._seen) else self._seen
        if not write_kept(self.path, self._header(), "weights", weights):
            return False
        self.new = 0
        return True
