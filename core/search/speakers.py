"""Who said an entry, when it is a turn of a conversation; and a question about one
person ranks what others said lower.

A memory of conversations holds what each person said, and a question names the person
it is about: "What did Caroline research?", "When did Melanie paint a sunrise?". Most
turns that answer were said by that person (LoCoMo: 678 of 760 questions name one of
the two speakers, and for 657 of them a turn that answers was said by the one named),
while full text barely sees the name (it is in half the turns, so its BM25 weight is
small) and the semantic side not at all. So:

- an entry said in a session (neighbours.session_of: a session id and a place in it)
  whose text opens with a name and a colon ("Caroline: ...") was said by that speaker;
  a name counts as a speaker once two entries open with it (a lone "Fix:" is a label);
- a question that names speakers (whole words, any case, not a stopword) keeps the
  fused score of entries said by them and of entries said by no known speaker, and
  multiplies the score of entries said by someone else by OTHER_SPEAKER_WEIGHT. Their
  answers still rank, below the named person's (the turn that answers is sometimes the
  other person's reply, which the neighbour lift and context field bring up).

Weight 0.5 was chosen on LoCoMo dev among 0.1 / 0.2 / 0.3 / 0.5 / 0.7 / 1.0 (a filter):
recall_any@10 0.828 / 0.828 / 0.838 / 0.856 / 0.851 / 0.843.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from memdesk.core.entry import Entry
from memdesk.core.search.neighbours import session_of
from memdesk.core.stopwords import ENGLISH_STOPWORDS

OTHER_SPEAKER_WEIGHT = 0.5
# "Name: ", "Mary Ann: ", "O'Brien: ": one to three capitalised words, then a colon.
_SPEAKER = re.compile(r"([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}): ")
_WORD = re.compile(r"\w+")
MIN_TURNS = 2  # entries a name must open before it counts as a speaker


def speaker_of(entry: Entry) -> str | None:
    """The name a turn of a session opens with, or None."""
    if session_of(entry) is None:
        return None
    found = _SPEAKER.match(entry.summary)
    return found.group(1) if found else None


class Speakers:
    """Each entry's speaker and how many entries each speaker has."""

    def __init__(self) -> None:
        self._of: dict[str, str] = {}
        self._count: Counter[str] = Counter()

    def rebuild(self, entries: Mapping[str, Entry]) -> None:
        self._of.clear()
        self._count.clear()
        self.update(entries, entries)

    def update(self, ids: Iterable[str], entries: Mapping[str, Entry]) -> None:
        """Read again the speaker of `ids` (changed, added, or gone from `entries`)."""
        for entry_id in ids:
            old = self._of.pop(entry_id, None)
            if old is not None:
                self._count[old] -= 1
                if self._count[old] <= 0:
                    del self._count[old]
            entry = entries.get(entry_id)
            new = speaker_of(entry) if entry is not None else None
            if new is not None:
                self._of[entry_id] = new
                self._count[new] += 1

    def named_in(self, query: str) -> frozenset[str]:
        """The known speakers a question names."""
        if not self._count:
            return frozenset()
        words = f" {_words(query)} "
        return frozenset(
            name
            for name, n in self._count.items()
            if n >= MIN_TURNS and (key := _key(name)) and key in words
        )

    def weight(self, entry_id: str, named: frozenset[str]) -> float:
        """OTHER_SPEAKER_WEIGHT for an entry said by a known speaker the question does
        not name, when it names one; 1.0 otherwise."""
        if not named:
            return 1.0
        speaker = self._of.get(entry_id)
        if speaker is None or speaker in named or self._count[speaker] < MIN_TURNS:
            return 1.0
        return OTHER_SPEAKER_WEIGHT


@functools.lru_cache(maxsize=65536)
def _key(name: str) -> str:
    """ " name words " as looked for in a question; "" for a stopword (never a name)."""
    if name.lower() in ENGLISH_STOPWORDS:
        return ""
    return f" {_words(name)} "


def _words(text: str) -> str:
    """Lowercased words joined by one space ("Caroline's" -> "caroline s")."""
    return " ".join(_WORD.findall(text.lower()))
