"""Lines an agent added to a managed file since memdesk last wrote it.

The file on disk is compared line by line with the text memdesk last wrote (the
manifest's `rendered`); every run of inserted or changed lines is cut into blocks: each
fact block becomes a candidate placed where the agent put it (with the blank lines
around it), headings and other layout the agent added stay as layout.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from memdesk.core.memfiles.blocks import Block, parse_blocks, split_lines
from memdesk.core.memfiles.manifest import Manifest


@dataclass
class Addition:
    """Blocks to insert before manifest block `position` (len(blocks): at the end)."""

    position: int
    blocks: list[Block] = field(default_factory=list)  # fact or layout, in order
    # Manifest blocks whose lines the agent changed (rather than added next to): the
    # new text is a candidate related to their entries.
    replaces: list[int] = field(default_factory=list)


def complete_text(manifest: Manifest, current: str) -> str | None:
    """The file's text up to its last complete line; None when a line is still being
    written (the file ends without a newline where memdesk's text did not)."""
    if current.endswith("\n") or not current:
        return current
    last = split_lines(current)[-1]
    old = split_lines(manifest.rendered)
    if old and not manifest.rendered.endswith("\n") and old[-1] == last:
        return current
    return None


def _bare(lines: list[str]) -> list[str]:
    return [line.rstrip("\r\n") for line in lines]


def find_additions(manifest: Manifest, current: str) -> list[Addition]:
    """What was added, in file order. `current` must be complete (see above)."""
    old = split_lines(manifest.rendered)
    new = split_lines(current)
    sections = _line_sections(current)
    matcher = difflib.SequenceMatcher(None, _bare(old), _bare(new), autojunk=False)
    additions: list[Addition] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag not in ("insert", "replace"):
            continue
        added_lines = new[j1:j2]
        if not any(line.strip() for line in added_lines):
            continue  # blank lines alone carry nothing
        addition = Addition(_position(manifest, len(old), i1))
        if tag == "replace":
            owners = manifest.owners[i1:i2]
            addition.replaces = sorted({o for o in owners if o < len(manifest.blocks)})
        for block in parse_blocks("".join(added_lines)):
            block.start += j1
            if block.kind == "fact":
                block.section = sections.get(block.start, block.section)
            addition.blocks.append(block)
        additions.append(_glue_blanks(addition))
    return additions


def _position(manifest: Manifest, old_count: int, line: int) -> int:
    """Manifest index to insert before, for an insertion before old line `line`."""
    owners = manifest.owners
    if line >= old_count or line >= len(owners):
        return len(manifest.blocks)
    owner = owners[line]
    starts_block = line == 0 or owners[line - 1] != owner
    return owner if starts_block else owner + 1


def _line_sections(text: str) -> dict[int, list[str]]:
    """Section path of every line of the file as it is now."""
    out: dict[int, list[str]] = {}
    for block in parse_blocks(text):
        for number in range(block.start, block.end + 1):
            out[number] = block.section
    return out


def _glue_blanks(addition: Addition) -> Addition:
    """Blank lines added with a fact go with it: approved later, the fact arrives with
    the spacing the agent gave it; held, it leaves no stray blank line behind."""
    blocks: list[Block] = []
    pending: list[Block] = []
    for block in addition.blocks:
        if block.role == "blank":
            pending.append(block)
            continue
        if block.kind == "fact" and pending:
            block.lines[:0] = [line for blank in pending for line in blank.lines]
            block.start = pending[0].start
            pending = []
        blocks.extend(pending)
        pending = []
        blocks.append(block)
    if pending:
        last_fact = next((b for b in reversed(blocks) if b.kind == "fact"), None)
        if last_fact is not None and last_fact is blocks[-1]:
            last_fact.lines.extend(line for blank in pending for line in blank.lines)
        else:
            blocks.extend(pending)
    addition.blocks = blocks
    return addition
