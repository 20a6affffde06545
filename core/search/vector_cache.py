"""Embedding vectors cached on disk, keyed by the sha256 of the embedded text.

A restart with unchanged entries embeds nothing; a changed entry re-embeds alone. Each
save appends one small segment file (`seg-NNNNNN.npz`: keys, int8 codes, one float32
scale per vector), so an update of one entry writes one vector, not the whole cache;
many segments are merged into one (`compact`). Files are written to a temporary name
and renamed, so a crash leaves either the old or the new segment; an unreadable segment
is skipped (its texts re-embed). Segments of the older float16 format are read and
converted (no re-embedding), and the next compaction rewrites them.

Vectors are stored int8-quantised with a per-vector scale (`quantise`): a quarter of
float32 in memory and on disk, and cosine scores move by about 1e-3, which the
bilingual and LoCoMo benchmarks do not notice (README, "Search").

The in-memory table is only needed while a sync gathers vectors: the search matrix
keeps its own copy, so the service calls `release` afterwards and the table is read from
disk again (`load`) only when a later bulk job needs it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

_MAX_SEGMENTS = 64
# Rows converted per step when quantising: bounds the float32 temporaries (a 100k x 512
# conversion in one go would briefly need 200 MB).
_CHUNK = 4096


def content_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 codes and float32 scales with vectors[i] ~= codes[i] * scales[i]."""
    vectors = np.asarray(vectors)
    codes = np.empty(vectors.shape, np.int8)
    scales = np.empty(len(vectors), np.float32)
    for start in range(0, len(vectors), _CHUNK):
        block = vectors[start : start + _CHUNK].astype(np.float32)
        peak = np.abs(block).max(axis=1) if block.shape[1] else np.zeros(len(block))
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        np.rint(block / scale[:, None], out=block)
        codes[start : start + _CHUNK] = np.clip(block, -127, 127)
        scales[start : start + _CHUNK] = scale
    return codes, scales


