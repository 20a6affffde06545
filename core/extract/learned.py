"""The learned scorer: a logistic model over cue features, weights shipped as JSON.

`scorer_weights.json` (next to this file) is written by `bench/train_scorer.py`, trained
only on the hand-judged dev transcripts: `{"features": [...], "weights": [...],
"threshold": t, ...}`. The probability p = sigmoid(w . x) is put on seed 001's scale so
that the model's own threshold t lands on 0.6 (`[extractor] threshold` keeps its
meaning) and p = 1 on 1.0: 0.6 * p / t below t, 0.6 + 0.4 * (p - t) / (1 - t) above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from memdesk.core.extract.features import FEATURES, NO_CONTEXT, Context, features
from memdesk.core.jsonfile import read_json

WEIGHTS_FILE = Path(__file__).with_name("scorer_weights.json")
SEED_THRESHOLD = 0.6


@dataclass(frozen=True)
class LearnedScorer:
    weights: tuple[float, ...]
    threshold: float  # the probability the model was tuned to keep from

    def probability(
        self,
        text: str,
        role: str,
        block: str = "text",
        repeated: float = 0.0,
        context: Context = NO_CONTEXT,
    ) -> float:
        x = features(text, role, block, repeated, context)
        z = sum(w * v for w, v in zip(self.weights, x, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def score(
        self,
        text: str,
        role: str,
        block: str = "text",
        repeated: float = 0.0,
        context: Context = NO_CONTEXT,
    ) -> float:
        """The probability on seed 001's scale (the model's threshold is 0.6)."""
        p = self.probability(text, role, block, repeated, context)
        t = self.threshold
        if p < t:
            return SEED_THRESHOLD * p / t
        return SEED_THRESHOLD + (1 - SEED_THRESHOLD) * (p - t) / (1 - t)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LearnedScorer:
        names = list(data["features"])
        if names != list(FEATURES):
            missing = sorted(set(FEATURES) ^ set(names))
            raise ValueError(f"scorer weights do not fit the features (differ in {missing})")
        return cls(tuple(float(w) for w in data["weights"]), float(data["threshold"]))


@cache
def shipped_scorer() -> LearnedScorer | None:
    """The weights in the package, or None when they are missing or stale."""
    try:
        return LearnedScorer.from_json(read_json(WEIGHTS_FILE))
    except (OSError, ValueError, KeyError, TypeError):
        return None
