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
import io
import os
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

_MAX_SEGMENTS = 64
# Rows converted per step when quantising: bounds the float32 temporaries (a 100k x 512
# conversion in one go would briefly need 200 MB).
_CHUNK = 4096
_READ_BLOCK = 1 << 20  # bytes per read when loading a segment


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
        """Read every segment into memory (once until `release`). Each segment's vectors
        are read straight into one table sized for all of them: no second copy."""
        if self._loaded:
            return
        self._loaded = True
        found = [(path, keys) for path in self._segments() if (keys := self._keys_of(path))]
        self._grow(self._used + sum(len(keys) for _, keys in found))
        for path, keys in found:
            rows = slice(self._used, self._used + len(keys))
            if not self._read_into(path, self._codes[rows], self._scales[rows]):
                continue  # unreadable: those texts are embedded again
            for row, key in enumerate(keys, rows.start):
                self._slot[key] = row  # a later segment's copy wins (same text, same vector)
            self._used = rows.stop

    @staticmethod
    def _keys_of(path: Path) -> list[str] | None:
        try:
            with np.load(path, allow_pickle=False) as data:
                raw = data["keys"]
            if not isinstance(raw, np.ndarray) or raw.ndim != 1 or raw.dtype.kind not in "SU":
                return None
            return (
                [k.decode("ascii") for k in raw.tolist()] if raw.dtype.kind == "S" else raw.tolist()
            )
        except (OSError, ValueError, KeyError, EOFError, UnicodeDecodeError, zipfile.BadZipFile):
            return None

    def _read_into(self, path: Path, codes: np.ndarray, scales: np.ndarray) -> bool:
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
                if "codes.npy" in names:
                    return _fill(archive, "codes.npy", codes) and _fill(
                        archive, "scales.npy", scales
                    )
            with np.load(path, allow_pickle=False) as data:  # the float16 format
                vectors = data["vectors"]
            if vectors.shape != codes.shape:
                return False
            codes[...], scales[...] = quantise(vectors)
            self.old_format = True
            return True
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return False

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
        # A new file of its own (O_EXCL): a name left there, even a link, is never
        # written through.
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp.npz", dir=self.dir)
        try:
            with os.fdopen(fd, "wb") as out:
                np.savez(
                    out,
                    keys=np.array(keys, dtype=f"S{64 if not keys else max(map(len, keys))}"),
                    codes=np.asarray(codes, np.int8).reshape(len(keys), self.dim),
                    scales=np.asarray(scales, np.float32),
                )
            os.replace(tmp, self.dir / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
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

    def _store(
        self, keys: Sequence[str], codes: np.ndarray, scales: np.ndarray, *, pending: bool
    ) -> None:
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

    def take(self, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """Hand the in-memory table over as the matrix for `keys` (all in memory), packed
        in place rather than copied: row i holds keys[placed[i]]. The cache forgets the
        table (as `release`)."""
        if not keys:
            return np.zeros((0, self.dim), np.int8), np.zeros(0, np.float32), []
        self.load()
        self.flush()
        slots = np.fromiter((self._slot[k] for k in keys), dtype=np.intp, count=len(keys))
        order = np.argsort(slots, kind="stable")
        ordered = slots[order]
        first = np.ones(len(order), bool)
        first[1:] = ordered[1:] != ordered[:-1]
        source = ordered[first]  # increasing and distinct, so source[i] >= i
        shared = ordered[~first]  # keys whose text an earlier key has too: own rows
        shared_codes, shared_scales = self._codes[shared], self._scales[shared]
        codes, scales = self._codes, self._scales
        for start in range(0, len(source), _CHUNK):
            part = source[start : start + _CHUNK]
            if part[0] == start and part[-1] == start + len(part) - 1:
                continue  # already in place (a restart with unchanged entries)
            # Reads only rows >= start, which no earlier chunk has written.
            codes[start : start + len(part)] = codes[part]
            scales[start : start + len(part)] = scales[part]
        used, total = len(source), len(source) + len(shared)
        if total <= len(codes):
            codes[used:total], scales[used:total] = shared_codes, shared_scales
            codes, scales = codes[:total], scales[:total]
        else:
            codes = np.concatenate([codes[:used], shared_codes])
            scales = np.concatenate([scales[:used], shared_scales])
        placed = np.concatenate([order[first], order[~first]]).tolist()
        self.release()
        return codes, scales, placed

    def rows(self, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Codes and scales of `keys` (all in memory), as new arrays."""
        index = np.fromiter((self._slot[k] for k in keys), dtype=np.intp, count=len(keys))
        return self._codes[index], self._scales[index]

    def put(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        codes, scales = quantise(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim))
        self._store(keys, codes, scales, pending=True)


def _fill(archive: zipfile.ZipFile, name: str, out: np.ndarray) -> bool:
    """Read the .npy member `name` into `out` (same shape and dtype) without a temporary."""
    with archive.open(name) as stream:
        if not isinstance(stream, io.BufferedIOBase):  # a ZipExtFile is one (has readinto)
            return False
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        if shape != out.shape or fortran or dtype != out.dtype or not out.flags.c_contiguous:
            return False
        view = out.data.cast("B")  # the array's own buffer: filled in place
        filled = 0
        while filled < len(view):
            # Bounded reads: a zip member's readinto reads into a temporary of the
            # requested size first.
            got = stream.readinto(view[filled : filled + _READ_BLOCK])
            if not got:
                return False  # truncated
            filled += got
        return True
