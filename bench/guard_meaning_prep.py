"""Everything the meaning stage's method comparison needs, embedded once and kept.

    python bench/guard_meaning_prep.py [--shared DIR] [--cache DIR] [--out FILE]

Reads the training rows (bench/guard_meaning_data.py), their units, the composed
"attack after an ordinary sentence" texts, the held-out rows and the real files' units
(for the false-flag count only), embeds what the cache lacks (bench/train_guard_meaning.py's
cache) and stores the arrays in one .npz, so that bench/guard_meaning_methods.py can
compare methods in seconds without a model load.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guard_false_flags import shared_dir  # noqa: E402
from guard_meaning_data import GUARD_DATA, labelled_rows, training_rows  # noqa: E402
from guard_meaning_eval import composed, real_units  # noqa: E402
from memdesk.core.guard import find_injection  # noqa: E402
from memdesk.core.guard.meaning import STAGE, E5Passages  # noqa: E402
from train_guard_meaning import (  # noqa: E402
    Cache,
    embed_texts,
    moves_score,
    taught_labels,
    text_units,
    units_of,
)

DEFAULT_OUT = Path(tempfile.gettempdir()) / "memdesk-meaning" / "prep.npz"


def flat_spans(spans: list[tuple[range, range]]) -> np.ndarray:
    """(n, 4): start and stop of each text's passages, then of its sentences."""
    return np.array([[a.start, a.stop, b.start, b.stop] for a, b in spans], dtype=np.int64)


class E5Queries(E5Passages):
    """The same model, with the "query: " prefix (candidate (c) of the comparison)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self._model.query(list(texts))).astype(np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


class QueryCache(Cache):
    def __init__(self, folder: Path) -> None:
        super().__init__(folder / "query")
        self.embedder = E5Queries()


def unit_texts(per_row: list[tuple[list[str], list[str]]]) -> np.ndarray:
    """The units' texts in the order embed_texts embeds them."""
    return np.array([t for whole, sentences in per_row for t in whole + sentences] or [""])[
        : sum(len(a) + len(b) for a, b in per_row)
    ]


def ruled_of(texts: list[str]) -> np.ndarray:
    STAGE.use(None)
    out = np.array([bool((f := find_injection(t)) and f.suspicious) for t in texts])
    STAGE.reset()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "memdesk-meaning"))
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    parser.add_argument(
        "--without", action="append", default=[], help="leave out rows of this source"
    )
    parser.add_argument(
        "--without-attacks",
        action="append",
        default=[],
        help="leave out attacks of groups with this",
    )
    parser.add_argument("--query", action="store_true", help='embed with "query: " instead')
    args = parser.parse_args()
    cache = QueryCache(Path(args.cache)) if args.query else Cache(Path(args.cache))
    shared = shared_dir(args.shared)
    rows = [r for r in training_rows(shared) if r.group.split(":")[0] not in args.without]
    rows = [r for r in rows if not (r.attack and any(g in r.group for g in args.without_attacks))]
    row_units = [units_of(r) for r in rows]
    vectors, spans = embed_texts(row_units, cache)
    y_units = np.array(
        [y for row, p in zip(rows, row_units, strict=True) for y in taught_labels(row, p)]
    )
    mixed = composed(rows)
    mixed_vectors, mixed_spans = embed_texts([text_units(t) for _, t in mixed], cache)
    items = real_units(shared)
    real_vectors, real_spans = embed_texts([p for _, _, p in items], cache)
    held = []
    for name in ("injections_heldout.jsonl", "injections_rounds.jsonl"):
        held += [(name, r) for r in labelled_rows(GUARD_DATA / name, held_out=True)]
    held_units = [units_of(r) for _, r in held]
    held_vectors, held_spans = embed_texts(held_units, cache)
    mixed_units = [text_units(t) for _, t in mixed]
    np.savez_compressed(
        args.out,
        texts=np.array([r.text for r in rows]),
        attack=np.array([r.attack for r in rows]),
        group=np.array([r.group for r in rows]),
        writer=np.array([r.writer for r in rows]),
        vectors=vectors,
        unit_texts=unit_texts(row_units),
        mixed_unit_texts=unit_texts(mixed_units),
        real_unit_texts=unit_texts([p for _, _, p in items]),
        held_unit_texts=unit_texts(held_units),
        spans=flat_spans(spans),
        y_units=y_units,
        moves=np.array([moves_score(r.text) for r in rows]),
        ruled=ruled_of([r.text for r in rows]),
        mixed_rows=np.array([i for i, _ in mixed]),
        mixed_texts=np.array([t for _, t in mixed]),
        mixed_vectors=mixed_vectors,
        mixed_spans=flat_spans(mixed_spans),
        mixed_moves=np.array([moves_score(t) for _, t in mixed]),
        mixed_ruled=ruled_of([t for _, t in mixed]),
        real_kind=np.array([k for k, _, _ in items]),
        real_texts=np.array([t for _, t, _ in items]),
        real_vectors=real_vectors
        if len(real_vectors)
        else np.zeros((0, vectors.shape[1]), np.float32),
        real_spans=flat_spans(real_spans),
        real_moves=np.array([moves_score(t) if any(p) else 0.0 for _, t, p in items]),
        held_file=np.array([n for n, _ in held]),
        held_attack=np.array([r.attack for _, r in held]),
        held_texts=np.array([r.text for _, r in held]),
        held_vectors=held_vectors,
        held_spans=flat_spans(held_spans),
        held_moves=np.array([moves_score(r.text) for _, r in held]),
    )
    print(f"wrote {args.out}: {len(rows)} rows, {len(vectors)} units, {len(items)} real items")


if __name__ == "__main__":
    main()
