"""A Markdown memory file as blocks: facts and layout, byte for byte.

`parse_blocks(text)` cuts a file into consecutive blocks whose texts, joined, give the
file back exactly. A *fact* block is what becomes one entry: a list item with its
continuation lines, sub-items and the code fence that follows it; a paragraph (with the
table or code fence it introduces); a table or a code block standing alone. Everything
else is *layout*: headings, blank lines, rules, front matter, HTML comments, `@file`
imports, bold label lines (`**NEVER**:`) and the boilerplate line a file starts with.

Headings give each fact its section path; a bold label line is the subject of the items
below it, so it joins the path until the next heading or label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LABEL = re.compile(r"^ {0,3}(?:\*\*|__)([^*_].*?)(?::\*\*|:__|\*\*:?|__:?)[ \t]*$")
LABEL_MAX = 60  # a longer bold line is a statement, not the subject of what follows
_IMPORT = re.compile(r"^\s*@[^\s@]+\s*$")
_TABLE = re.compile(r"^ {0,3}\|")
_SETEXT = re.compile(r"^ {0,3}(=+|-{2,})[ \t]*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
# The line an agent or a template puts under the title to say what the file is.
_BOILERPLATE = re.compile(
    r"(provides guidance to (claude|codex|gemini|the agent)|persistent knowledge accumulated"
    r"|lines? (are )?loaded automatically|memdesk renders this file)",
    re.IGNORECASE,
)


@dataclass
class Block:
    """Consecutive lines of a file (each with its own line ending)."""

    kind: str  # "fact" or "layout"
    lines: list[str]
    start: int  # 1-based number of the first line
    section: list[str] = field(default_factory=list)
    role: str = ""  # item, paragraph, table, code / heading, blank, label, ...

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split on "\\n" only (a lone "\\r" or U+2028 is text)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def _indent(line: str) -> int:
    bare = _bare(line)
    return len(bare) - len(bare.lstrip(" \t"))


def _is_blank(line: str) -> bool:
    return not _bare(line).strip()


class _Cutter:
    """One pass over the lines, producing units (blocks before attachment)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.units: list[Block] = []
        self.headings: list[tuple[int, str]] = []
        self.label = ""

    def section(self) -> list[str]:
        path = [title for _, title in self.headings]
        return [*path, self.label] if self.label else path

    def emit(self, kind: str, role: str, start: int, end: int) -> None:
        self.units.append(Block(kind, self.lines[start:end], start + 1, self.section(), role))

    def run(self) -> list[Block]:
        i = self._front_matter()
        while i < len(self.lines):
            i = self._unit(i)
        return self.units

    def _heading(self, level: int, title: str) -> None:
        self.headings = [(lv, t) for lv, t in self.headings if lv < level]
        self.headings.append((level, title))
        self.label = ""

    def _front_matter(self) -> int:
        lines = self.lines
        if not lines or _bare(lines[0]).strip() != "---":
            return 0
        for j in range(1, len(lines)):
            if _bare(lines[j]).strip() in ("---", "..."):
                self.emit("layout", "front-matter", 0, j + 1)
                return j + 1
        return 0

    def _fence_end(self, i: int) -> int:
        """Index after the fence opened at line i (the file's end if never closed)."""
        match = _FENCE.match(_bare(self.lines[i]))
        assert match is not None
        marker = match.group(2)
        for j in range(i + 1, len(self.lines)):
            close = _bare(self.lines[j]).strip()
            if close.startswith(marker[0] * len(marker)) and not close.strip(marker[0]):
                return j + 1
        return len(self.lines)

    def _unit(self, i: int) -> int:
        line = _bare(self.lines[i])
        if not line.strip():
            self.emit("layout", "blank", i, i + 1)
            return i + 1
        heading = _HEADING.match(line)
        if heading:
            self._heading(len(heading.group(1)), (heading.group(2) or "").strip())
            self.emit("layout", "heading", i, i + 1)
            return i + 1
        if _FENCE.match(line):
            end = self._fence_end(i)
            self.emit("fact", "code", i, end)
            return end
        if line.lstrip().startswith("<!--"):
            end = i
            while end < len(self.lines) and "-->" not in self.lines[end]:
                end += 1
            end = min(end + 1, len(self.lines))
            self.emit("layout", "comment", i, end)
            return end
        if _IMPORT.match(line):
            self.emit("layout", "import", i, i + 1)
            return i + 1
        if _RULE.match(line):
            self.emit("layout", "rule", i, i + 1)
            return i + 1
        label = _LABEL.match(line)
        if label and len(label.group(1)) <= LABEL_MAX:
            self.label = label.group(1).strip().rstrip(":").strip()
            self.emit("layout", "label", i, i + 1)
            return i + 1
        if _TABLE.match(line):
            end = i
            while end < len(self.lines) and _TABLE.match(_bare(self.lines[end])):
                end += 1
            self.emit("fact", "table", i, end)
            return end
        item = _ITEM.match(line)
        if item:
            end = self._item_end(i, _indent(self.lines[i]))
            self.emit("fact", "item", i, end)
            return end
        if i + 1 < len(self.lines) and _SETEXT.match(_bare(self.lines[i + 1])):
            level = 1 if "=" in self.lines[i + 1] else 2
            self._heading(level, line.strip())
            self.emit("layout", "heading", i, i + 2)
            return i + 2
        end = self._paragraph_end(i)
        text = " ".join(_bare(x).strip() for x in self.lines[i:end])
        if _BOILERPLATE.search(text):
            self.emit("layout", "boilerplate", i, end)
        else:
            self.emit("fact", "paragraph", i, end)
        return end

    def _starts_block(self, line: str) -> bool:
        return bool(
            _HEADING.match(line)
            or _FENCE.match(line)
            or _TABLE.match(line)
            or _ITEM.match(line)
            or _RULE.match(line)
            or bool((label := _LABEL.match(line)) and len(label.group(1)) <= LABEL_MAX)
            or _IMPORT.match(line)
            or line.lstrip().startswith("<!--")
        )

    def _paragraph_end(self, i: int) -> int:
        end = i + 1
        while end < len(self.lines):
            line = _bare(self.lines[end])
            if not line.strip() or self._starts_block(line):
                break
            end += 1
        return end

    def _item_end(self, i: int, indent: int) -> int:
        """A list item runs over lines indented deeper than its bullet (sub-items, code,
        text after a blank line) and lazy continuation lines right after its text."""
        end = i + 1
        while end < len(self.lines):
            raw = self.lines[end]
            line = _bare(raw)
            if _is_blank(raw):
                nxt = end
                while nxt < len(self.lines) and _is_blank(self.lines[nxt]):
                    nxt += 1
                if nxt < len(self.lines) and _indent(self.lines[nxt]) > indent:
                    end = nxt
                    continue
                break
            if _indent(raw) > indent:
                end = self._fence_end(end) if _FENCE.match(line) else end + 1
                continue
            if self._starts_block(line):
                break
            end += 1  # lazy continuation of the item's text
        return end


