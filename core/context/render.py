"""How assembled memory is written out: `<agent_memory>` block, Markdown, MEMORY.md.

The assembler counts exactly the lines these functions produce, so a format change here
can never push a block over its budget. Every item keeps kind, source, scope and time
(seed 004). MEMORY.md keeps seed 000's shape: every fact line is `- text`.
"""

from __future__ import annotations

import re
from typing import Any

from memdesk.core.entry import Entry

SECTION_TITLES: dict[str, str] = {
    "project": "Project facts & architecture",
    "commands": "Commands & environment",
    "experience": "Debugging & experience",
    "preferences": "User profile & preferences",
    "events": "Current events",
    "resources": "Resources",
}
FORMATS: tuple[str, ...] = ("agent", "markdown")

_SPACE = re.compile(r"\s+")


def one_line(text: str) -> str:
    """Collapse line breaks so one entry stays one bullet (and cannot fake a heading)."""
    return _SPACE.sub(" ", text).strip()


_BLOCK_TAG = re.compile(r"<(/?)(agent_memory)", re.IGNORECASE)


def defuse(text: str) -> str:
    """An entry cannot close or open the block it is injected in (`</agent_memory>`)."""
    return _BLOCK_TAG.sub(r"‹\1\2", text)


def source_label(entry: Entry) -> str:
    src = entry.source
    if src.files:
        label = ", ".join(src.files[:2]) + (f" +{len(src.files) - 2}" if len(src.files) > 2 else "")
    elif src.locator:
        label = src.locator
    elif src.session_id:
        label = f"session {src.session_id[:8]}"
    else:
        label = src.origin or "unknown"
    if src.commands:
        label += f"; cmd `{one_line(src.commands[0])}`"
    return label


def time_label(entry: Entry) -> str:
    if entry.source.timestamp:
        return entry.source.timestamp[:10]
    return entry.updated.date().isoformat()


def header_lines(fmt: str, purpose: str) -> list[str]:
    if fmt == "agent":
        return [f'<agent_memory purpose="{purpose}">']
    return [f"# Memory ({purpose})"]


def footer_lines(fmt: str) -> list[str]:
    return ["</agent_memory>"] if fmt == "agent" else []


def heading_line(section: str, fmt: str) -> str:
    return f"## {SECTION_TITLES.get(section, section)}"


def item_lines(entry: Entry, fmt: str, *, with_facts: bool = True) -> list[str]:
    summary = one_line(entry.summary)
    if fmt == "agent":
        meta = (
            f"kind={entry.kind}; scope={entry.scope}; source={source_label(entry)}; "
            f"time={time_label(entry)}"
        )
        if entry.status != "confirmed":
            meta += f"; status={entry.status}"
        lines = [f"- {summary} ({meta})"]
    else:
        status = "" if entry.status == "confirmed" else f" · {entry.status}"
        lines = [
            f"- {summary} — *{entry.kind} · {entry.scope} · {source_label(entry)} · "
            f"{time_label(entry)}{status}*"
        ]
    if with_facts:
        lines.extend(f"  - {one_line(fact)}" for fact in entry.facts if fact.strip())
    if fmt == "agent":
        lines = [defuse(line) for line in lines]
    return lines


def memory_md_text(sections: list[tuple[str, list[Entry]]]) -> str:
    """MEMORY.md: the Store's layout (header, note, `## Section`, one `- summary` each)."""
    from memdesk.core.memory_md import render_grouped

    return render_grouped(
        [(SECTION_TITLES.get(s, s), [e.summary for e in entries]) for s, entries in sections]
    )


def render_memory_md(entries: list[Entry], settings: Any = None) -> str:
    """The MEMORY.md agents load: exactly the entries the default preview includes.

    Built by the same `assemble` call as the default preview (purpose, budget, unit and
    format from settings), so the two never disagree about what is in.
    """
    from memdesk.core.context.assembler import assemble

    return assemble(entries, settings=settings).memory_md()
