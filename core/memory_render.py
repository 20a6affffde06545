"""What MEMORY.md says: the confirmed memory, grouped, one `- summary` line each."""

from __future__ import annotations

from typing import Any

from memdesk.core.entry import KINDS, Entry
from memdesk.core.memory_md import render_grouped

KIND_TITLES: dict[str, str] = {
    "project": "Project",
    "decision": "Decisions",
    "workflow": "Workflows and commands",
    "experience": "Experience",
    "preference": "Preferences",
    "profile": "Profile",
    "event": "Events",
    "resource": "Resources",
    "session": "Sessions",
}


def render_memory_text(entries: list[Entry], settings: dict[str, Any] | None = None) -> str:
    live = [
        e
        for e in entries
        if e.status == "confirmed" and not e.suspicious and not e.is_past_valid_until()
    ]
    groups = [(KIND_TITLES[kind], [e.summary for e in live if e.kind == kind]) for kind in KINDS]
    return render_grouped(groups)
