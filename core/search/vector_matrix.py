"""The in-memory vector matrix: one int8 row per entry, scored a chunk at a time.

Rows `[0, n)` are live, one per entry, each with its content key (sha256 hex of the
embedded text, see vector_cache.content_key) and a per-row scale (vector_cache.quantise).
The arrays keep spare capacity so appends are amortised O(1); removing a row moves the
last one into the gap. The caller holds its own lock around every call.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager

import numpy as np
from memdesk.core.search.vector_cache import dequantise

KEY_DTYPE = "S64"  # sha256 hex of the embedded text
# Rows scored per step: the float32 copy of one chunk stays small (2 MB at 512 dims).
SCORE_CHUNK = 1024


def cosines(codes: np.ndarray, scales: np.ndarray, query: np.ndarray) -> np.ndarray:
    """codes @ query * scales, a chunk of rows at a time in float32: no float32 copy of
    the whole matrix. einsum runs one thread: a matrix-vector product is memory-bound,
    and BLAS threads only contend with the rest of the machine (measured 4-30x slower
    under load in bench/search_speed.py)."""
    query = np.asarray(query, np.float32)
    scores = np.empty(len(codes), np.float32)
    buffer = np.empty((min(SCORE_CHUNK, len(codes)), codes.shape[1]), np.float32)
    for start in range(0, len(codes), SCORE_CHUNK):
        chunk = codes[start : start + SCORE_CHUNK]
        block = buffer[: len(chunk)]
        block[...] = chunk
        np.einsum("ij,j->i", block, query, out=scores[start : start + len(chunk)])
    scores *= scales
    return scores


class VectorMatrix:
    def __init__(self, dim: int) -> None:
        self.ids: list[str] = []
        self.row: dict[str, int] = {}
        self.keys = np.zeros(0, KEY_DTYPE)
        self.codes = np.zeros((0, dim), np.int8)
        self.scales = np.zeros(0, np.float32)
        self.n = 0

    def replace(
        self, ids: list[str], keys: list[str], codes: np.ndarray, scales: np.ndarray
    ) -> None:
        """Take these rows as the whole matrix (the first sync: the cache's table is
        packed in place and handed over, no copy)."""
        self.ids = ids
        self.row = {entry_id: row for row, entry_id in enumerate(ids)}
        self.keys = np.array(keys, dtype=KEY_DTYPE)
        self.codes, self.scales = codes, scales
        self.n = len(ids)

    def live_keys(self) -> list[bytes]:
        return self.keys[: self.n].tolist()

    def set_row(self, entry_id: str, key: str, code: np.ndarray, scale: float) -> None:
        row = self.row.get(entry_id)
        if row is None:
            if self.n == len(self.codes):  # grow by half: amortised O(1) appends
                size = max(16, self.n + self.n // 2)
                codes = np.zeros((size, self.codes.shape[1]), np.int8)
                scales = np.zeros(size, np.float32)
                keys = np.zeros(size, KEY_DTYPE)
                codes[: self.n] = self.codes[: self.n]
                scales[: self.n] = self.scales[: self.n]
                keys[: self.n] = self.keys[: self.n]
                self.codes, self.scales, self.keys = codes, scales, keys
            row = self.n
            self.n += 1
            self.ids.append(entry_id)
            self.row[entry_id] = row
        self.keys[row] = key.encode()
        self.codes[row] = code
        self.scales[row] = scale

    def drop_row(self, entry_id: str) -> None:
        """Move the last row into the gap (the vector itself stays in the disk cache)."""
        row = self.row.pop(entry_id, None)
        if row is None:
            return
        last = self.n - 1
        if row != last:
            moved = self.ids[last]
            self.codes[row] = self.codes[last]
            self.scales[row] = self.scales[last]
            self.keys[row] = self.keys[last]
            self.ids[row] = moved
            self.row[moved] = row
        self.ids.pop()
        self.n -= 1

    def rows_holding(self, keys: Sequence[str]) -> dict[str, int]:
        """key -> a live row holding its vector, for those of `keys` the matrix has."""
        if not keys or self.n == 0:
            return {}
        live = self.keys[: self.n]
        if len(keys) <= 8:  # a few updates: scanning beats building a 100k-key dict
            found = {}
            for key in keys:
                rows = np.flatnonzero(live == key.encode())
                if len(rows):
                    found[key] = int(rows[0])
            return found
        wanted = set(keys)
        return {k: row for row, b in enumerate(live.tolist()) if (k := b.decode()) in wanted}

    def vector(self, entry_id: str) -> np.ndarray | None:
        """The entry's vector (float32, a new array) or None."""
        row = self.row.get(entry_id)
        return None if row is None else dequantise(self.codes[row], self.scales[row])

    def stack(self, entry_ids: Sequence[str]) -> np.ndarray:
        """The vectors of `entry_ids` as one float32 matrix, dequantised in bulk."""
        rows = np.fromiter((self.row[i] for i in entry_ids), dtype=np.intp, count=len(entry_ids))
        return dequantise(self.codes[rows], self.scales[rows])

    def live(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Views of the live codes, scales and ids (for scoring outside the lock)."""
        return self.codes[: self.n], self.scales[: self.n], self.ids[: self.n]


class VectorView(Mapping[str, np.ndarray]):
    """Read-only id -> vector view of a matrix, dequantised on access, under a lock."""

    def __init__(self, matrix: VectorMatrix, lock: AbstractContextManager[object]) -> None:
        self._matrix = matrix
        self._lock = lock

    def __getitem__(self, entry_id: str) -> np.ndarray:
        with self._lock:
            vector = self._matrix.vector(entry_id)
        if vector is None:
            raise KeyError(entry_id)
        return vector

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._matrix.row

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._matrix.row))

    def __len__(self) -> int:
        return len(self._matrix.row)

    def stack(self, entry_ids: Sequence[str]) -> np.ndarray:
        """The vectors of `entry_ids` as one float32 matrix (one array, not one each)."""
        with self._lock:
            return self._matrix.stack(entry_ids)
