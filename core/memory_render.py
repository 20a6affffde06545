"""What MEMORY.md says: exactly what the default context preview includes.

The Store writes this text; it comes from the same assembler call as the preview
(purpose, budget and unit from `.memdesk/settings.toml`), so the file agents load and
the preview a person looks at never disagree.
"""

from __future__ import annotations

from typing import Any

from memdesk.core.context.render import render_memory_md
from memdesk.core.entry import Entry


def render_memory_text(entries: list[Entry], settings: dict[str, Any] | None = None) -> str:
    return render_memory_md(entries, settings)
