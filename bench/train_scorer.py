"""Train the learned scorer on the dev gold and judge it on projects it has not seen.

    python bench/train_scorer.py [--data DIR] [--write] [--l2 3.0] [--floor 0.32]
                                 [--cap N] [--per-message R] [--drop F,G]
                                 [--bilingual [DIR]] [--extras FILE]

Rows: every sentence the default extractor would score (its sources, split and minus the
rejected, core/extract/heuristic.py `eligible_sentences`), with the cue features of
core/extract/features.py; label 1 when the sentence matches a gold fact of its file by
the rule of gold/README.md (bench/gold_match.py). A logistic regression (L2, Newton
steps) is fitted; its threshold is the probability that keeps the most gold facts among
the cuts whose training-row precision is at least --floor (precision = kept rows that
match / kept rows, recall = gold facts matched); with --floor 0, the F1-best cut.

The bilingual dev set (bench/bilingual_rows.py: Chinese, English and mixed sessions,
its own matching rule) is always scored, and with --bilingual its sentences are one
more project of training rows. (Measured: with them, dev precision fell by 0.02 and the
bilingual figures did not move, so the shipped model is trained without them.)

Reported, each through the whole `memdesk extract` path (bench/extract_real.py's
scoring, cap included):

- rules: the hand rules alone (`scorer = "rules"`);
- dev: the model trained on every dev transcript, scored on the same transcripts;
- leave-one-project-out: for each project (the file name before the first `-`), a model
  trained on the other projects scores that project's transcripts; pooled (micro) over
  the real transcripts;
- bilingual: bench/extract_quality.py's figures for the model trained on everything
  (held out, unless --bilingual), and with --bilingual for the model trained without it.

`--extras FILE` writes the held-out candidates that match no gold fact (one JSON line
each, `{"file", "text"}`): the junk a model makes on a project it was not trained on,
which is what to read for classes of junk that generalise (bench/extract_misses.py
reads the shipped model's, on the files it was trained on).

`--write` stores the model trained on every dev transcript in
core/extract/scorer_weights.json, which the package ships.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bilingual_rows import collect_bilingual, score_bilingual  # noqa: E402
from extract_quality import default_bilingual  # noqa: E402
from extract_real import default_data  # noqa: E402
from gold_match import GoldFact, Totals, matches, score_file  # noqa: E402
from memdesk.core.extract.features import FEATURES, features  # noqa: E402
from memdesk.core.extract.heuristic import eligible_sentences, in_transcript  # noqa: E402
from memdesk.core.extract.learned import WEIGHTS_FILE, LearnedScorer  # noqa: E402
from memdesk.core.extract.readers import read_messages  # noqa: E402
from memdesk.core.extract.settings import ExtractorSettings  # noqa: E402
from memdesk.core.extract.transcript import transcript_candidates  # noqa: E402

logging.getLogger("memdesk").setLevel(logging.ERROR)


@dataclass
class Rows:
    x: np.ndarray
    y: np.ndarray
    file: list[str]
    facts: list[set[str]]  # per row: ids of gold facts it matches


def project_of(name: str) -> str:
    return name.split("-", 1)[0]


def gold_of(data: Path, name: str) -> list[GoldFact]:
    gold = json.loads((data / "gold" / f"{name}.json").read_text("utf-8"))
    return [GoldFact.from_json(f) for f in gold["facts"]]


def collect(data: Path, files: list[Path]) -> tuple[Rows, dict[str, int]]:
    xs: list[list[float]] = []
    ys: list[float] = []
    names: list[str] = []
    hit: list[set[str]] = []
    gold_count: dict[str, int] = {}
    for path in files:
        facts = gold_of(data, path.name)
        gold_count[path.name] = len(facts)
        items = list(eligible_sentences(read_messages(path)))
        repeats, contexts = in_transcript(items)
        for item, repeated, context in zip(items, repeats, contexts, strict=True):
            found = {f.id for f in facts if matches(f, item.text)}
            xs.append(features(item.text, item.role, item.block, repeated, context))
            ys.append(1.0 if found else 0.0)
            names.append(path.name)
            hit.append(found)
    rows = Rows(np.array(xs, dtype=float), np.array(ys), names, hit)
    return rows, gold_count


BILINGUAL = "bilingual"  # its rows' file name and project


def add_bilingual(rows: Rows, gold: dict[str, int], data: Path) -> Rows:
    extra = collect_bilingual(data)
    gold[BILINGUAL] = extra.gold
    return Rows(
        np.vstack([rows.x, np.array(extra.x, dtype=float)]),
        np.concatenate([rows.y, np.array(extra.y)]),
        [*rows.file, *[BILINGUAL] * len(extra.y)],
        [*rows.facts, *extra.facts],
    )


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 30) -> np.ndarray:
    """Logistic regression by Newton's method; the bias (column 0) is not penalised."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x.T * (p * (1 - p))) @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def best_threshold(
    p: np.ndarray, rows: Rows, mask: np.ndarray, gold: dict[str, int], floor: float = 0.0
) -> float:
    """The probability cut that maximises F1 over the rows in `mask`; with a precision
    `floor`, the cut that maximises recall among those keeping precision >= floor."""
    total_gold = sum(gold[name] for name in set(np.array(rows.file)[mask]))
    best, best_f1 = 0.5, -1.0
    floor_best, floor_recall = -1.0, -1.0
    index = np.flatnonzero(mask)
    for t in np.arange(0.05, 0.95, 0.01):
        kept = index[p[index] >= t]
        if not len(kept):
            continue
        precision = rows.y[kept].mean()
        covered = {(rows.file[i], g) for i in kept for g in rows.facts[i]}
        recall = len(covered) / total_gold if total_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        if f1 > best_f1:
            best, best_f1 = float(t), f1
        if floor and precision >= floor and recall > floor_recall:
            floor_best, floor_recall = float(t), recall
    return floor_best if floor_best >= 0 else best


