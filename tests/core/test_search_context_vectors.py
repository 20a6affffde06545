"""An entry said in a session is also embedded with its neighbours and session date."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from memdesk.core.entry import Entry, Source
from memdesk.core.search import SearchService
from memdesk.core.search.context_vectors import ContextVectors
from memdesk.core.search.neighbours import SessionNeighbours
from search_fakes import CountingEmbedder


def _turn(n: int, text: str, locator: bool = True) -> Entry:
    return Entry(
        summary=text,
        id=f"t{n}",
        status="confirmed",
        source=Source(
            origin="transcript",
            session_id="s1",
            locator=f"chat.jsonl#{n}" if locator else "",
            timestamp="2025-02-10T15:20:45+08:00",
        ),
    )


def _chat(locator: bool = True) -> list[Entry]:
    return [
        _turn(1, "Did you finally go to the pottery class?", locator),
        _turn(2, "Yes, and I loved it", locator),
        _turn(3, "Lunch was pasta again", locator),
        _turn(4, "The weather was cold all week", locator),
        Entry(summary="the garden needs water", id="note", status="confirmed"),
    ]


def _semantic(service: SearchService, query: str) -> dict[str, float]:
    return {h.entry_id: h.score for h in service.search(query, mode="semantic")}


def test_a_turn_is_embedded_with_its_neighbours_and_date(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    service = SearchService(tmp_path, {"search": {"min_similarity": 0.0}}, embedder=embedder)
    service.sync(_chat())
    passages = [t for t in embedder.embedded if "\n" in t]
    # One passage per turn; the note outside any session order has none.
    assert len(passages) == 4
    second = next(
        p for p in passages if p.split("\n")[2:3] == ["Yes, and I loved it"] and p.count("\n") == 3
    )
    assert second.split("\n") == [
        "10 February 2025",
        "Did you finally go to the pottery class?",
        "Yes, and I loved it",
        "Lunch was pasta again",
    ]
    # The answer turn never says "pottery": its passage does, so its blended cosine
    # rises above what its own words give (the hit still shows its own cosine).
    entries = {e.id: e for e in _chat()}
    neighbours = SessionNeighbours()
    neighbours.rebuild(entries)
    passages = ContextVectors(embedder, tmp_path / "passages", threading.RLock(), share=0.5)
    passages.sync(entries, neighbours)
    query = embedder.embed(["pottery class"])[0]
    rows = {entry_id: n for n, entry_id in enumerate(entries)}
    own = embedder.embed([e.search_text() for e in entries.values()]) @ query
    blended = passages.blend(own, rows, query, stamp=0)
    assert own[rows["t2"]] == 0.0 and blended[rows["t2"]] > 0.1
    assert blended[rows["note"]] == own[rows["note"]]  # no session order: unchanged
    hit = next(h for h in service.search("pottery class", mode="semantic") if h.entry_id == "t2")
    assert hit.similarity == 0.0
    # The pair finder compares the entries' own vectors, not the passages.
    own = embedder.embed(["Yes, and I loved it"])[0]
    assert np.allclose(service.vector_of("t2"), own, atol=0.02)


def test_a_change_re_embeds_its_own_and_its_neighbours_passages(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    service = SearchService(tmp_path, {}, embedder=embedder)
    service.sync(_chat())
    embedder.embedded.clear()
    changed = _turn(3, "Lunch was ramen for once")
    service.update(changed)
    passages = [t for t in embedder.embedded if "\n" in t]
    assert len(passages) == 3  # t2, t3, t4 all read t3's text
    assert all("ramen" in p for p in passages)
    assert "Lunch was ramen for once" in embedder.embedded  # its own vector too

    embedder.embedded.clear()
    service.remove("t3")  # t2 and t4 become neighbours
    assert sorted(t.split("\n")[2] for t in embedder.embedded) == [
        "The weather was cold all week",
        "Yes, and I loved it",
    ]
    assert "t3" not in _semantic(service, "lunch ramen")

    entries = [e for e in _chat() if e.id != "t3"]
    embedder.embedded.clear()
    restarted = SearchService(tmp_path, {}, embedder=embedder)
    restarted.sync(entries)
    assert embedder.embedded == []  # passages come from their cache on restart
