"""Rendering a managed file: (manifest, entries) -> the file's text.

Layout blocks are written as they are. A fact block is written verbatim while its entry
still says what the block says; an edited entry gets its block written again (only the
summary changed: the old summary is replaced inside the block's first line, so bullets,
emphasis and code around it stay). Held candidates, expired, superseded, rejected and
deleted entries are left out; a superseded entry whose successor lives nowhere in the
file is replaced by it in place. Nothing else changes: an unchanged store renders the
adopted file byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from memdesk.core.entry import Entry
from memdesk.core.memfiles.blocks import split_lines
from memdesk.core.memfiles.manifest import ManagedBlock, Manifest

GATES: tuple[str, ...] = ("hold", "keep")
_ITEM_PREFIX = re.compile(r"^(\s*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)")


@dataclass
class Rendered:
    text: str
    owners: list[int] = field(default_factory=list)  # block index of each line
    shown: list[str] = field(default_factory=list)  # entry ids written, in order


def shows(block: ManagedBlock, entry: Entry | None, gate: str) -> bool:
    """Is this fact block's entry written into the file?"""
    if entry is None:
        return False
    if entry.status == "confirmed":
        return True
    return entry.status == "candidate" and gate == "keep"


def entry_text(block: ManagedBlock, entry: Entry, newline: str) -> str:
    """The block's text for the entry as it is now."""
    if entry.summary == block.summary and entry.facts == block.facts:
        return block.raw
    lines = split_lines(block.raw) or [""]
    first, rest = lines[0], "".join(lines[1:])
    if entry.summary != block.summary:
        if not (block.summary and block.summary in first):
            return new_item_text(entry, newline, first)
        first = first.replace(block.summary, entry.summary, 1)
    if entry.facts == block.facts:
        return first + rest
    if entry.facts[: len(block.facts)] == block.facts:
        # Facts added (a candidate merged in): they follow the block's own lines.
        return _with_facts(first + rest, entry.facts[len(block.facts) :], newline)
    return new_item_text(entry, newline, first)


def _with_facts(raw: str, facts: list[str], newline: str) -> str:
    """`raw` with `facts` as sub-items after its last line (before trailing blanks)."""
    lines = split_lines(raw)
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    match = _ITEM_PREFIX.match(lines[0]) if lines else None
    indent = " " * len(match.group(1)) if match else ""
    if end and not lines[end - 1].endswith("\n"):
        lines[end - 1] += newline
    added = [f"{indent}- {' '.join(fact.split())}{newline}" for fact in facts]
    return "".join(lines[:end] + added + lines[end:])


def new_item_text(entry: Entry, newline: str, like: str = "") -> str:
    """An entry as a list item (in the bullet style of `like`), facts as sub-items."""
    match = _ITEM_PREFIX.match(like)
    prefix = match.group(1) if match else "- "
    indent = " " * (len(prefix) - len(prefix.lstrip()))
    out = [prefix + " ".join(entry.summary.split())]
    out.extend(f"{indent}  - {' '.join(fact.split())}" for fact in entry.facts)
    return newline.join(out) + newline


def _successor(entry: Entry | None, entries: Mapping[str, Entry], placed: set[str]) -> Entry | None:
    """A superseded entry is written as what replaced it, in its place, unless that has
    a place of its own in the file (the block keeps its entry: undo brings it back)."""
    hops = 0
    while entry is not None and entry.status == "superseded" and hops < 16:
        entry = entries.get(entry.superseded_by)
        if entry is None or entry.id in placed:
            return None
        hops += 1
    return entry


def render_file(manifest: Manifest, entries: Mapping[str, Entry], gate: str = "hold") -> Rendered:
    """The file's text. Updates the manifest's blocks in place so that an edited entry's
    new text becomes its block's text (a second render is then a no-op)."""
    placed = set(manifest.entry_ids())
    parts: list[str] = []
    owners: list[int] = []
    shown: list[str] = []
    for index, block in enumerate(manifest.blocks):
        if block.is_layout:
            text = block.raw
        else:
            entry = _successor(entries.get(block.entry_id), entries, placed)
            if not shows(block, entry, gate):
                continue
            assert entry is not None
            text = entry_text(block, entry, manifest.newline)
            if text != block.raw:
                block.raw, block.summary, block.facts = text, entry.summary, list(entry.facts)
            shown.append(entry.id)
        if not text:
            continue
        if parts and not parts[-1].endswith("\n"):
            parts.append(manifest.newline)  # a block follows a last line without newline
        parts.append(text)
        owners.extend([index] * len(split_lines(text)))
    return Rendered("".join(parts), owners, shown)
