"""What an entry's text is worth to an agent, apart from any query.

Two query-independent factors multiply an entry's score:

- *Content*: prose an agent can act on counts fully; an entry that is only a code block,
  a table, or sample data (a JSON object, a bare command listing) with almost no words
  around it ranks low, so a tight budget spends its space on statements first. Such an
  entry is still injected whole when it fits; it is never cut or flattened.
- *Emphasis*: a rule the file's author stressed (NEVER, ALWAYS, MUST, IMPORTANT, DO NOT,
  禁止, 必须 ... in the entry or in its heading path) ranks higher: these are the lines an
  agent most needs to keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdesk.core.entry import Entry

CODE_ONLY_WEIGHT = 0.35
EMPHASIS_WEIGHT = 1.5
# Fewer prose words than this outside code and data: the entry is code or sample data.
MIN_PROSE_WORDS = 3

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# Sample data and transcripts: JSON, a table's separator row, a shell or Python prompt.
# (A table's other rows are words: a table of paths and when to read them is a fact.)
_DATA_LINE = re.compile(r"^\s*(?:[{}\[\]]|\"[^\"]*\"\s*:|[-:| ]+$|\$ |>>> )")
_WORD = re.compile(r"[A-Za-z]{2,}|[\u3400-\u4dbf\u4e00-\u9fff]")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_CODE_SPAN = re.compile(r"`[^`]*`")
_EMPHASIS = re.compile(
    r"\b(?:NEVER|ALWAYS|MUST(?:\s+NOT)?|DO\s+NOT|DON'?T|IMPORTANT|CRITICAL|REQUIRED|"
    r"MANDATORY|WARNING)\b|禁止|必须|务必|不要|切勿|一定要|重要"
)


@dataclass(frozen=True, slots=True)
class Weight:
    factor: float
    label: str  # "", "code or sample data", "stressed rule"


def prose_words(text: str) -> int:
    """Words outside code fences, data lines and `code spans` (CJK: one per character)."""
    words = 0
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or _DATA_LINE.match(_MARKER.sub("", line, count=1)):
            continue
        words += len(_WORD.findall(_CODE_SPAN.sub(" ", line)))
    return words


def is_code_or_data(entry: Entry) -> bool:
    """Nothing but a code block, a table or sample data, with hardly a word around it."""
    return prose_words("\n".join((entry.summary, *entry.facts))) < MIN_PROSE_WORDS


def is_stressed(entry: Entry) -> bool:
    """The author stressed it: an all-caps rule word (or a Chinese one) in the entry or
    its headings. Lower-case "never" is ordinary prose and does not count."""
    if _EMPHASIS.search(entry.summary):
        return True
    return any(_EMPHASIS.search(title) for title in entry.section)


def weigh(entry: Entry) -> Weight:
    if is_code_or_data(entry):
        return Weight(CODE_ONLY_WEIGHT, "code or sample data")
    if is_stressed(entry):
        return Weight(EMPHASIS_WEIGHT, "stressed rule")
    return Weight(1.0, "")
