"""A question naming a speaker ranks what others said lower (core/search/speakers.py)."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.entry import Entry, Source
from memdesk.core.search import SearchService
from memdesk.core.search.speakers import OTHER_SPEAKER_WEIGHT, Speakers, speaker_of


def _turn(session: str, n: int, text: str) -> Entry:
    return Entry(
        summary=text,
        id=f"{session}-{n}",
        kind="event",
        source=Source(origin="chat", session_id=session, locator=f"D{n}"),
    )


TURNS = [
    _turn("s1", 1, "Anna: We adopted a pet! Best pet ever."),
    _turn("s1", 2, "Anna: He already knows sit."),
    _turn("s2", 1, "Bob: I finally adopted a cat from the shelter, she sleeps all day long."),
    _turn("s2", 2, "Bob: Her name is Miso."),
]


def test_the_person_a_question_names_comes_first(tmp_path: Path) -> None:
    service = SearchService(tmp_path, {"search": {"model": "none"}}, embedder=None)
    service.sync(TURNS)
    hits = [h.entry_id for h in service.search("What pet did Bob adopt?", limit=3)]
    assert hits[0] == "s2-1", hits
    # Without a name, the turn that matches best stays first.
    assert service.search("Which pet was adopted?", limit=1)[0].entry_id == "s1-1"
    assert service.search("What pet did bob adopt", limit=1)[0].entry_id == "s2-1"


def test_speakers_are_names_opening_turns_of_a_session() -> None:
    assert speaker_of(TURNS[0]) == "Anna"
    assert speaker_of(Entry(summary="Anna: not said in a session", id="x")) is None
    assert speaker_of(_turn("s3", 1, "Fix: one shared pool")) == "Fix"
    speakers = Speakers()
    speakers.rebuild({e.id: e for e in [*TURNS, _turn("s3", 1, "Fix: one shared pool")]})
    assert speakers.named_in("what did bob's sister say?") == {"Bob"}
    assert speakers.named_in("how was the fix made?") == frozenset()  # one turn: a label
    named = speakers.named_in("What did Bob adopt?")
    assert speakers.weight("s1-1", named) == OTHER_SPEAKER_WEIGHT
    assert speakers.weight("s2-1", named) == 1.0
    assert speakers.weight("s3-1", named) == 1.0
    assert speakers.weight("s1-1", frozenset()) == 1.0


def test_a_changed_or_removed_turn_changes_who_is_a_speaker(tmp_path: Path) -> None:
    service = SearchService(tmp_path, {"search": {"model": "none"}}, embedder=None)
    service.sync(TURNS[:3])  # Bob has one turn: not a speaker yet
    assert service.search("What pet did Bob adopt?", limit=1)[0].entry_id == "s1-1"
    service.update(TURNS[3])
    assert service.search("What pet did Bob adopt?", limit=1)[0].entry_id == "s2-1"
    service.remove("s2-2")
    assert service.search("What pet did Bob adopt?", limit=1)[0].entry_id == "s1-1"
