"""Context assembly: the memory block an agent is given, under a budget, with reasons.

The names below are loaded on first use (PEP 562), so a module of this package that
needs none of them (`block_cache`, on the path of every agent's SessionStart hook) does
not import the assembler, the tokenizer or the settings parser with it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memdesk.core.context.assembler import (
        Assembly,
        Excluded,
        Included,
        assemble,
        section_of,
    )
    from memdesk.core.context.query import ContextRequirement, analyze_query, lexical_scores
    from memdesk.core.context.render import render_memory_md
    from memdesk.core.context.settings import (
        ContextSettings,
        Settings,
        SettingsError,
        load_settings,
        save_settings,
    )
    from memdesk.core.context.tokens import TokenCounter, get_counter

_HOME: dict[str, str] = {
    "Assembly": "assembler",
    "Excluded": "assembler",
    "Included": "assembler",
    "assemble": "assembler",
    "section_of": "assembler",
    "ContextRequirement": "query",
    "analyze_query": "query",
    "lexical_scores": "query",
    "render_memory_md": "render",
    "ContextSettings": "settings",
    "Settings": "settings",
    "SettingsError": "settings",
    "load_settings": "settings",
    "save_settings": "settings",
    "TokenCounter": "tokens",
    "get_counter": "tokens",
}

__all__ = [
    "Assembly",
    "ContextRequirement",
    "ContextSettings",
    "Excluded",
    "Included",
    "Settings",
    "SettingsError",
    "TokenCounter",
    "analyze_query",
    "assemble",
    "get_counter",
    "lexical_scores",
    "load_settings",
    "render_memory_md",
    "save_settings",
    "section_of",
]


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # once: later lookups are plain module attributes
    return value
