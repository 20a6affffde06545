"""A question that names a date ranks entries from other days lower.

"What did Maria mention on 3 June, 2023?", "What happened to John's job in August
2023?", "When did Melanie go camping in June?": the date a question names is nearly
always the day the thing was said or happened, while full text barely sees it (the
session date in words is in every entry's context field, "2023" in all of them) and the
semantic side not at all. So a question naming a day ("3 June 2023", "June 3, 2023"), a
month of a year ("August 2023") or a month alone ("in June") keeps the fused score of
entries dated then, and multiplies the score of entries dated otherwise by
OTHER_DATE_WEIGHT; entries with no date keep theirs.

An entry's dates: the day of its source timestamp (ISO, or the "8 May, 2023" of a chat
export) and the days its own words point to from there: "yesterday" the day before,
"last week" / "last weekend" the fortnight before, "last Saturday" that day, "last
month" the month before, "a few days ago" the four days before, "tomorrow", "next
week", "next month" forward. A "last week" turn of 13 June is about early June.

LoCoMo dev (the questions naming a date: 34 of 383; for 27 of them a turn that answers
was said on that day or month): recall_any@10 0.856 -> 0.869 with the session date
alone and with relative dates (which add @1 0.509 -> 0.514); weight 0.5 chosen among
0.3 / 0.5 / 0.7 (0.867 / 0.869 / 0.869).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from memdesk.core.entry import Entry

OTHER_DATE_WEIGHT = 0.5
_MONTHS = [m.lower() for m in calendar.month_name[1:]]
_MONTH = "|".join(calendar.month_name[1:])
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}) ({_MONTH}),? (\d{{4}})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH}) (\d{{1,2}}),? (\d{{4}})\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b({_MONTH}),? (\d{{4}})\b", re.IGNORECASE)
# A month alone only after a word that makes it a time ("in May", not "may I").
_MONTH_ALONE = re.compile(rf"\b(?:in|during|of) ({_MONTH})\b", re.IGNORECASE)
_WEEKDAYS = [d.lower() for d in calendar.day_name]
_RELATIVE = re.compile(
    r"\b(yesterday|tomorrow|last night|last week(?:end)?|next week|last month|next month|"
    r"(?:a few|two|three|a couple of) days ago|last (?:" + "|".join(_WEEKDAYS) + r"))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class AskedDate:
    """The date a question names: a day, a month of a year, or a month of any year."""

    month: int
    year: int | None = None
    day: int | None = None

    def matches(self, day: dt.date) -> bool:
        if day.month != self.month or (self.year is not None and day.year != self.year):
            return False
        return self.day is None or day.day == self.day


def asked_date(query: str) -> AskedDate | None:
    """The date `query` names, the most precise first; None when it names none."""
    if found := _DAY_MONTH_YEAR.search(query):
        day, month, year = found.groups()
        return _valid(int(year), month, int(day))
    if found := _MONTH_DAY_YEAR.search(query):
        month, day, year = found.groups()
        return _valid(int(year), month, int(day))
    if found := _MONTH_YEAR.search(query):
        return AskedDate(_month(found.group(1)), int(found.group(2)))
    if found := _MONTH_ALONE.search(query):
        return AskedDate(_month(found.group(1)))
    return None


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()) + 1


def _valid(year: int, month: str, day: int) -> AskedDate | None:
    try:
        dt.date(year, _month(month), day)
    except ValueError:
        return None
    return AskedDate(_month(month), year, day)


def entry_day(timestamp: str) -> dt.date | None:
    """The day of a source timestamp: ISO 8601, or a chat export's "8 May, 2023" /
    "May 8, 2023" anywhere in it; None when it names no day."""
    text = timestamp.strip()
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    for pattern, order in ((_DAY_MONTH_YEAR, (2, 1, 0)), (_MONTH_DAY_YEAR, (2, 0, 1))):
        if found := pattern.search(text):
            parts = found.groups()
            year, month, day = (parts[i] for i in order)
            try:
                return dt.date(int(year), _month(month), int(day))
            except ValueError:
                return None
    return None


def entry_days(entry: Entry) -> frozenset[dt.date] | None:
    """The days an entry is about: its own day and the days its words point to from
    there (module doc); None when its source has no day."""
    said = entry_day(entry.source.timestamp)
    if said is None:
        return None
    days = {said}
    for found in _RELATIVE.finditer(entry.search_text()):
        days.update(_pointed(said, " ".join(found.group(1).lower().split())))
    return frozenset(days)


def _pointed(said: dt.date, words: str) -> list[dt.date]:
    step = dt.timedelta(days=1)
    if words in ("yesterday", "last night"):
        return [said - step]
    if words == "tomorrow":
        return [said + step]
    if words in ("last week", "last weekend"):
        return [said - k * step for k in range(1, 14)]
    if words == "next week":
        return [said + k * step for k in range(1, 14)]
    if words.endswith("days ago"):
        return [said - k * step for k in range(1, 5)]
    if words == "last month":
        return [said.replace(day=1) - step]
    if words == "next month":
        return [said.replace(day=28) + 10 * step]
    if words.startswith("last "):
        back = (said.weekday() - _WEEKDAYS.index(words[5:])) % 7 or 7
        return [said - back * step]
    return []


class EntryDates:
    """Each entry's days, read once per Entry object (a changed entry is a new object)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[Entry, frozenset[dt.date] | None]] = {}

    def weight(self, entry: Entry, asked: AskedDate | None) -> float:
        """OTHER_DATE_WEIGHT for an entry dated only on other days than the question
        names; 1.0 otherwise (no date asked, or none known for the entry)."""
        if asked is None:
            return 1.0
        known = self._known.get(entry.id)
        if known is None or known[0] is not entry:
            if len(self._known) > 200_000:
                self._known.clear()
            known = (entry, entry_days(entry))
            self._known[entry.id] = known
        days = known[1]
        if days is None or any(asked.matches(day) for day in days):
            return 1.0
        return OTHER_DATE_WEIGHT
