"""Experiment: does the meaning of a sentence (its e5 vector) help the learned scorer?

    python bench/semantic_experiment.py [--variant none|stack|pca|proto|stackz|blend|pcac]
                                        [--dims 16] [--l2-sem 10] [--text sentence|both]
                                        [--no-dev] [--no-bilingual]

Leave-one-project-out exactly as bench/train_scorer.py (same rows, L2, cut, whole
extract path), but the scorer gets extra features computed from the e5-multilingual
vector of each sentence, and everything that learns from the vectors is fitted inside
the fold (on the training projects only). Results: docs/extraction.md, "The meaning of
the sentence"; none was shipped.

- none: the shipped features only (reproduces train_scorer's figures);
- stack: a logistic regression over the centred vectors; its probability is one more
  feature. For the training rows it is out-of-fold (inner leave-one-project-out within
  the training projects), so the outer model sees an honest value;
- pca: the first --dims principal components of the centred vectors (fitted on the
  training rows), scaled to unit variance on them, appended;
- proto: cosine to the mean vector of matching rows minus cosine to the mean of the
  others (inner out-of-fold for the training rows, as stack);
- stackz: as stack, its logit z-scored within the transcript (the topic taken out);
  with --text both over the sentence's vector and its message's;
- blend: the out-of-fold cue-model logit and the stackz value combined by a three-weight
  regression;
- pcac: as pca, each vector centred on its transcript's mean first;
- gate: the shipped features' model, and a sentence whose stackz value is under --gate
  (standard deviations below its transcript's mean) is not kept by the model.

stackz, blend and pcac read the whole transcript: the scorer is told every eligible
sentence through a wrapper of `heuristic.in_transcript` (the extractor itself has no
such hook).

Vectors are cached in /tmp (by text) so reruns do not embed again.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bilingual_rows import score_bilingual  # noqa: E402
from extract_quality import default_bilingual  # noqa: E402
from extract_real import default_data  # noqa: E402
from gold_match import Totals, matches  # noqa: E402
from memdesk.core.embedding.e5 import e5_model  # noqa: E402
from memdesk.core.extract import heuristic  # noqa: E402
from memdesk.core.extract.features import NO_CONTEXT, Context, features  # noqa: E402
from memdesk.core.extract.heuristic import eligible_sentences, in_transcript  # noqa: E402
from memdesk.core.extract.learned import SEED_THRESHOLD  # noqa: E402
from memdesk.core.extract.readers import read_messages  # noqa: E402
from train_scorer import (  # noqa: E402
    Rows,
    best_threshold,
    evaluate,
    fit,
    gold_of,
    line,
    project_of,
)

CACHE = Path("/tmp/extractsem_vectors.npz")
PREPARING: list[SemScorer] = []  # the scorer being evaluated, told each transcript's sentences


def _in_transcript_and_prepare(
    items: list[heuristic.Eligible],
) -> tuple[list[float], list[Context]]:
    # The extractor does not hand a scorer the whole transcript (nothing shipped needs
    # it): the experiment's blend / stackz scorers z-score within it, so they are told
    # here, where scored_sentences asks for the transcript's repeats and contexts.
    for scorer in PREPARING:
        scorer.prepare([item.text for item in items], [item.message.text for item in items])
    return in_transcript(items)


heuristic.in_transcript = _in_transcript_and_prepare  # type: ignore[assignment]


class Vectors:
    def __init__(self) -> None:
        self.known: dict[str, np.ndarray] = {}
        if CACHE.exists():
            data = np.load(CACHE)
            for key, vec in zip(data["keys"], data["vecs"], strict=True):
                self.known[str(key)] = vec
        self.dirty = False

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    def get(self, texts: list[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if self.key(t) not in self.known))
        if todo:
            model = e5_model()
            for i in range(0, len(todo), 32):
                part = todo[i : i + 32]
                vecs = np.asarray(model.passage([t[:1500] for t in part]), dtype=np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                for t, v in zip(part, vecs, strict=True):
                    self.known[self.key(t)] = v
            self.dirty = True
        return np.array([self.known[self.key(t)] for t in texts])

    def save(self) -> None:
        if self.dirty:
            keys = list(self.known)
            np.savez(CACHE, keys=np.array(keys), vecs=np.array([self.known[k] for k in keys]))


def collect(data: Path, files: list[Path]) -> tuple[Rows, dict[str, int], list[str], list[str]]:
    xs: list[list[float]] = []
    ys: list[float] = []
    names: list[str] = []
    hit: list[set[str]] = []
    texts: list[str] = []
    messages: list[str] = []
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
            texts.append(item.text)
            messages.append(item.message.text)
    return Rows(np.array(xs), np.array(ys), names, hit), gold_count, texts, messages


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def with_bias(v: np.ndarray) -> np.ndarray:
    return np.hstack([np.ones((len(v), 1)), v])


# A head maps vectors to extra feature columns; `train_head` fits one on rows.
Head = Callable[[np.ndarray], np.ndarray]


def stack_head(v: np.ndarray, y: np.ndarray, l2: float) -> Head:
    centre = v.mean(axis=0)
    w = fit(with_bias(v - centre), y, l2)
    return lambda u: sigmoid(with_bias(u - centre) @ w)[:, None]


def pca_head(v: np.ndarray, y: np.ndarray, dims: int) -> Head:
    centre = v.mean(axis=0)
    _, _, vt = np.linalg.svd(v - centre, full_matrices=False)
    axes = vt[:dims]
    scale = ((v - centre) @ axes.T).std(axis=0)
    # unit variance, then squeezed to about [0, 1] like the cue features
    return lambda u: 0.5 + 0.25 * np.clip(((u - centre) @ axes.T) / scale, -2, 2)


def proto_head(v: np.ndarray, y: np.ndarray) -> Head:
    pos = v[y == 1].mean(axis=0)
    neg = v[y == 0].mean(axis=0)
    pos /= np.linalg.norm(pos)
    neg /= np.linalg.norm(neg)
    return lambda u: (u @ pos - u @ neg)[:, None] * 5 + 0.5


def make_head(variant: str, v: np.ndarray, y: np.ndarray, args: argparse.Namespace) -> Head:
    if variant == "stack":
        return stack_head(v, y, args.l2_sem)
    if variant == "pca":
        return pca_head(v, y, args.dims)
    if variant == "proto":
        return proto_head(v, y)
    raise ValueError(variant)


def out_of_fold(
    variant: str,
    v: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    mask: np.ndarray,
    args: argparse.Namespace,
) -> np.ndarray:
    """The head's columns for the rows in mask, each from a head fitted on the other
    projects within mask (pca needs no label, so it is fitted on all of mask)."""
    if variant == "pca":
        head = make_head(variant, v[mask], y[mask], args)
        return head(v[mask])
    index = np.flatnonzero(mask)
    out: np.ndarray | None = None
    for g in sorted(set(groups[mask])):
        inner = mask & (groups != g)
        rows = index[groups[index] == g]
        head = make_head(variant, v[inner], y[inner], args)
        cols = head(v[rows])
        if out is None:
            out = np.zeros((len(index), cols.shape[1]))
        out[np.searchsorted(index, rows)] = cols
    assert out is not None
    return out


class SemScorer:
    """Base cue features plus the head's columns; the same scale as LearnedScorer."""

    def __init__(
        self,
        weights: np.ndarray,
        threshold: float,
        head: Head | None,
        vectors: Vectors,
        blend: np.ndarray | None = None,
        sem: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self.blend = blend
        self.sem = sem
        self.weights = weights
        self.threshold = threshold
        self.head = head
        self.vectors = vectors
        self.cache: dict[str, np.ndarray] = {}

    gate: float | None = None  # gate: z-scored meaning under this drops the sentence
    with_message = False  # stackz with --text both: the sentence's and its message's vectors

    def prepare(self, texts: list[str], messages: list[str] | None = None) -> None:
        """blend: the sentence's meaning score, z-scored within its transcript."""
        if self.head is not None and self.sem is None and texts:
            # pcac: the head reads vectors centred on their transcript's mean
            u = self.vectors.get(texts)
            cols = self.head(u - u.mean(axis=0))
            self.cache = {t: c for t, c in zip(texts, cols, strict=True)}
            return
        if self.sem is None or not texts:
            return
        u = self.vectors.get(texts)
        if self.with_message and messages is not None:
            u = np.hstack([u, self.vectors.get(messages)])
        s = self.sem(u)
        z = (s - s.mean()) / (s.std() or 1.0)
        self.cache = {t: np.array([v]) for t, v in zip(texts, z, strict=True)}

    def extra(self, text: str) -> np.ndarray:
        if self.sem is not None:
            return self.cache.get(text, np.zeros(1))
        if self.head is None:
            return np.zeros(0)
        if text in self.cache:
            return self.cache[text]
        found = self.cache.get(text)
        if found is None:
            found = self.cache[text] = self.head(self.vectors.get([text]))[0]
        return found

    def score(
        self,
        text: str,
        role: str,
        block: str = "text",
        repeated: float = 0.0,
        context: Context = NO_CONTEXT,
    ) -> float:
        if self.gate is not None:
            if float(self.extra(text)[0]) < self.gate:
                return 0.0  # gate: the meaning is far below the transcript's usual
            x = np.array(features(text, role, block, repeated, context))
            z = float(x @ self.weights)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            return self.scaled(p)
        x = np.concatenate([features(text, role, block, repeated, context), self.extra(text)])
        if self.blend is not None:
            a, b, c = self.blend
            z = float(a + b * (x[:-1] @ self.weights) + c * x[-1])
        else:
            z = float(x @ self.weights)
        p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        return self.scaled(p)

    def scaled(self, p: float) -> float:
        t = self.threshold
        if p < t:
            return SEED_THRESHOLD * p / t
        return SEED_THRESHOLD + (1 - SEED_THRESHOLD) * (p - t) / (1 - t)


def preparing(scorer: SemScorer) -> SemScorer:
    PREPARING[:] = [scorer]
    return scorer


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="stack")
    parser.add_argument("--dims", type=int, default=16)
    parser.add_argument("--l2", type=float, default=3.0)
    parser.add_argument("--l2-sem", type=float, default=10.0)
    parser.add_argument("--floor", type=float, default=0.32)
    parser.add_argument("--no-dev", action="store_true")
    parser.add_argument("--gate", type=float, default=-1.0, help="gate: the z cut")
    parser.add_argument("--text", default="sentence", help="sentence | both (+ its message)")
    parser.add_argument("--no-bilingual", action="store_true")
    args = parser.parse_args()
    data = default_data()
    files = sorted(p for p in (data / "transcripts").iterdir() if p.is_file())
    rows, gold, texts, messages = collect(data, files)
    vectors = Vectors()
    started = time.time()
    v = vectors.get(texts)
    if args.text == "both":
        v = np.hstack([v, vectors.get(messages)])
    vectors.save()
    print(f"{len(texts)} rows, vectors in {time.time() - started:.1f} s")
    groups = np.array([project_of(n) for n in rows.file])
    variant = args.variant

    fnames = np.array(rows.file)

    def semfit(tr: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        c = v[tr].mean(axis=0)
        w = fit(with_bias(v[tr] - c), rows.y[tr], args.l2_sem)
        return lambda u: with_bias(u - c) @ w

    def zfile(s: np.ndarray, idx: np.ndarray) -> np.ndarray:
        out = s.copy()
        for f in set(fnames[idx]):
            m = fnames[idx] == f
            out[m] = (s[m] - s[m].mean()) / (s[m].std() or 1.0)
        return out

    def blended(mask: np.ndarray) -> SemScorer:
        b = np.zeros(len(rows.y))
        s = np.zeros(len(rows.y))
        for g in sorted(set(groups[mask])):
            inner = mask & (groups != g)
            idx = np.flatnonzero(mask & (groups == g))
            b[idx] = rows.x[idx] @ fit(rows.x[inner], rows.y[inner], args.l2)
            s[idx] = zfile(semfit(inner)(v[idx]), idx)
        x3 = np.column_stack([np.ones(len(b)), b, s])
        blend = fit(x3[mask], rows.y[mask], 0.1)
        p = sigmoid(x3 @ blend)
        t = best_threshold(p, rows, mask, gold, args.floor)
        w = fit(rows.x[mask], rows.y[mask], args.l2)
        print(f"    blend {np.round(blend, 2)} t={t:.2f}")
        return preparing(SemScorer(w, t, None, vectors, blend, semfit(mask)))

    def stackz(mask: np.ndarray) -> SemScorer:
        s = np.zeros(len(rows.y))
        for g in sorted(set(groups[mask])):
            inner = mask & (groups != g)
            idx = np.flatnonzero(mask & (groups == g))
            s[idx] = zfile(semfit(inner)(v[idx]), idx)
        x = np.column_stack([rows.x, s])
        w = fit(x[mask], rows.y[mask], args.l2)
        t = best_threshold(sigmoid(x @ w), rows, mask, gold, args.floor)
        print(f"    sem weight {w[-1]:.2f} t={t:.2f}")
        scorer = SemScorer(w, t, None, vectors, None, semfit(mask))
        scorer.with_message = args.text == "both"
        return preparing(scorer)

    centred = v.copy()
    for f in set(fnames):
        centred[fnames == f] -= v[fnames == f].mean(axis=0)

    def pcac(mask: np.ndarray) -> SemScorer:
        head = pca_head(centred[mask], rows.y[mask], args.dims)
        cols = np.zeros((len(rows.y), args.dims))
        cols[mask] = head(centred[mask])
        x = np.hstack([rows.x, cols])
        w = fit(x[mask], rows.y[mask], args.l2)
        t = best_threshold(sigmoid(x @ w), rows, mask, gold, args.floor)
        return preparing(SemScorer(w, t, head, vectors))

    def gated(mask: np.ndarray) -> SemScorer:
        w = fit(rows.x[mask], rows.y[mask], args.l2)
        t = best_threshold(sigmoid(rows.x @ w), rows, mask, gold, args.floor)
        scorer = SemScorer(w, t, None, vectors, None, semfit(mask))
        scorer.gate = args.gate
        return preparing(scorer)

    def trained(mask: np.ndarray) -> SemScorer:
        if variant == "gate":
            return gated(mask)
        if variant == "pcac":
            return pcac(mask)
        if variant == "stackz":
            return stackz(mask)
        if variant == "blend":
            return blended(mask)
        if variant == "none":
            x, head = rows.x, None
        else:
            cols = np.zeros((len(rows.y), 0))
            oof = out_of_fold(variant, v, rows.y, groups, mask, args)
            cols = np.zeros((len(rows.y), oof.shape[1]))
            cols[mask] = oof
            x = np.hstack([rows.x, cols])
            head = make_head(variant, v[mask], rows.y[mask], args)
        w = fit(x[mask], rows.y[mask], args.l2)
        p = sigmoid(x @ w)
        return SemScorer(w, best_threshold(p, rows, mask, gold, args.floor), head, vectors)

    everything = np.ones(len(rows.y), dtype=bool)
    if not args.no_dev:
        model = trained(everything)
        print(line("dev (trained on all)", evaluate(data, files, model)))
        print("  extra weights:", np.round(model.weights[rows.x.shape[1] :], 2))
        if not args.no_bilingual:
            print(line("bilingual (not trained on)", score_bilingual(default_bilingual(), model)))
    pooled = Totals()
    for project in sorted(set(groups)):
        held = [p for p in files if project_of(p.name) == project]
        held_model = trained(groups != project)
        result = evaluate(data, held, held_model)
        pooled.candidates += result.candidates
        pooled.matched_candidates += result.matched_candidates
        pooled.gold += result.gold
        pooled.matched_gold += result.matched_gold
        print(line(f"  held out: {project}", result) + f"  (t={held_model.threshold:.2f})")
    print(line(f"leave-one-project-out {variant}", pooled))
    vectors.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
