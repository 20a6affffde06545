"""What an entry's text is worth to an agent, apart from any query.

Two query-independent factors multiply an entry's score:

- *Content*: prose an agent can act on counts fully; an entry that is only code or
  sample data (a code block, a JSON object, a snippet) with no line of prose ranks low, so a tight budget spends its space on statements first. Such an
  entry is still injected whole when it fits; it is never cut or flattened.
- *Emphasis*: a rule the file's author stressed (NEVER, ALWAYS, MUST, IMPORTANT, DO NOT,
  禁止, 必须 ... in the entry or in its heading path) ranks higher: these are the lines an
  agent most needs to keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memdesk.core.entry import Entry

CODE_ONLY_WEIGHT = 0.35
EMPHASIS_WEIGHT = 1.5
# A line says something when it has this many words and few code symbols.
PROSE_WORDS = 3
CODE_DENSITY = 0.15

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_WORD = re.compile(r"[A-Za-z]{2,}|[\u3400-\u4dbf\u4e00-\u9fff]")
_MARKER = re.compile(r"^\s*(?:[-*+>]|\d{1,9}[.)])\s+")
_CODE_SPAN = re.compile(r"`[^`]+`")
_EMPHASIS_MARKS = re.compile(r"\*\*|__|~~")
# Symbols prose rarely has (parentheses, colons and commas are common in prose).
_SYMBOLS = re.compile(r"[{}\[\];=<>\"$|\\&*@]|=>|->|::")
_CODE_START = re.compile(
    r"^(?:import |from \S+ import |export |const |let |var |def |class |function |"
    r"return\b|if \(|for \(|\$ |>>> |#!|//|/\*|\"[^\"]*\"\s*:|[{}\[\]]+,?\s*$|\{\s*\"|\[\s*[{\"\d])"
)
# Call chains, arrow functions, a statement's semicolon: code whatever the words say.
_CODE_MARK = re.compile(r"\w\([^)]*\)\.\w|\)\s*=>|;\s*$|\(\(")
_EMPHASIS = re.compile(
    r"\b(?:NEVER|ALWAYS|MUST(?:\s+NOT)?|DO\s+NOT|DON'?T|IMPORTANT|CRITICAL|REQUIRED|"
    r"MANDATORY|WARNING)\b|禁止|必须|务必|不要|切勿|一定要|重要"
)


@dataclass(frozen=True, slots=True)
class Weight:
    factor: float
    label: str  # "", "code or sample data", "stressed rule"


def line_kind(line: str) -> str:
    """ "prose" (it says something), "code" (code, JSON, a prompt) or "other" (a short
    name, a bare command: neither)."""
    text = _EMPHASIS_MARKS.sub("", _MARKER.sub("", line.strip(), count=1))
    if not text:
        return "other"
    if _CODE_START.match(text) or _CODE_MARK.search(_CODE_SPAN.sub("x", text)):
        return "code"
    plain = _CODE_SPAN.sub("x", text)  # an identifier in backticks reads as one word
    words = len(_WORD.findall(plain)) + text.count("`") // 2
    solid = len(plain.replace(" ", ""))
    density = len(_SYMBOLS.findall(plain)) / max(1, solid)
    if density >= CODE_DENSITY and solid >= 3:
        return "code"
    return "prose" if words >= PROSE_WORDS else "other"


def is_code_or_data(summary: str, facts: tuple[str, ...] = ()) -> bool:
    """Code or sample data with no line of prose around it (a fenced block, JSON, a
    snippet): it shows an agent what something looks like, but says little."""
    seen_code = False
    in_fence = False
    for line in "\n".join((summary, *facts)).splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            seen_code = True
            continue
        if in_fence:
            seen_code = True
            continue
        kind = line_kind(line)
        if kind == "prose":
            return False
        seen_code = seen_code or kind == "code"
    return seen_code


def is_stressed(summary: str, section: tuple[str, ...] = ()) -> bool:
    """The author stressed it: an all-caps rule word (or a Chinese one) in the entry or
    its headings. Lower-case "never" is ordinary prose and does not count."""
    if _EMPHASIS.search(summary):
        return True
    return any(_EMPHASIS.search(title) for title in section)


def weigh(entry: Entry) -> Weight:
    return _weigh(entry.summary, tuple(entry.facts), tuple(entry.section))


@lru_cache(maxsize=65536)
def _weigh(summary: str, facts: tuple[str, ...], section: tuple[str, ...]) -> Weight:
    """Memoised on the text: the preview re-screens every entry on each store change."""
    if is_code_or_data(summary, facts):
        return Weight(CODE_ONLY_WEIGHT, "code or sample data")
    if is_stressed(summary, section):
        return Weight(EMPHASIS_WEIGHT, "stressed rule")
    return Weight(1.0, "")
