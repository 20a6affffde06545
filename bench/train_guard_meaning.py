"""Train the meaning stage of the injection guard: logistic regression on e5 embeddings.

    python bench/train_guard_meaning.py [--shared DIR] [--cache DIR] [--write]
                                        [--l2 0.03] [--folds 5] [--writers] [--real]

Rows come from bench/guard_meaning_data.py (never the test half, fresh round 5 or the
real files). Each row is read as the guard reads it (`normalise.readings`, split into
passages and sentences as `meaning.units` does; an attack's single sentences are scored
but not taught, an ordinary row's are taught as ordinary) and embedded with `e5-multilingual`; an attack
that hides its words (base64, hex, an HTML comment...) is learnt from its decoded
readings only, so an encoded blob itself is not taught as an attack. Embeddings are
cached by text under --cache (default: a folder in the system temp dir), so a rerun
only embeds what changed; the model is deterministic, so the weights are too.

A logistic regression (L2, Newton steps, classes weighted to equal mass) is fitted on
embeddings centred on the training mean. Cut-offs are chosen on out-of-fold
probabilities (folds by source group, so near-copies of one author's wording never sit
on both sides):
- `threshold`: the lowest probability at which at most 3% of the hard negatives
  (ordinary rules written to look like instructions) and 0.1% of other ordinary text
  are flagged out of fold;
- `threshold_with_moves`: the same for rows in which the move scorer found at least one
  move of an injection (score >= 0.4): meaning and moves together.
Both are then raised, if need be, past the final model's probability on every
look-alike rule it was trained on from the held-out corpus and the fresh rounds (the
tests pin that none of them is hidden).
Printed: the out-of-fold figures, then the held-out figures of the final model.
`--writers` adds recall with each writer left out in turn (bench/guard_meaning_eval.py:
the nearest stand-in for a writer never seen), `--real` the meaning stage's flags on the
real files at the chosen cut-offs (never trained or tuned on; embeddings cached).
`--write` stores core/guard/meaning_weights.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guard_false_flags import shared_dir  # noqa: E402
from guard_meaning_data import GUARD_DATA, Row, labelled_rows, training_rows  # noqa: E402
from guard_meaning_eval import (  # noqa: E402
    Composed,
    composed,
    leave_one_writer_out,
    print_writers,
    real_units,
)
from memdesk.core.guard import find_injection, meaning  # noqa: E402
from memdesk.core.guard.injection_score import score  # noqa: E402
from memdesk.core.guard.meaning import (  # noqa: E402
    E5_MULTILINGUAL,
    STAGE,
    WEIGHTS_FILE,
    E5Passages,
    split_units,
)
from memdesk.core.guard.normalise import readings  # noqa: E402

MOVES_FLOOR = 0.4  # the move scorer's weakest single move
ORDINARY_RATE = 0.001  # share of ordinary text a cut-off may flag out of fold
HARD_RATE = 0.03  # share of hard negatives (rules written to look like attacks) likewise
PINNED = ("injections_heldout", "injections_rounds")  # look-alike rules never hidden
# Above a pinned rule's probability by more than the stored weights' rounding moves it.
PINNED_MARGIN = 0.002
HARD = (
    "injections_heldout",
    "injections_rounds",
    "meaning_train",
    "meaning_registers",
    "meaning_writer5",  # look-alike rules and an agent's narration, written as such
    "meaning_writer6",  # the same, half of it mixed Chinese/English, in file formats
    "bastioncorpus",
    "aib",
    "corpus-rules",
)


TEACH_SENTENCES = True  # an ordinary row's sentences are taught as ordinary
TWO_HEADS = True  # ... to the sentences' head only (else to the one head)
Units = tuple[list[str], list[str]]  # a text's passages, and its single sentences


def units_of(row: Row) -> Units:
    """What the guard scores of a row (`meaning.split_units`)."""
    seen = readings(row.text)
    chosen = seen
    if row.attack and len(seen) > 1 and any(r.hidden for r in seen[1:]):
        chosen = [r for r in seen[1:] if r.hidden]
    whole, sentences = split_units([r.text for r in chosen])
    return (whole or [row.text]), sentences


def text_units(text: str) -> Units:
    return split_units([r.text for r in readings(text)])


def taught_labels(row: Row, pieces: Units) -> list[tuple[float, float]]:
    """The labels a row's units are taught with, for the passages' head and the
    sentences' head: the passages' head learns whole texts only; the sentences' head
    learns them and an ordinary row's every sentence as ordinary. An attack's single
    sentences are never taught (one may be the ordinary text the attack hides behind).
    NaN: not taught."""
    label = 1.0 if row.attack else 0.0
    sentence = math.nan if row.attack or not TEACH_SENTENCES else 0.0
    whole_head = math.nan if TWO_HEADS else sentence
    return [(label, label)] * len(pieces[0]) + [(whole_head, sentence)] * len(pieces[1])


def moves_score(text: str) -> float:
    seen = readings(text)
    return max((score(r.text, r.hidden, below_threshold=True).value for r in seen), default=0.0)


class Cache:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "e5-passages.npz"
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self.embedder: E5Passages | None = None

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def save(self) -> None:
        keys = np.array(list(self.vectors))
        np.savez(self.path, keys=keys, vectors=np.stack(list(self.vectors.values())))

    def embed(self, texts: list[str]) -> np.ndarray:
        # Shortest first: a batch is as slow as its longest text.
        missing = sorted({t for t in texts if self.key(t) not in self.vectors}, key=len)
        if missing:
            self.embedder = self.embedder or E5Passages()
            print(f"embedding {len(missing)} passages...", file=sys.stderr)
            for start in range(0, len(missing), 64):
                batch = missing[start : start + 64]
                for text, vector in zip(batch, self.embedder.embed(batch), strict=True):
                    self.vectors[self.key(text)] = vector
                if start % 640 == 0:
                    self.save()
                    print(f"  {start + len(batch)} of {len(missing)}", file=sys.stderr)
            self.save()
        return np.stack([self.vectors[self.key(t)] for t in texts])


def fit_heads(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """One regression per column of `y` (the passages' head, the sentences' head):
    coefficients (dim, 2) and biases (2)."""
    fitted = [fit(x, y[:, k], l2) for k in range(y.shape[1])]
    return np.stack([c for c, _ in fitted], axis=1), np.array([b for _, b in fitted])


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression by Newton steps (bias unpenalised); units
    labelled NaN are left out."""
    keep = ~np.isnan(y)
    x, y = x[keep], y[keep]
    weight = np.where(y == 1, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1)) * len(y)
    design = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(25):
        p = 1 / (1 + np.exp(-np.clip(design @ beta, -30, 30)))
        grad = design.T @ (weight * (p - y)) + penalty * beta
        hess = (design * (weight * p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-6)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-6:
            break
    return beta[:-1], float(beta[-1])


Span = tuple[range, range]  # where a row's passages and its sentences sit among the units


def row_probability(
    vectors: np.ndarray, spans: list[Span], coef: np.ndarray, bias: np.ndarray
) -> np.ndarray:
    """(rows, 2): the highest probability of the passages' head over each row's
    passages, and of the sentences' head over its single sentences (0 for none)."""
    unit = 1 / (1 + np.exp(-np.clip(vectors @ coef + bias, -30, 30)))
    return np.array(
        [
            [unit[list(part), k].max() if len(part) else 0.0 for k, part in enumerate(span)]
            for span in spans
        ]
    ).reshape(-1, 2)


def embed_rows(rows: list[Row], cache: Cache) -> tuple[np.ndarray, list[Span]]:
    return embed_texts([units_of(row) for row in rows], cache)


def embed_texts(units_per_row: list[Units], cache: Cache) -> tuple[np.ndarray, list[Span]]:
    texts: list[str] = []
    spans = []
    for whole, sentences in units_per_row:
        start, middle = len(texts), len(texts) + len(whole)
        spans.append((range(start, middle), range(middle, middle + len(sentences))))
        texts += whole + sentences
    return cache.embed(texts), spans


def cut_off(probs: np.ndarray, rows: list[Row], mask: np.ndarray) -> float:
    """The lowest probability flagging at most HARD_RATE of the hard negatives and
    ORDINARY_RATE of the other ordinary text among `mask`, out of fold."""
    hard = np.array([not r.attack and r.group.split(":")[0] in HARD for r in rows]) & mask
    other = np.array([not r.attack for r in rows]) & ~hard & mask
    limits = [np.quantile(probs[hard], 1 - HARD_RATE) if hard.any() else 0.0]
    limits.append(np.quantile(probs[other], 1 - ORDINARY_RATE) if other.any() else 0.0)
    return float(min(0.999, np.nextafter(max(limits), 1.0)))


def hard_mask(rows: list[Row]) -> np.ndarray:
    return np.array([not r.attack and r.group.split(":")[0] in HARD for r in rows])


def real_flags(
    shared: Path,
    cache: Cache,
    centre: np.ndarray,
    coef: np.ndarray,
    bias: np.ndarray,
    flagged: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> None:
    """The meaning stage's flags on the real files at the chosen cut-offs (never trained
    or tuned on): memory lines and transcript messages, with the five most likely."""
    items = real_units(shared)
    with_units = [i for i, (_, _, pieces) in enumerate(items) if pieces[0] or pieces[1]]
    vectors, spans = embed_texts([items[i][2] for i in with_units], cache)
    probs = np.zeros((len(items), 2))
    probs[with_units] = row_probability(vectors - centre, spans, coef, bias)
    moves = np.array([moves_score(text) if any(p) else 0.0 for _, text, p in items])
    caught = flagged(probs, moves)
    for kind in ("memory", "transcripts"):
        mine = np.array([k == kind for k, _, _ in items])
        print(
            f"real {kind}: flagged by meaning {int((caught & mine).sum())} of "
            f"{int(mine.sum())}; highest p "
            + ", ".join(f"{p:.2f}" for p in sorted(probs[mine].max(axis=1), reverse=True)[:5])
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="the shared data folder (holds bench-data/)")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "memdesk-meaning"))
    parser.add_argument("--l2", type=float, default=0.03)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="store the trained weights")
    parser.add_argument(
        "--writers", action="store_true", help="leave-one-writer-out recall (a fit per writer)"
    )
    parser.add_argument(
        "--real", action="store_true", help="the meaning stage's flags on the real files"
    )
    parser.add_argument(
        "--no-segments", action="store_true", help="whole texts only (as before sentences)"
    )
    parser.add_argument(
        "--rate-scale",
        type=float,
        default=1.0,
        help="scale both out-of-fold rates of the cut-off rule (bench/guard_meaning_methods.py)",
    )
    parser.add_argument("--one-head", action="store_true", help="one regression for both")
    parser.add_argument(
        "--untaught-sentences", action="store_true", help="score sentences, teach none"
    )
    args = parser.parse_args()
    if args.rate_scale != 1.0:
        global HARD_RATE, ORDINARY_RATE  # noqa: PLW0603 - a switch for comparison runs
        HARD_RATE, ORDINARY_RATE = HARD_RATE * args.rate_scale, ORDINARY_RATE * args.rate_scale
    if args.untaught_sentences:
        global TEACH_SENTENCES  # noqa: PLW0603 - a switch for comparison runs
        TEACH_SENTENCES = False
    if args.one_head:
        global TWO_HEADS  # noqa: PLW0603 - a switch for comparison runs
        TWO_HEADS = False
    if args.no_segments:
        meaning.SEGMENT_TEXT = 0
    cache = Cache(Path(args.cache))
    rows = training_rows(shared_dir(args.shared))
    row_units = [units_of(row) for row in rows]
    vectors, spans = embed_texts(row_units, cache)
    unit_rows = np.concatenate([[i] * (len(a) + len(b)) for i, (a, b) in enumerate(spans)]).astype(
        int
    )
    y_rows = np.array([r.attack for r in rows], dtype=float)
    y_units = np.array(
        [y for row, p in zip(rows, row_units, strict=True) for y in taught_labels(row, p)]
    )
    centre = vectors.mean(axis=0)
    x = vectors - centre
    moves = np.array([moves_score(r.text) for r in rows])

    fold_of = np.array(
        [int(hashlib.sha1(r.group.encode()).hexdigest(), 16) % args.folds for r in rows]
    )
    oof = np.zeros((len(rows), 2))
    oof_sentence_head = np.zeros(len(rows))  # the sentences' head on whole texts
    for fold in range(args.folds):
        train = fold_of[unit_rows] != fold
        coef, bias = fit_heads(x[train], y_units[train], args.l2)
        held = [i for i in range(len(rows)) if fold_of[i] == fold]
        probs = row_probability(x, [spans[i] for i in held], coef, bias)
        oof[held] = probs
        swapped = row_probability(x, [spans[i] for i in held], coef[:, ::-1], bias[::-1])
        oof_sentence_head[held] = swapped[:, 0]
    everything = np.ones(len(rows), dtype=bool)
    threshold = cut_off(oof[:, 0], rows, everything)
    # Never stricter than the cut-off alone: a move found adds evidence, it takes none.
    with_moves = min(threshold, cut_off(oof[:, 0], rows, moves >= MOVES_FLOOR))
    # A sentence of a longer text: its own cut-off, at the same rates of ordinary text.
    # Never below the whole text's: the ordinary sentences taught are conversation and
    # documentation, not an agent's narration, and a message holds many of them.
    # ... nor below what the sentences' head needs on whole texts at the same rates.
    sentence = max(
        threshold,
        cut_off(oof_sentence_head, rows, everything),
        cut_off(oof[:, 1], rows, oof[:, 1] > 0),
    )
    attack = y_rows == 1

    def judged(probs: np.ndarray, row_moves: np.ndarray) -> np.ndarray:
        return (
            (probs[:, 0] >= threshold)
            | ((row_moves >= MOVES_FLOOR) & (probs[:, 0] >= with_moves))
            | (probs[:, 1] >= sentence)
        )

    caught = attack & judged(oof, moves)
    print(f"rows {len(rows)} (attacks {int(attack.sum())}), units {len(x)}")
    print(f"cut-offs: alone {threshold:.3f}, with moves {with_moves:.3f}, sentence {sentence:.3f}")
    print(f"out of fold: attacks caught by meaning {int(caught.sum())} of {int(attack.sum())}")
    # The attack moves written for this stage were never seen by the rules: a fresh round
    # for them, and (out of fold, by move) for the meaning stage too.
    STAGE.use(None)
    ruled = np.array([bool((f := find_injection(r.text)) and f.suspicious) for r in rows])
    STAGE.reset()
    print(
        f"out of fold, rules + meaning: {int((caught | ruled)[attack].sum())} of "
        f"{int(attack.sum())} attacks; hard negatives flagged by meaning "
        f"{int(judged(oof, moves)[~attack & hard_mask(rows)].sum())} of "
        f"{int((~attack & hard_mask(rows)).sum())}"
    )
    fresh = attack & np.array([r.group.startswith("meaning_train") for r in rows])
    hard = np.array([not r.attack and r.group.split(":")[0] in HARD for r in rows])
    print(
        f"moves written for this stage: rules {int(ruled[fresh].sum())} of {int(fresh.sum())}, "
        f"rules + meaning (out of fold) {int((ruled | caught)[fresh].sum())}; hard negatives "
        f"flagged: rules {int(ruled[hard].sum())}, rules + meaning "
        f"{int((ruled | judged(oof, moves))[hard].sum())} of {int(hard.sum())}"
    )

    coef, bias = fit_heads(x, y_units, args.l2)
    # A promise the tests keep (tests/core/test_guard_meaning_model.py): the final model
    # hides none of the look-alike rules it was trained on from the held-out corpus and
    # the fresh rounds. Where one sits above the cut-offs, they are raised past it.
    pinned = [i for i, r in enumerate(rows) if not r.attack and r.group.split(":")[0] in PINNED]
    pinned_p = row_probability(x, [spans[i] for i in pinned], coef, bias)
    if len(pinned) and pinned_p[:, 0].max() >= threshold:
        threshold = float(pinned_p[:, 0].max()) + PINNED_MARGIN
        print(f"cut-off raised to {threshold:.3f}: a pinned look-alike rule sat above it")
    if len(pinned) and pinned_p[:, 1].max() >= sentence:
        sentence = float(pinned_p[:, 1].max()) + PINNED_MARGIN
        print(f"sentence cut-off raised to {sentence:.3f}: a pinned look-alike rule sat above it")
    with_pinned = [j for j, i in enumerate(pinned) if moves[i] >= MOVES_FLOOR]
    if with_pinned and pinned_p[with_pinned, 0].max() >= with_moves:
        with_moves = float(pinned_p[with_pinned, 0].max()) + PINNED_MARGIN
    with_moves = min(threshold, with_moves)
    sentence = max(sentence, threshold)
    flagged = judged

    if args.writers:
        mixed = composed(rows)
        mixed_vectors, mixed_spans = embed_texts([text_units(text) for _, text in mixed], cache)
        STAGE.use(None)
        mixed_ruled = np.array([bool((f := find_injection(t)) and f.suspicious) for _, t in mixed])
        STAGE.reset()
        figures = leave_one_writer_out(
            rows,
            x,
            y_units,
            unit_rows,
            spans,
            lambda xs, ys: fit_heads(xs, ys, args.l2),
            row_probability,
            flagged,
            moves,
            ruled,
            Composed(
                np.array([i for i, _ in mixed]),
                mixed_vectors - centre,
                mixed_spans,
                np.array([moves_score(t) for _, t in mixed]),
                mixed_ruled,
            ),
        )
        print_writers(figures)
    if args.real:
        real_flags(shared_dir(args.shared), cache, centre, coef, bias, flagged)
    for name in ("injections_heldout.jsonl", "injections_rounds.jsonl"):
        held_rows = labelled_rows(GUARD_DATA / name, held_out=True)
        held_vectors, held_spans = embed_rows(held_rows, cache)
        probs = row_probability(held_vectors - centre, held_spans, coef, bias)
        held_moves = np.array([moves_score(r.text) for r in held_rows])
        found = judged(probs, held_moves)
        kinds = np.array([r.attack for r in held_rows])
        print(
            f"held out {name}: attacks flagged by meaning {int((found & kinds).sum())} of "
            f"{int(kinds.sum())}; ordinary flagged {int((found & ~kinds).sum())} of "
            f"{int((~kinds).sum())}"
        )
    if args.write:
        data = {
            "model": E5_MULTILINGUAL,
            "threshold": math.ceil(threshold * 1e4) / 1e4,  # never below the chosen one
            "threshold_with_moves": math.ceil(with_moves * 1e4) / 1e4,
            "threshold_sentence": math.ceil(sentence * 1e4) / 1e4,
            "bias": round(float(bias[0]), 6),
            "sentence_bias": round(float(bias[1]), 6),
            "trained_on": {"rows": len(rows), "attacks": int(attack.sum()), "l2": args.l2},
            "centre": [round(float(v), 6) for v in centre],
            "coef": [round(float(v), 6) for v in coef[:, 0]],
            "sentence_coef": [round(float(v), 6) for v in coef[:, 1]],
        }
        WEIGHTS_FILE.write_text(json.dumps(data) + "\n", "utf-8")
        print(f"wrote {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
