"""Context assembly: the memory block an agent is given, under a budget, with reasons."""

from memdesk.core.context.assembler import Assembly, Excluded, Included, assemble, section_of
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