def train(
    rows: Rows, mask: np.ndarray, gold: dict[str, int], l2: float, floor: float = 0.0
) -> LearnedScorer:
    w = fit(rows.x[mask], rows.y[mask], l2)
    p = 1.0 / (1.0 + np.exp(-np.clip(rows.x @ w, -30, 30)))
    return LearnedScorer(tuple(float(v) for v in w), best_threshold(p, rows, mask, gold, floor))


def evaluate(
    data: Path,
    files: list[Path],
    scorer: object,
    cap: int = 0,
    per_message: float = -1.0,
    extras: list[dict[str, str]] | None = None,
) -> Totals:
    """The pooled score; with `extras`, the candidates that match no gold fact are added
    to it as {"file", "text"}."""
    settings = ExtractorSettings(max_per_transcript=cap) if cap else ExtractorSettings()
    if per_message >= 0:
        settings = replace(settings, cap_per_message=per_message)
    totals = Totals()
    for path in files:
        result = transcript_candidates(path, settings, opts={"scorer": scorer})
        texts = ["\n".join([e.summary, *e.facts]) for e in result.entries]
        facts = gold_of(data, path.name)
        totals.add(score_file(texts, facts))
        if extras is not None:
            extras.extend(
                {"file": path.name, "text": text}
                for text in texts
                if not any(matches(fact, text) for fact in facts)
            )
    return totals