def _attach(units: list[Block]) -> list[Block]:
    """A code fence joins the fact it follows (same section, at most one blank line in
    between); a table joins the paragraph that introduces it."""
    out: list[Block] = []
    for unit in units:
        if unit.kind == "fact" and unit.role in ("code", "table") and out:
            blanks: list[Block] = []
            k = len(out) - 1
            while k >= 0 and out[k].role == "blank":
                blanks.insert(0, out[k])
                k -= 1
            host = out[k] if k >= 0 else None
            joins = host is not None and host.kind == "fact" and host.section == unit.section
            if joins and host is not None and unit.role == "table":
                intro = host.role == "paragraph" and (
                    not blanks or _bare(host.lines[-1]).rstrip().endswith(":")
                )
                joins = intro and len(blanks) <= 1
            elif joins:
                joins = len(blanks) <= 1
            if joins and host is not None:
                for blank in blanks:
                    host.lines.extend(blank.lines)
                host.lines.extend(unit.lines)
                del out[k + 1 :]
                continue
        out.append(unit)
    return out


def parse_blocks(text: str) -> list[Block]:
    """The file's blocks, in order; `"".join(b.text for b in blocks) == text`."""
    blocks = _attach(_Cutter(split_lines(text)).run())
    for block in blocks:
        if block.kind == "fact" and not fact_lines(block):
            block.kind, block.role = "layout", "empty-item"
    return blocks


def is_table_separator(line: str) -> bool:
    return bool(_TABLE_SEPARATOR.match(_bare(line))) and "-" in line


def fact_lines(block: Block) -> list[str]:
    """The meaningful lines of a fact block, for its summary and facts: bullets and
    quote marks removed, fence and table-separator lines left out, code kept as is."""
    out: list[str] = []
    in_code = False
    for raw in block.lines:
        line = _bare(raw)
        stripped = line.strip()
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if not stripped:
            continue
        if in_code:
            out.append(stripped)
            continue
        if is_table_separator(line):
            continue
        item = _ITEM.match(line)
        if item:
            stripped = line[item.end() :].strip()
            for box in ("[ ] ", "[x] ", "[X] "):
                stripped = stripped.removeprefix(box)
        stripped = stripped.lstrip(">").strip()
        if stripped:
            out.append(stripped)
    return out
