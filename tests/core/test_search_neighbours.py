"""An entry is found through the turns beside it in its session and its session date."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.entry import Entry, Source
from memdesk.core.search import SearchService
from memdesk.core.search.neighbours import SessionNeighbours, date_words
from search_fakes import CountingEmbedder


def _turn(n: int, text: str, session: str = "s1", locator: bool = True) -> Entry:
    return Entry(
        summary=text,
        id=f"{session}-{n}",
        status="confirmed",
        source=Source(
            origin="transcript",
            session_id=session,
            locator=f"chat.jsonl#{n}" if locator else "",
            timestamp="2025-02-10T15:20:45+08:00",
        ),
    )


def _chat(locator: bool = True) -> list[Entry]:
    return [
        _turn(1, "Did you finally go to the pottery class?", locator=locator),
        _turn(2, "Yes, last Saturday, and I loved it", locator=locator),
        _turn(3, "Lunch was pasta again", locator=locator),
        # 10 before 9 in the list: order comes from the locator's number, not the text
        _turn(10, "The weather was cold all week", locator=locator),
        _turn(9, "Anything else new?", locator=locator),
        Entry(summary="the garden needs water", id="other", status="confirmed"),
    ]


def _ids(service: SearchService, query: str, mode: str = "text") -> list[str]:
    return [h.entry_id for h in service.search(query, mode=mode, limit=10)]


def test_an_answer_turn_is_found_through_the_question_beside_it(tmp_path: Path) -> None:
    service = SearchService(tmp_path / "a", {"search": {"model": "none"}})
    service.sync(_chat())
    found = _ids(service, "when did she go to the pottery class")
    assert found[0] == "s1-1"  # the turn that says it itself still ranks first
    assert "s1-2" in found  # the answer, which never says "pottery"

    loose = SearchService(tmp_path / "b", {"search": {"model": "none"}})
    loose.sync(_chat(locator=False))  # no place in the session: no neighbours
    assert "s1-2" not in _ids(loose, "when did she go to the pottery class")


def test_neighbours_follow_the_locator_order_across_sessions() -> None:
    entries = {e.id: e for e in _chat()}
    entries["s2-1"] = _turn(1, "a turn of another session", session="s2")
    neighbours = SessionNeighbours()
    neighbours.rebuild(entries)
    assert neighbours.around("s1-3") == ("s1-2", "s1-9")
    assert neighbours.around("s1-10") == ("s1-9", None)
    assert neighbours.around("s2-1") == (None, None)
    assert neighbours.around("other") == (None, None)


def test_the_session_date_is_searchable_in_words(tmp_path: Path) -> None:
    assert date_words("2025-02-10T15:20:45+08:00") == "10 February 2025"
    assert date_words("1:56 pm on 8 May, 2023") == "1:56 pm on 8 May, 2023"
    service = SearchService(tmp_path, {"search": {"model": "none"}})
    service.sync(_chat())
    assert "s1-2" in _ids(service, "February 2025")
    assert "other" not in _ids(service, "February 2025")


def test_a_changed_or_removed_turn_re_indexes_its_neighbours(tmp_path: Path) -> None:
    service = SearchService(tmp_path, {"search": {"model": "none"}})
    entries = _chat()
    service.sync(entries)
    assert "s1-3" not in _ids(service, "ceramics")
    service.update(entries[1].copy(summary="Yes, the ceramics teacher was great"))
    assert "s1-3" in _ids(service, "ceramics")  # a neighbour of the changed turn
    service.remove("s1-2")
    assert _ids(service, "ceramics") == []
    # s1-1 and s1-3 are now neighbours of each other
    assert "s1-3" in _ids(service, "pottery")

    reopened = SearchService(tmp_path, {"search": {"model": "none"}})
    report = reopened.sync([e for e in entries if e.id != "s1-2"])
    assert report.added == report.updated == 0  # what update/remove indexed is current


def test_semantic_hits_lift_the_turn_beside_them(tmp_path: Path) -> None:
    settings = {"search": {"min_similarity": 0.3}}
    service = SearchService(tmp_path, settings, embedder=CountingEmbedder())
    service.sync(_chat())
    hits = service.search("did you go to the pottery class", mode="semantic", limit=3)
    assert hits[0].entry_id == "s1-1"
    answer = next(h for h in hits if h.entry_id == "s1-2")
    # shown similarity stays the turn's own cosine, not the lifted score
    assert answer.similarity is not None and answer.similarity < 0.3
