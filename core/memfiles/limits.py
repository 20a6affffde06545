"""Load limits: how much of a managed file its agent reads, and what falls past it.

Claude Code reads the first 200 lines / 25 KB of its auto-memory MEMORY.md; Codex reads
AGENTS.md up to 32 KiB. A fact whose lines are not all above that cut is invisible to
the agent, so the desk says which entries are past it now, and which an approval would
push past it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from memdesk.core.entry import Entry
from memdesk.core.memfiles.blocks import split_lines
from memdesk.core.memfiles.format import MemoryFormat
from memdesk.core.memfiles.formats import FORMATS, MARKDOWN
from memdesk.core.memfiles.manifest import Manifest
from memdesk.core.memfiles.render import Rendered, render_file


@dataclass
class Cut:
    format: MemoryFormat
    lines: int
    bytes: int
    loaded_lines: int  # lines the agent reads (all of them when under the limit)
    past: list[str] = field(default_factory=list)  # entry ids not (wholly) loaded

    @property
    def over(self) -> bool:
        return self.loaded_lines < self.lines

    def to_json(self) -> dict[str, object]:
        return {
            "limit_lines": self.format.load_lines,
            "limit_bytes": self.format.load_bytes,
            "rendered_lines": self.lines,
            "loaded_lines": self.loaded_lines,
            "over_limit": self.over,
            "past_cut": len(self.past),
        }


def format_of(manifest: Manifest) -> MemoryFormat:
    return FORMATS.get(manifest.format, MARKDOWN)


def loaded_lines(fmt: MemoryFormat, text: str) -> int:
    """How many whole lines of `text` the agent reads."""
    lines = split_lines(text)
    count = min(len(lines), fmt.load_lines) if fmt.load_lines else len(lines)
    if fmt.load_bytes:
        used = 0
        for index, line in enumerate(lines[:count]):
            used += len(line.encode("utf-8"))
            if used > fmt.load_bytes:
                return index
    return count


def cut_of(manifest: Manifest, rendered: Rendered) -> Cut:
    fmt = format_of(manifest)
    lines = split_lines(rendered.text)
    loaded = loaded_lines(fmt, rendered.text)
    past: list[str] = []
    for line_index in range(loaded, len(lines)):
        block = manifest.blocks[rendered.owners[line_index]]
        if block.entry_id and block.entry_id not in past:
            past.append(block.entry_id)
    return Cut(fmt, len(lines), len(rendered.text.encode("utf-8")), loaded, past)


def pushed_past(
    manifest: Manifest,
    entries: Mapping[str, Entry],
    gate: str,
    candidate_id: str,
    before: Cut | None = None,
) -> list[str]:
    """Entries an approval of `candidate_id` would leave past the cut that are loaded now
    (the candidate itself included when it would land past the cut). `before`: the cut
    as the file renders now, when the caller has it."""
    if not format_of(manifest).has_limit or candidate_id not in manifest.entry_ids():
        return []
    if before is None:
        now_view = manifest.copy()
        before = cut_of(now_view, render_file(now_view, entries, gate))
    approved = dict(entries)
    candidate = entries.get(candidate_id)
    if candidate is None:
        return []
    approved[candidate_id] = candidate.copy(status="confirmed")
    then_view = manifest.copy()
    after = cut_of(then_view, render_file(then_view, approved, gate))
    return [i for i in after.past if i not in before.past]
