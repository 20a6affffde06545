"""What an entry's surroundings add to it in the full-text index: its neighbours in the
session it came from, and the date of that session in words.

A fact said in a conversation often needs the turn before or after it: "I went there
yesterday" answers "when did she go to the support group?" only beside the turn that
names the group, and "yesterday" means something only with the session's date. So the
text index holds, next to an entry's own text, a lower-weighted `context` field: the
texts of the entry just before and just after it in the same session (same origin and
session id, ordered by locator, then creation time) and the session date spelled out
("8 May 2023"). Entries with no session id or no locator have no neighbours, only their
date.

`SessionNeighbours` keeps the order per session so one changed entry re-indexes itself
and the (at most four) entries whose context it changes, not the whole store.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from memdesk.core.entry import Entry

SessionKey = tuple[str, str]
_NUMBER = re.compile(r"(\d+)")
# A neighbour's text is cut here: the context should add the few words that join two
# turns, not drown the entry in a long neighbour.
NEIGHBOUR_CHARS = 400
# How much of its best neighbour's cosine an entry's semantic score gains.
NEIGHBOUR_SHARE = 0.5


def session_of(entry: Entry) -> SessionKey | None:
    """The session an entry was said in, or None when its source names none or does not
    say where in the session it was (no locator): facts noted from one session in no
    known order are not neighbours of each other (measured: lifting them by each other
    costs the bilingual set's paraphrase queries a fifth of their R@5)."""
    if not entry.source.session_id or not entry.source.locator:
        return None
    return (entry.source.origin, entry.source.session_id)


def _order_key(entry: Entry) -> tuple[object, ...]:
    """Natural order of locators ("D1:9" before "D1:10", "log.md#2" before "#12"), then
    creation time, then id."""
    parts = _NUMBER.split(entry.source.locator)
    natural = tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)
    return (natural, str(entry.created), entry.id)


def date_words(timestamp: str) -> str:
    """An ISO date spelled the way people ask for it ("2025-02-10T15:20" -> "10 February
    2025"); any other text as it was written."""
    text = timestamp.strip()
    if not text:
        return ""
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    return f"{when.day} {when.strftime('%B')} {when.year}"


class SessionNeighbours:
    """Entry ids per session in their order, and each entry's previous / next id."""

    def __init__(self) -> None:
        self._order: dict[SessionKey, list[str]] = {}
        self._session: dict[str, SessionKey] = {}
        self._position: dict[str, int] = {}

    def rebuild(self, entries: Mapping[str, Entry]) -> None:
        self._order.clear()
        self._session.clear()
        self._position.clear()
        members: dict[SessionKey, list[Entry]] = {}
        for entry in entries.values():
            key = session_of(entry)
            if key is not None:
                members.setdefault(key, []).append(entry)
        for key, found in members.items():
            self._place(key, found)

    def update(self, ids: Iterable[str], entries: Mapping[str, Entry]) -> set[str]:
        """Re-place the entries `ids` (changed, added or removed: gone from `entries`)
        in their sessions. Returns the ids whose neighbours may have changed: them and
        their neighbours before and after."""
        ids = list(ids)
        touched: set[str] = set(ids)
        sessions: set[SessionKey] = set()
        for entry_id in ids:
            touched.update(i for i in self.around(entry_id) if i is not None)
            if (old := self._session.get(entry_id)) is not None:
                sessions.add(old)
            if entry_id in entries and (new := session_of(entries[entry_id])) is not None:
                sessions.add(new)
        for key in sessions:
            members = dict.fromkeys(self._order.get(key, []))
            members.update(dict.fromkeys(ids))
            found = [entries[i] for i in members if i in entries and session_of(entries[i]) == key]
            for member in self._order.pop(key, []):
                if self._session.get(member) == key:
                    del self._session[member]
                    del self._position[member]
            self._place(key, found)
        for entry_id in ids:
            touched.update(i for i in self.around(entry_id) if i is not None)
        return touched

    def _place(self, key: SessionKey, found: list[Entry]) -> None:
        if not found:
            return
        found.sort(key=_order_key)
        self._order[key] = [e.id for e in found]
        for at, entry in enumerate(found):
            self._session[entry.id] = key
            self._position[entry.id] = at

    def around(self, entry_id: str) -> tuple[str | None, str | None]:
        key = self._session.get(entry_id)
        if key is None:
            return None, None
        ids = self._order[key]
        at = self._position[entry_id]
        before = ids[at - 1] if at > 0 else None
        after = ids[at + 1] if at + 1 < len(ids) else None
        return before, after

    def context(self, entry: Entry, entries: Mapping[str, Entry]) -> str:
        """The text the `context` field holds for `entry`."""
        parts = [
            entries[i].search_text()[:NEIGHBOUR_CHARS]
            for i in self.around(entry.id)
            if i is not None and i in entries
        ]
        parts.append(date_words(entry.source.timestamp))
        return "\n".join(p for p in parts if p)

    def passage(self, entry: Entry, entries: Mapping[str, Entry]) -> str | None:
        """What the context vector embeds (context_vectors.py): the session date, the
        entry's text between its neighbours' texts; None for an entry with no neighbour."""
        before, after = self.around(entry.id)
        if (before is None or before not in entries) and (after is None or after not in entries):
            return None
        parts = [date_words(entry.source.timestamp)]
        if before is not None and before in entries:
            parts.append(entries[before].search_text()[:NEIGHBOUR_CHARS])
        parts.append(entry.search_text())
        if after is not None and after in entries:
            parts.append(entries[after].search_text()[:NEIGHBOUR_CHARS])
        return "\n".join(p for p in parts if p)


def lift_by_neighbours(
    scores: np.ndarray,
    cosine: np.ndarray,
    top: Iterable[int],
    ids: Sequence[str],
    row_of: Mapping[str, int],
    neighbours: SessionNeighbours,
    share: float,
) -> list[tuple[int, float, float]]:
    """The semantic side of the same idea: each of the `top` rows and their neighbours
    scored as its own score plus `share` x the better score of its two neighbours, so
    the turn that answers ("yes, last Saturday") rises with the turn the question
    resembles. Returns (row, lifted score, best `cosine` of it and its neighbours), best
    first; only the top rows and their neighbours are scored (a few hundred lookups, not
    the whole matrix)."""

    def rows_around(row: int) -> list[int]:
        out = []
        for entry_id in neighbours.around(ids[row]):
            other = row_of.get(entry_id) if entry_id is not None else None
            if other is not None and other < len(scores):
                out.append(other)
        return out

    around: dict[int, list[int]] = {int(r): rows_around(int(r)) for r in top}
    for row in list(around):
        for other in around[row]:
            if other not in around:
                around[other] = rows_around(other)
    out: list[tuple[int, float, float]] = []
    for row, others in around.items():
        own = float(scores[row])
        if own == -np.inf:
            continue  # filtered out
        best = max((float(scores[r]) for r in others), default=0.0)
        best_cosine = max([float(cosine[row])] + [float(cosine[r]) for r in others])
        out.append((row, own + share * max(best, 0.0), best_cosine))
    out.sort(key=lambda item: -item[1])
    return out
