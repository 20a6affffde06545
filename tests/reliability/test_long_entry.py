"""Reliability: a store holding one very long entry builds its search index in the
time of a short one (round 8, R3). Counted, not timed: the tokens the embedding model
is given for the entry itself and for its neighbours' passages."""

from __future__ import annotations

from pathlib import Path

from e5_fakes import CountingE5, e5_embedder
from memdesk.core.entry import Entry, Source
from memdesk.core.search import SearchService
from memdesk.core.search.embedder import E5_MAX_TOKENS


def _turn(n: int, text: str) -> Entry:
    source = Source(origin="transcript", session_id="s1", locator=f"chat.jsonl#{n}")
    return Entry(summary=text, id=f"t{n}", status="confirmed", source=source)


def test_one_long_entry_feeds_the_model_no_more_than_its_window(tmp_path: Path) -> None:
    model = CountingE5()
    service = SearchService(tmp_path, {}, embedder=e5_embedder(model))
    entries = [_turn(1, "Use pnpm"), _turn(2, "xy " * 40_000), _turn(3, "Run make lint")]
    service.sync(entries)
    assert model.fed, "nothing embedded"
    assert max(model.fed) <= E5_MAX_TOKENS
    # The entries and the passages around the long one: a handful of windows at most,
    # not the 60,000 tokens of the long entry, three times over.
    assert sum(model.fed) <= 2 * len(entries) * E5_MAX_TOKENS
