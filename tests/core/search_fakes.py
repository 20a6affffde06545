"""A tiny deterministic embedder for search tests: hashed bag of tokens, counts calls."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from memdesk.core.search.tokenizer import tokenize


class CountingEmbedder:
    name = "counting-fake"
    dim = 1024

    def __init__(self) -> None:
        self.embedded: list[str] = []  # every text run through the "model"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                bucket = int(hashlib.md5(token.encode()).hexdigest(), 16) % self.dim
                out[row, bucket] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
