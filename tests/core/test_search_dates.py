"""A question naming a date ranks entries from other days lower (core/search/dates.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.core.entry import Entry, Source
from memdesk.core.search import SearchService
from memdesk.core.search.dates import (
    OTHER_DATE_WEIGHT,
    AskedDate,
    EntryDates,
    asked_date,
    entry_day,
    entry_days,
)


def _said(text: str, when: str, entry_id: str) -> Entry:
    return Entry(summary=text, id=entry_id, source=Source(origin="chat", timestamp=when))


def test_the_date_a_question_names() -> None:
    assert asked_date("What did Maria mention on 3 June, 2023?") == AskedDate(6, 2023, 3)
    assert asked_date("what happened on june 3 2023") == AskedDate(6, 2023, 3)
    assert asked_date("What happened to John's job in August 2023?") == AskedDate(8, 2023)
    assert asked_date("When did Melanie go camping in June?") == AskedDate(6)
    assert asked_date("May I ask what we decided?") is None
    assert asked_date("What happened on 31 February, 2023?") is None
    assert asked_date("how do we deploy?") is None


def test_the_days_an_entry_is_about() -> None:
    assert entry_day("1:56 pm on 8 May, 2023") == dt.date(2023, 5, 8)
    assert entry_day("2025-02-10T15:20:45+08:00") == dt.date(2025, 2, 10)
    assert entry_day("sometime") is None
    said = dt.date(2023, 6, 13)  # a Tuesday
    days = entry_days(_said("I went to the beach yesterday!", "13 June, 2023", "a"))
    assert days == {said, dt.date(2023, 6, 12)}
    days = entry_days(_said("Last Saturday I ran 10k.", "13 June, 2023", "b"))
    assert days == {said, dt.date(2023, 6, 10)}
    days = entry_days(_said("We moved last month.", "13 June, 2023", "c"))
    assert days is not None and dt.date(2023, 5, 31) in days
    assert entry_days(Entry(summary="no date", id="d")) is None


def test_entries_from_other_days_weigh_less() -> None:
    dates = EntryDates()
    june = _said("I went to the beach yesterday!", "13 June, 2023", "a")
    assert dates.weight(june, AskedDate(6, 2023, 12)) == 1.0  # "yesterday"
    assert dates.weight(june, AskedDate(6, 2023)) == 1.0
    assert dates.weight(june, AskedDate(7, 2023)) == OTHER_DATE_WEIGHT
    assert dates.weight(june, None) == 1.0
    assert dates.weight(Entry(summary="undated", id="u"), AskedDate(7, 2023)) == 1.0


def test_a_question_naming_a_date_finds_what_was_said_that_day(tmp_path: Path) -> None:
    entries = [
        _said(
            "Maria: I volunteered at the shelter, serving food to the homeless.",
            "2 May, 2023",
            "may",
        ),
        _said("Maria: Busy weekend, I helped at the church bake sale.", "3 June, 2023", "june"),
    ]
    service = SearchService(tmp_path, {"search": {"model": "none"}}, embedder=None)
    service.sync(entries)
    assert service.search("Where did Maria volunteer?", limit=1)[0].entry_id == "may"
    hits = service.search("Where did Maria volunteer in June 2023?", limit=2)
    assert [h.entry_id for h in hits] == ["june", "may"]