def line(label: str, totals: Totals) -> str:
    return (
        f"{label:<28} cand {totals.candidates:>4}  P {totals.precision:.3f}  "
        f"R {totals.recall:.3f}  F1 {totals.f1:.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--l2", type=float, default=3.0)
    parser.add_argument("--write", action="store_true", help="ship the model trained on all")
    parser.add_argument("--dump", default="", help="also write the model trained on all here")
    parser.add_argument("--cap", type=int, default=0, help="max_per_transcript (default: setting)")
    parser.add_argument(
        "--per-message", type=float, default=-1.0, help="cap_per_message (default: setting)"
    )
    parser.add_argument(
        "--extras",
        type=Path,
        default=None,
        help="write the held-out candidates that match no gold fact here (JSON lines)",
    )
    parser.add_argument(
        "--drop",
        default="",
        help="comma-separated features to leave out (their column zeroed: weight 0)",
    )
    parser.add_argument(
        "--floor", type=float, default=0.32, help="pick the cut by recall at this precision"
    )
    parser.add_argument(
        "--bilingual",
        type=Path,
        nargs="?",
        const=Path(""),
        default=None,
        help="also train on the bilingual dev set (default: $MEMDESK_BILINGUAL_DATA or ../shared)",
    )
    args = parser.parse_args()
    data = args.data or default_data()
    files = sorted(p for p in (data / "transcripts").iterdir() if p.is_file())
    rows, gold = collect(data, files)
    print(f"{len(rows.y)} sentences, {int(rows.y.sum())} match a gold fact, {len(files)} files")
    for name in filter(None, args.drop.split(",")):
        rows.x[:, FEATURES.index(name)] = 0.0  # a zero column gets weight 0 under L2
    bilingual = args.bilingual if args.bilingual not in (None, Path("")) else default_bilingual()
    if args.bilingual is not None:
        rows = add_bilingual(rows, gold, bilingual)
        extra = int(rows.y[np.array(rows.file) == BILINGUAL].sum())
        print(f"+ bilingual: {gold[BILINGUAL]} expected facts, {extra} matching sentences")
    everything = np.ones(len(rows.y), dtype=bool)
    model = train(rows, everything, gold, args.l2, args.floor)
    print(
        line("rules (hand rules only)", evaluate(data, files, "rules", args.cap, args.per_message))
    )
    print(
        line(
            "learned, dev (trained on all)",
            evaluate(data, files, model, args.cap, args.per_message),
        )
    )
    pooled = Totals()
    extras: list[dict[str, str]] | None = [] if args.extras else None
    projects = sorted({project_of(p.name) for p in files})
    file_names = np.array(rows.file)
    if args.bilingual is not None:
        print(line("bilingual, trained with it", score_bilingual(bilingual, model)))
        without = train(rows, file_names != BILINGUAL, gold, args.l2, args.floor)
        print(line("bilingual, held out", score_bilingual(bilingual, without)))
    elif bilingual.is_dir():
        print(line("bilingual (not trained on)", score_bilingual(bilingual, model)))
    for project in projects:
        held = [p for p in files if project_of(p.name) == project]
        mask = np.array([project_of(n) != project for n in file_names], dtype=bool)
        held_model = train(rows, mask, gold, args.l2, args.floor)
        result = evaluate(data, held, held_model, args.cap, args.per_message, extras)
        pooled.candidates += result.candidates
        pooled.matched_candidates += result.matched_candidates
        pooled.gold += result.gold
        pooled.matched_gold += result.matched_gold
        print(line(f"  held out: {project}", result) + f"  (t={held_model.threshold:.2f})")
    print(line("leave-one-project-out", pooled))
    if args.extras and extras is not None:
        args.extras.write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in extras), "utf-8"
        )
        print(f"{len(extras)} held-out candidates match no gold fact: {args.extras}")
    print("\nweights (trained on all):")
    for name, weight in sorted(
        zip(FEATURES, model.weights, strict=True), key=lambda nw: -abs(nw[1])
    ):
        print(f"  {name:<16} {weight:+.2f}")
    print(f"  threshold p >= {model.threshold:.2f}")
    if args.dump:
        Path(args.dump).write_text(
            json.dumps(
                {
                    "features": list(FEATURES),
                    "weights": list(model.weights),
                    "threshold": model.threshold,
                }
            )
        )
    if args.write:
        WEIGHTS_FILE.write_text(
            json.dumps(
                {
                    "model": "logistic regression over cue features (core/extract/features.py)",
                    "trained_on": [p.name for p in files]
                    + ([BILINGUAL] if args.bilingual is not None else []),
                    "trained": dt.date.today().isoformat(),
                    "l2": args.l2,
                    "features": list(FEATURES),
                    "weights": [round(w, 4) for w in model.weights],
                    "threshold": round(model.threshold, 3),
                },
                indent=1,
            )
            + "\n",
            "utf-8",
        )
        print(f"wrote {WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
