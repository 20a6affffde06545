"""Compare methods for the meaning stage on the same footing (prepared by guard_meaning_prep.py).

    python bench/guard_meaning_methods.py [--prep FILE] METHOD [METHOD...]

Each method is fitted as bench/train_guard_meaning.py fits the logistic regression: out
of fold by source group for the cut-offs, on everything for the real files' false flags
and the held-out rows, and once per writer left out for the recall on an unseen writer.
Its cut-offs come from the out-of-fold rule (at most 3% of the look-alike rules and 0.1%
of other ordinary text flagged) with both rates scaled by a factor k; for every k the
figures are printed, and the line marked `*` is the loosest k whose false flags on the
real files stay within the current ones (0 memory lines, 11 transcript messages). The
real files only count flags: nothing is fitted or chosen on one of them.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guard_meaning_eval import UNSEEN_BY_RULES  # noqa: E402
from guard_meaning_models import METHODS, Model  # noqa: E402
from guard_meaning_prep import DEFAULT_OUT  # noqa: E402
from train_guard_meaning import HARD, MOVES_FLOOR, ORDINARY_RATE, PINNED  # noqa: E402

HARD_RATE = 0.03
FACTORS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
REAL_BUDGET = {"memory": 0, "transcripts": 11}


def row_scores(unit: np.ndarray, spans: np.ndarray, *, swap: bool = False) -> np.ndarray:
    """(rows, 2): the highest passage score on head 0 and sentence score on head 1
    (-inf for none); `swap`: head 1 on the passages (and head 0 on the sentences)."""
    out = np.full((len(spans), 2), -np.inf)
    h0, h1 = (1, 0) if swap else (0, 1)
    for i, (a, b, c, d) in enumerate(spans):
        if b > a:
            out[i, 0] = unit[a:b, h0].max()
        if d > c:
            out[i, 1] = unit[c:d, h1].max()
    return out


@dataclass
class Data:
    d: dict[str, np.ndarray]

    def __getattr__(self, name: str) -> np.ndarray:
        return self.d[name]


def cut_off(scores: np.ndarray, hard: np.ndarray, other: np.ndarray, k: float) -> float:
    limits = [np.quantile(scores[hard], 1 - min(0.5, HARD_RATE * k)) if hard.any() else -np.inf]
    limits.append(np.quantile(scores[other], 1 - min(0.5, ORDINARY_RATE * k)))
    return float(np.nextafter(max(limits), np.inf))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("methods", nargs="+", choices=sorted(METHODS))
    parser.add_argument("--prep", default=str(DEFAULT_OUT))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--factors", default=",".join(map(str, FACTORS)))
    parser.add_argument(
        "--features", type=float, default=0.0, help="append word-class features at this scale"
    )
    parser.add_argument("--hold", default="", help="writers left out of every fit (prefix)")
    args = parser.parse_args()
    data = Data(dict(np.load(args.prep)))
    for name in args.methods:
        evaluate(name, METHODS[name], data, args)


def evaluate(name: str, make: Callable[[], Model], data: Data, args: argparse.Namespace) -> None:
    started = time.perf_counter()
    attack, group, writer = data.attack.astype(bool), data.group, data.writer
    spans, y_units = data.spans, data.y_units
    n_rows = len(attack)
    unit_rows = np.concatenate([[i] * (s[3] - s[0]) for i, s in enumerate(spans)]).astype(int)
    held_writers = [w for w in args.hold.split(",") if w]
    never = np.array([any(w.startswith(h) for h in held_writers) for w in writer])
    centre = data.vectors[~never[unit_rows]].mean(axis=0)
    feature_centre = None
    if args.features:
        from guard_meaning_features import feature_matrix  # noqa: PLC0415

        feature_centre = feature_matrix(data.unit_texts).mean(axis=0)

    def inputs(vectors: np.ndarray, texts: np.ndarray) -> np.ndarray:
        out = vectors - centre
        if feature_centre is None:
            return out
        found = feature_matrix(texts[: len(vectors)]) - feature_centre
        return np.hstack([out, args.features * found])

    x = inputs(data.vectors, data.unit_texts)
    real_x = inputs(data.real_vectors, data.real_unit_texts)
    held_x = inputs(data.held_vectors, data.held_unit_texts)
    mixed_x = inputs(data.mixed_vectors, data.mixed_unit_texts)
    source = np.array([g.split(":")[0] for g in group])
    hard = ~attack & np.isin(source, HARD) & ~never
    other = ~attack & ~np.isin(source, HARD) & ~never

    def fitted(train_rows: np.ndarray) -> Model:
        model = make()
        keep = train_rows[unit_rows] & ~never[unit_rows]
        model.fit(x[keep], y_units[keep])
        return model

    fold_of = np.array([int(hashlib.sha1(g.encode()).hexdigest(), 16) % args.folds for g in group])
    oof = np.zeros((n_rows, 2))
    oof_sentence_head = np.zeros(n_rows)  # the sentences' head on whole texts
    for fold in range(args.folds):
        model = fitted(fold_of != fold)
        held = fold_of == fold
        unit = model.scores(x)
        oof[held] = row_scores(unit, spans)[held]
        oof_sentence_head[held] = row_scores(unit, spans, swap=True)[held, 0]
    final = fitted(np.ones(n_rows, dtype=bool))
    real = row_scores(final.scores(real_x), data.real_spans)
    held_out = row_scores(final.scores(held_x), data.held_spans)
    pinned = ~attack & np.isin(source, PINNED)
    pinned_scores = row_scores(final.scores(x), spans)[pinned]
    # Leave one writer out: a fit per writer, scored on its rows and its composed texts.
    lowo = np.zeros((n_rows, 2))
    mixed_scores = np.zeros((len(data.mixed_rows), 2))
    writers = sorted({w for w, a in zip(writer, attack, strict=True) if a})
    for w in writers:
        mine = writer == w
        model = fitted(~mine)
        lowo[mine] = row_scores(model.scores(x), spans)[mine]
        in_mixed = mine[data.mixed_rows]
        mixed_scores[in_mixed] = row_scores(model.scores(mixed_x), data.mixed_spans)[in_mixed]
    took = time.perf_counter() - started
    print(f"== {name} ({took:.0f} s)")
    unseen = np.array([w.startswith(UNSEEN_BY_RULES) for w in writer]) & attack
    mixed_unseen = unseen[data.mixed_rows]
    best = None
    best_caught = np.zeros(n_rows, dtype=bool)
    for k in (float(f) for f in args.factors.split(",")):
        t = cut_off(oof[:, 0], hard, other, k)
        moved = data.moves >= MOVES_FLOOR
        tm = min(t, cut_off(oof[:, 0], hard & moved, other & moved, k))
        has_sentence = np.isfinite(oof[:, 1])
        ts = max(
            t,
            cut_off(oof_sentence_head, hard, other, k),
            cut_off(oof[:, 1], hard & has_sentence, other & has_sentence, k),
        )
        raised = ""
        if pinned_scores[:, 0].max() >= t:
            t = float(pinned_scores[:, 0].max()) + 1e-6
            raised += "w"
        if pinned_scores[:, 1].max() >= ts:
            ts = float(pinned_scores[:, 1].max()) + 1e-6
            raised += "s"
        tm, ts = min(tm, t), max(ts, t)

        def judged(s: np.ndarray, moves: np.ndarray, t=t, tm=tm, ts=ts) -> np.ndarray:
            return (s[:, 0] >= t) | ((moves >= MOVES_FLOOR) & (s[:, 0] >= tm)) | (s[:, 1] >= ts)

        real_flag = judged(real, data.real_moves)
        flags = {kind: int((real_flag & (data.real_kind == kind)).sum()) for kind in REAL_BUDGET}
        caught = judged(lowo, data.moves)
        either = caught | data.ruled
        mixed_either = judged(mixed_scores, data.mixed_moves) | data.mixed_ruled
        held_flag = judged(held_out, data.held_moves)
        ha = data.held_attack.astype(bool)
        test_half = ha & (data.held_file == "injections_heldout.jsonl")
        ok = all(flags[kind] <= REAL_BUDGET[kind] for kind in REAL_BUDGET)
        line = (
            f"  k={k:<4} cut {t:.3f}/{tm:.3f}/{ts:.3f}{raised:>2} | real mem {flags['memory']:>2} "
            f"tr {flags['transcripts']:>2} | LOWO unseen {int(either[unseen].sum())}/"
            f"{int(unseen.sum())} (meaning {int(caught[unseen].sum())}), after-sentence "
            f"{int(mixed_either[mixed_unseen].sum())}/{int(mixed_unseen.sum())}, all "
            f"{int(either[attack].sum())}/{int(attack.sum())}; LOWO "
            f"ordinary {int(caught[~attack].sum())} | test half {int(held_flag[test_half].sum())}/"
            f"{int(test_half.sum())} round5 {int(held_flag[ha & ~test_half].sum())}/"
            f"{int((ha & ~test_half).sum())} benign {int(held_flag[~ha].sum())}"
        )
        if ok:
            best = line
            best_caught = either
        print(line)
    print(f"* {best}")
    if best is not None:
        counts = [
            f"{w.split(':')[-1][:12]} {int(best_caught[(writer == w) & attack].sum())}/"
            f"{int(((writer == w) & attack).sum())}"
            for w in writers
            if w.startswith(UNSEEN_BY_RULES)
        ]
        print("  at *, rules + meaning per unseen writer: " + ", ".join(counts))
    per_writer(writers, writer, attack, lowo, data, never)


def per_writer(
    writers: list[str],
    writer: np.ndarray,
    attack: np.ndarray,
    lowo: np.ndarray,
    data: Data,
    never: np.ndarray,
) -> None:
    """Each writer's best-scored attacks ranked: the median score on head 0 and 1."""
    parts = []
    for w in writers:
        mine = (writer == w) & attack
        parts.append(f"{w.split(':')[-1][:10]} {np.median(np.max(lowo[mine], axis=1)):.2f}")
    print("  median LOWO score per writer: " + ", ".join(parts))


if __name__ == "__main__":
    main()
