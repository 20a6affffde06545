"""Embedding vectors cached on disk, keyed by the sha256 of the embedded text.

A restart with unchanged entries embeds nothing; a changed entry re-embeds alone. Each
save appends one small segment file (`seg-NNNNNN.npz`: keys + float16 matrix), so an
update of one entry writes one vector, not the whole cache; many segments are merged
into one. Files are written to a temporary name and renamed, so a crash leaves either
the old or the new segment; an unreadable segment is skipped (its texts re-embed).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

_MAX_SEGMENTS = 64


def content_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    def __init__(self, directory: Path, dim: int) -> None:
        self.dir = Path(directory)
        self.dim = dim
        self._vectors: dict[str, np.ndarray] = {}
        self._pending: dict[str, np.ndarray] = {}
        self._load()

    def _segments(self) -> list[Path]:
        return sorted(self.dir.glob("seg-*.npz")) if self.dir.exists() else []

    def _load(self) -> None:
        for path in self._segments():
            try:
                with np.load(path, allow_pickle=False) as data:
                    keys, vectors = data["keys"], data["vectors"]
                if vectors.ndim != 2 or vectors.shape[1] != self.dim:
                    continue
            except (OSError, ValueError, KeyError, EOFError):
                continue  # unreadable: those texts are embedded again
            for key, vector in zip(keys.tolist(), vectors, strict=True):
                self._vectors[key] = vector

    def __len__(self) -> int:
        return len(self._vectors)

    def __contains__(self, key: str) -> bool:
        return key in self._vectors

    def get(self, key: str) -> np.ndarray | None:
        return self._vectors.get(key)

    def missing(self, keys: Iterable[str]) -> list[str]:
        return [k for k in keys if k not in self._vectors]

    def put(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        for key, vector in zip(keys, np.asarray(vectors, dtype=np.float32), strict=True):
            self._vectors[key] = vector
            self._pending[key] = vector

    def adopt(self, keys: Sequence[str], matrix: np.ndarray) -> None:
        """Point the cached vectors at rows of `matrix` (row i holds keys[i]) and forget
        vectors no row uses, so the search matrix and the cache share one copy in memory.
        Forgotten vectors stay on disk until the next compaction."""
        self._vectors = {key: matrix[row] for row, key in enumerate(keys)}
        self._pending = {k: v for k, v in self._pending.items() if k in self._vectors}

    def bind(self, key: str, view: np.ndarray) -> None:
        """`key`'s vector now lives at `view` (a row of the search matrix)."""
        self._vectors[key] = view

    def detach(self, key: str) -> None:
        """Give `key` its own copy before the matrix row it points at is reused."""
        vector = self._vectors.get(key)
        if vector is not None:
            self._vectors[key] = vector.copy()

    def flush(self, keep: set[str] | None = None) -> None:
        """Write pending vectors as a new segment; compact when segments pile up.

        `keep`, when given, lets compaction drop vectors no entry uses any more.
        """
        if not self._pending:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        segments = self._segments()
        if len(segments) + 1 > _MAX_SEGMENTS:
            if keep is not None:
                self._vectors = {k: v for k, v in self._vectors.items() if k in keep}
            self._write(self._next_name(segments), self._vectors)
            for old in segments:
                old.unlink(missing_ok=True)
        else:
            self._write(self._next_name(segments), self._pending)
        self._pending = {}

    @staticmethod
    def _next_name(segments: list[Path]) -> str:
        last = int(segments[-1].stem.split("-")[1]) if segments else 0
        return f"seg-{last + 1:06d}.npz"

    def _write(self, name: str, vectors: dict[str, np.ndarray]) -> None:
        keys = np.array(list(vectors), dtype="U64")
        matrix = (
            np.stack(list(vectors.values()))
            if vectors
            else np.zeros((0, self.dim), dtype=np.float32)
        )
        tmp = self.dir / f".{name}.tmp.npz"
        # float16 on disk: half the file and half the transient memory while a restart
        # loads it; cosine rankings do not change at that precision (~1e-3).
        np.savez(tmp, keys=keys, vectors=matrix.astype(np.float16))
        os.replace(tmp, self.dir / name)
