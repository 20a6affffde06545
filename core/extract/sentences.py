"""Text -> sentences, for English, Chinese (both scripts) and Markdown.

A message is cut into blocks first: code fences and indented code go, each Markdown
list item, heading, table row and quote line is a block of its own, and hard-wrapped
prose lines (a line that does not end a sentence, followed by one that goes on in lower
case) are joined back with a space. Each block is then cut at sentence ends: `。！？；`
always, `.!?` when a space and a new sentence follow (not after "e.g.", "i.e.", "vs.",
a version number or a file name). Pieces are never glued together without a space.

`Sentence.block` says what kind of line it came from ("text", "list", "heading",
"table", "quote"), so the rejection rules can tell a heading from a statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•·]|\d{1,3}[.)、]|[a-zA-Z][.)]|[（(]\d{1,3}[）)])\s+")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_TABLE = re.compile(r"^\s*\|.*\|\s*$|^\s*\|?\s*:?-{3,}:?\s*\|")
_QUOTE = re.compile(r"^\s*>\s?")
_INDENTED_CODE = re.compile(r"^(?: {4,}|\t)\S")
# Where a line may go on: it does not end a sentence and the next starts in lower case.
_ENDS_SENTENCE = re.compile(r"[.!?。！？；;:：)）\]」』\"”]\s*$")
_CONTINUES = re.compile(r"^[a-z(`\"'“]")

_CJK_END = re.compile(r"(?<=[。！？；])\s*")
# ". " / "! " / "? " followed by what starts a sentence (capital, digit, quote, CJK, `).
_LATIN_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“`(\[\u3400-\u9fff*])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|fig|dr|mr|mrs|ms|st|jr|sr)|\b[A-Z])\.$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sentence:
    text: str
    block: str = "text"  # text | list | heading | table | quote | group | pair
    part: int = 0  # which block of the message it sits in (sentences of one paragraph or
    # list item share it)


def blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) blocks of a message: code dropped, list items and headings apart,
    hard-wrapped prose joined."""
    out: list[tuple[str, str]] = []
    in_fence = False
    for raw in text.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        if in_fence or not raw.strip():
            if not raw.strip():
                out.append(("blank", ""))
            continue
        indented_code = _INDENTED_CODE.match(raw) and not _LIST_ITEM.match(raw)
        if indented_code and (not out or out[-1][0] in ("blank", "code")):
            out.append(("code", raw.strip()))
            continue
        line = raw.strip()
        if _HEADING.match(line):
            out.append(("heading", line.lstrip("#").strip()))
        elif _TABLE.match(line):
            out.append(("table", line))
        elif _QUOTE.match(line):
            out.append(("quote", _QUOTE.sub("", line, count=1).strip()))
        elif _LIST_ITEM.match(line):
            item = _CHECKBOX.sub("", _LIST_ITEM.sub("", line, count=1))
            out.append(("list", item.strip()))
        elif (
            out
            and out[-1][0] in ("text", "list")
            and not _ENDS_SENTENCE.search(out[-1][1])
            and _CONTINUES.match(line)
        ):
            kind, previous = out[-1]
            out[-1] = (kind, f"{previous} {line}")
        else:
            out.append(("text", line))
    return [(kind, body) for kind, body in out if kind not in ("blank", "code") and body]


def split_block(text: str) -> list[str]:
    """Sentences of one block."""
    pieces: list[str] = []
    for part in _CJK_END.split(text):
        if not part.strip():
            continue
        start = 0
        for match in _LATIN_END.finditer(part):
            head = part[start : match.start()]
            if _ABBREVIATION.search(head):
                continue
            pieces.append(head)
            start = match.end()
        pieces.append(part[start:])
    return [p.strip() for p in pieces if p.strip()]


GROUP_ITEM_WORDS = 10  # list items this short are read together with their lead-in
GROUP_MAX_CHARS = 400


def _short(item: str) -> bool:
    return len(item.split()) <= GROUP_ITEM_WORDS and len(item) <= 80


def split_sentences(text: str) -> list[Sentence]:
    """Every sentence of a message, with the kind of block it sits in.

    Short list items under a lead-in ("Design style:", "## Agent memory (`.claude/x/`)")
    say nothing alone ("Glassmorphism cards"); they become one "group" sentence, the
    lead-in and its items: "Design style: Clean white layouts; Glassmorphism cards"."""
    parts = blocks(text)
    out: list[Sentence] = []
    index = 0
    while index < len(parts):
        kind, body = parts[index]
        lead = kind == "heading" or (kind == "text" and body.rstrip().endswith((":", "：")))
        items: list[str] = []
        end = index + 1
        while lead and end < len(parts) and parts[end][0] == "list" and _short(parts[end][1]):
            items.append(parts[end][1].rstrip(" .;；。"))
            end += 1
        if len(items) >= 2:
            head = body.rstrip().rstrip(":：").strip()
            group = f"{head}: " + "; ".join(items)
            if len(group) > GROUP_MAX_CHARS:
                group = group[:GROUP_MAX_CHARS].rsplit(";", 1)[0]
            out.append(Sentence(group, "group", index))
            index = end
            continue
        out += [Sentence(piece, kind, index) for piece in split_block(body)]
        index += 1
    return out