def dequantise(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    return codes.astype(np.float32) * np.asarray(scales, np.float32)[..., None]


class VectorCache:
    def __init__(self, directory: Path, dim: int) -> None:
        self.dir = Path(directory)
        self.dim = dim
        self._slot: dict[str, int] = {}  # key -> row of _codes / _scales
        self._codes = np.zeros((0, dim), np.int8)
        self._scales = np.zeros(0, np.float32)
        self._used = 0
        self._pending: dict[str, int] = {}  # key -> row, not written yet
        self._loaded = False
        self.old_format = False  # a float16 segment was read: compact to rewrite it

    # -- disk --------------------------------------------------------------------
    def _segments(self) -> list[Path]:
        return sorted(self.dir.glob("seg-*.npz")) if self.dir.exists() else []

    def load(self) -> None:
        """Read every segment into memory (once until `release`)."""
        if self._loaded:
            return
        self._loaded = True
        segments = self._segments()
        # Sizes first (keys only), then one allocation filled a segment at a time: memory
        # peaks at the table plus one segment, not at twice the table.
        sizes = [self._count(path) for path in segments]
        if self._used == 0 and sum(1 for size in sizes if size) == 1:
            # The usual case after a compaction: the segment's arrays become the table.
            segment = self._read(segments[next(i for i, size in enumerate(sizes) if size)])
            if segment is not None:
                keys, self._codes, self._scales = segment
                self._slot = {key: row for row, key in enumerate(keys)}
                self._used = len(keys)
            return
        self._grow(self._used + sum(sizes))
        for path, size in zip(segments, sizes, strict=True):
            segment = self._read(path) if size else None
            if segment is not None:
                self._store(*segment, pending=False)

    @staticmethod
    def _count(path: Path) -> int:
        try:
            with np.load(path, allow_pickle=False) as data:
                return len(data["keys"])
        except (OSError, ValueError, KeyError, EOFError):
            return 0  # unreadable: skipped by _read as well

    def _read(self, path: Path) -> tuple[list[str], np.ndarray, np.ndarray] | None:
        try:
            with np.load(path, allow_pickle=False) as data:
                raw = data["keys"]
                keys = (
                    [k.decode("ascii") for k in raw.tolist()]
                    if raw.dtype.kind == "S"
                    else raw.tolist()
                )
                del raw
                if "codes" in data:
                    codes, scales = data["codes"], data["scales"]
                else:  # the float16 format of earlier versions
                    codes, scales = quantise(data["vectors"])
                    self.old_format = True
            if (
                codes.ndim != 2
                or codes.shape != (len(keys), self.dim)
                or codes.dtype != np.int8
                or scales.shape != (len(keys),)
                or not all(isinstance(k, str) for k in keys)
            ):
                return None
            return keys, codes, scales.astype(np.float32, copy=False)
        except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError):
            return None  # unreadable: those texts are embedded again

    def segment_count(self) -> int:
        return len(self._segments())

    @property
    def needs_compaction(self) -> bool:
        return self.old_format or self.segment_count() > _MAX_SEGMENTS

    def flush(self) -> None:
        """Write pending vectors as a new segment."""
        if not self._pending:
            return
        rows = np.fromiter(self._pending.values(), dtype=np.intp, count=len(self._pending))
        self._write(list(self._pending), self._codes[rows], self._scales[rows])
        self._pending = {}

    def compact(self, keys: Sequence[str], codes: np.ndarray, scales: np.ndarray) -> None:
        """Replace every segment by one holding exactly these vectors (the live ones);
        pending vectors are written too. Vectors of texts no entry has any more go."""
        self.flush()
        old = self._segments()
        unique: dict[str, int] = {}
        for row, key in enumerate(keys):
            unique.setdefault(key, row)
        rows = np.fromiter(unique.values(), dtype=np.intp, count=len(unique))
        written = self._write(list(unique), codes[rows], scales[rows])
        for path in old:
            if path != written:
                path.unlink(missing_ok=True)
        self.old_format = False

    def _write(self, keys: list[str], codes: np.ndarray, scales: np.ndarray) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        segments = self._segments()
        last = int(segments[-1].stem.split("-")[1]) if segments else 0
        name = f"seg-{last + 1:06d}.npz"
        tmp = self.dir / f".{name}.tmp.npz"
        np.savez(
            tmp,
            keys=np.array(keys, dtype=f"S{64 if not keys else max(map(len, keys))}"),
            codes=np.asarray(codes, np.int8).reshape(len(keys), self.dim),
            scales=np.asarray(scales, np.float32),
        )
        os.replace(tmp, self.dir / name)
        return self.dir / name

    # -- memory ------------------------------------------------------------------
    def release(self) -> None:
        """Forget the in-memory table (written first); `load` reads it again."""
        self.flush()
        self._slot = {}
        self._codes = np.zeros((0, self.dim), np.int8)
        self._scales = np.zeros(0, np.float32)
        self._used = 0
        self._loaded = False

    def _grow(self, size: int) -> None:
        if size <= len(self._codes):
            return
        size = max(size, 16, len(self._codes) + len(self._codes) // 2)
        codes = np.zeros((size, self.dim), np.int8)
        scales = np.zeros(size, np.float32)
        codes[: self._used] = self._codes[: self._used]
        scales[: self._used] = self._scales[: self._used]
        self._codes, self._scales = codes, scales

    def _store(self, keys: Sequence[str], codes: np.ndarray, scales: np.ndarray, *, pending: bool):
        self._grow(self._used + len(keys))
        rows = np.empty(len(keys), np.intp)
        for i, key in enumerate(keys):
            row = self._slot.get(key)
            if row is None:
                row = self._slot[key] = self._used
                self._used += 1
            rows[i] = row
            if pending:
                self._pending[key] = row
        self._codes[rows] = codes
        self._scales[rows] = scales

    def __len__(self) -> int:
        self.load()
        return len(self._slot)

    def __contains__(self, key: str) -> bool:
        self.load()
        return key in self._slot

    def get(self, key: str) -> np.ndarray | None:
        """The vector (float32, dequantised) or None."""
        self.load()
        row = self._slot.get(key)
        return None if row is None else dequantise(self._codes[row], self._scales[row])

    def missing(self, keys: Iterable[str], *, load: bool = True) -> list[str]:
        """Keys without a vector; with `load=False` only the table in memory is asked
        (vectors put since the last `release`, or everything once loaded)."""
        if load:
            self.load()
        return [k for k in keys if k not in self._slot]

    def rows(self, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Codes and scales of `keys` (all in memory). When `keys` are exactly the table
        in order (a restart with unchanged entries: segments are written in entry order)
        the table itself is handed over instead of a copy, so the caller must `release`
        the cache before anything is stored into it again."""
        index = np.fromiter((self._slot[k] for k in keys), dtype=np.intp, count=len(keys))
        if (
            len(index) == self._used == len(self._codes)
            and not self._pending
            and np.array_equal(index, np.arange(len(index)))
        ):
            return self._codes, self._scales
        return self._codes[index], self._scales[index]

    def put(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        codes, scales = quantise(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim))
        self._store(keys, codes, scales, pending=True)
