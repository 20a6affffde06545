"""Ordering a managed file so that what matters most stays above its agent's cut.

Only whole sections move: the preamble (title, boilerplate, what comes before the first
section) stays first, then the sections at the file's top section level, most important
first; inside a section nothing moves, so code stays with its fact and every line keeps
its subject. A section's importance is that of its best entry: pinned (tag `pin`), then
confidence, then kinds an agent acts on (preferences, decisions, workflows), then how
recently it was used. Sections of equal importance keep their order."""

from __future__ import annotations

from collections.abc import Mapping

from memdesk.core.entry import Entry
from memdesk.core.memfiles.manifest import ManagedBlock, Manifest

ACTION_KINDS = frozenset({"preference", "decision", "workflow"})


def importance(entry: Entry) -> tuple[int, float, int, str]:
    used = entry.last_access.isoformat() if entry.last_access else ""
    return (
        int("pin" in entry.tags),
        entry.confidence_value,
        int(entry.kind in ACTION_KINDS),
        used,
    )


def _heading_level(block: ManagedBlock) -> int:
    if block.role != "heading":
        return 0
    stripped = block.raw.lstrip()
    return len(stripped) - len(stripped.lstrip("#"))


def order_blocks(manifest: Manifest, entries: Mapping[str, Entry]) -> bool:
    """Reorder the manifest's sections in place; True when the order changed."""
    levels = [lv for lv in (_heading_level(b) for b in manifest.blocks) if lv]
    if not levels:
        return False
    # The level sections sit at: the shallowest level used more than once (a lone
    # `# Title` is the file's title, not a section).
    level = next((lv for lv in sorted(set(levels)) if levels.count(lv) > 1), min(levels))
    preamble: list[ManagedBlock] = []
    sections: list[list[ManagedBlock]] = []
    for block in manifest.blocks:
        lv = _heading_level(block)
        if lv and lv <= level:
            if lv < level:  # a title above the sections stays where it is
                (sections[-1] if sections else preamble).append(block)
                continue
            sections.append([block])
        elif sections:
            sections[-1].append(block)
        else:
            preamble.append(block)
    if len(sections) < 2:
        return False

    def score(section: list[ManagedBlock]) -> tuple[int, float, int, str]:
        found = [importance(entries[b.entry_id]) for b in section if b.entry_id in entries]
        return max(found, default=(0, 0.0, 0, ""))

    ranked = sorted(sections, key=score, reverse=True)
    if ranked == sections:
        return False
    _ensure_separated(ranked, sections[-1], manifest.newline)
    manifest.blocks = preamble + [b for section in ranked for b in section]
    return True


def _ensure_separated(
    sections: list[list[ManagedBlock]], was_last: list[ManagedBlock], newline: str
) -> None:
    """The section that ended the file may lack the blank line (or the final newline)
    that separates it from the next heading once it moves up."""
    for section in sections[:-1]:
        if section is not was_last:
            continue
        last = section[-1]
        if not last.raw.endswith("\n"):
            last.raw += newline
        if last.role != "blank":
            section.append(ManagedBlock(newline, role="blank"))
