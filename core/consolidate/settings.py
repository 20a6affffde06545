"""The `[consolidation]` table of `.memdesk/settings.toml`: every threshold, validated.

Registered with the general settings loader (`core/context/settings.py`), so
`load_settings(root).section("consolidation")` returns a checked `ConsolidationSettings`
and a bad value fails with a message naming the key and what is allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memdesk.core.context.settings import SettingsError, check_table

SIMILARITY_SOURCES: tuple[str, ...] = ("auto", "lexical", "search")
# Seed 001 check_explicit_lock, plus the Chinese phrasings people actually type.
DEFAULT_EXPLICIT_PHRASES: tuple[str, ...] = ("consolidate", "save progress", "整理记忆", "保存进度")


@dataclass(frozen=True)
class ConsolidationSettings:
    # -- triggers (seed 001 MemoryConsolidationTrigger) --
    time_threshold_hours: float = 24.0
    session_threshold: int = 5
    explicit_phrases: tuple[str, ...] = DEFAULT_EXPLICIT_PHRASES
    # -- orient --
    recent_sessions: int = 5  # sessions orient looks at
    max_topics: int = 8
    deep_relevance: float = 0.7  # seed 001: scope "deep" when project relevance > 0.7
    # -- consolidate --
    # Pair thresholds: None (the default) takes the shared threshold row of the measure
    # in use (core/pairs/thresholds.py: `model` with a search model, `tfidf` without),
    # so consolidation calls a pair what the queue and the conflict screen call it. A
    # number overrides that row here only.
    duplicate_similarity: float | None = None
    contradiction_similarity: float | None = None
    number_contradiction_similarity: float | None = None
    rephrase_similarity: float | None = None
    # A new fact links to entries sharing a rare value with it from this similarity on.
    related_similarity: float = 0.2
    max_related: int = 3
    # auto: the search model's vectors whenever one is installed, TF-IDF vectors
    # otherwise; search: the model (TF-IDF with a warning when none loads); lexical:
    # always TF-IDF (no model load: fastest).
    similarity: str = "auto"
    # -- prune --
    low_confidence: float = 0.3  # seed 001: confidence < 0.3 ...
    low_confidence_stale_days: int = 30  # ... and untouched for 30 days
    session_max_age_days: int = 180  # seed 001: session summaries older than 6 months
    retention_days: int = 90  # seed 001 cleanup_old_memories: unused for 90 days
    # -- applying --
    auto_apply_safe: bool = False  # expiry by date may be applied without review
    failure_warn_after: int = 3  # warn after this many consecutive failed applies
    # -- session cache, metrics, extractor --
    max_sessions: int = 10  # seed 001 SessionMemoryCache, per workflow
    metrics_history: int = 200  # runs kept in consolidation.json
    extractor_timeout_seconds: float = 30.0
    workflow: str = ""  # session-cache workflow id; "" = the working directory's name

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["explicit_phrases"] = list(self.explicit_phrases)
        return out


# key -> (kind, minimum, maximum, description for the error message)
_NUMBERS: dict[str, tuple[type, float, float | None, str]] = {
    "time_threshold_hours": (float, 0.0, None, "hours >= 0"),
    "session_threshold": (int, 1, None, "a whole number >= 1"),
    "recent_sessions": (int, 1, None, "a whole number >= 1"),
    "max_topics": (int, 1, None, "a whole number >= 1"),
    "deep_relevance": (float, 0.0, 1.0, "a number from 0 to 1"),
    "duplicate_similarity": (float, -1.0, 1.0, "a number from -1 to 1"),
    "contradiction_similarity": (float, -1.0, 1.0, "a number from -1 to 1"),
    "related_similarity": (float, -1.0, 1.0, "a number from -1 to 1"),
    "rephrase_similarity": (float, -1.0, 1.0, "a number from -1 to 1"),
    "number_contradiction_similarity": (float, -1.0, 1.0, "a number from -1 to 1"),
    "max_related": (int, 0, None, "a whole number >= 0"),
    "low_confidence": (float, 0.0, 1.0, "a number from 0 to 1"),
    "low_confidence_stale_days": (int, 0, None, "days (a whole number >= 0)"),
    "session_max_age_days": (int, 1, None, "days (a whole number >= 1)"),
    "retention_days": (int, 1, None, "days (a whole number >= 1)"),
    "failure_warn_after": (int, 1, None, "a whole number >= 1"),
    "max_sessions": (int, 1, None, "a whole number >= 1"),
    "metrics_history": (int, 1, None, "a whole number >= 1"),
    "extractor_timeout_seconds": (float, 0.1, None, "seconds >= 0.1"),
}


def parse_consolidation(table: Mapping[str, Any]) -> ConsolidationSettings:
    """Validate `[consolidation]`; a missing key keeps its default."""
    fields = sorted(f.name for f in dataclasses.fields(ConsolidationSettings))
    check_table(table, "consolidation", fields)
    values: dict[str, Any] = {}
    for key, (kind, low, high, what) in _NUMBERS.items():
        if key not in table:
            continue
        value = table[key]
        ok_type = (int,) if kind is int else (int, float)
        if isinstance(value, bool) or not isinstance(value, ok_type):
            raise SettingsError(f"consolidation.{key}", f"must be {what}, got {value!r}")
        if value < low or (high is not None and value > high):
            raise SettingsError(f"consolidation.{key}", f"must be {what}, got {value!r}")
        values[key] = kind(value)
    for key in ("auto_apply_safe",):
        if key in table:
            if not isinstance(table[key], bool):
                raise SettingsError(
                    f"consolidation.{key}", f"must be true or false, got {table[key]!r}"
                )
            values[key] = table[key]
    if "similarity" in table:
        value = table["similarity"]
        if value not in SIMILARITY_SOURCES:
            raise SettingsError(
                "consolidation.similarity",
                f"must be one of {', '.join(SIMILARITY_SOURCES)}; got {value!r}",
            )
        values["similarity"] = value
    if "workflow" in table:
        if not isinstance(table["workflow"], str):
            raise SettingsError(
                "consolidation.workflow", f"must be text, got {table['workflow']!r}"
            )
        values["workflow"] = table["workflow"]
    if "explicit_phrases" in table:
        phrases = table["explicit_phrases"]
        if (
            not isinstance(phrases, list)
            or not phrases
            or not all(isinstance(p, str) and p.strip() for p in phrases)
        ):
            raise SettingsError(
                "consolidation.explicit_phrases",
                f"must be a non-empty list of phrases, got {phrases!r}",
            )
        values["explicit_phrases"] = tuple(p.strip() for p in phrases)
    return ConsolidationSettings(**values)


def consolidation_settings(settings: Any = None) -> ConsolidationSettings:
    """From what a caller has: None, ConsolidationSettings, or a settings dict (Store.settings)."""
    if settings is None:
        return ConsolidationSettings()
    if isinstance(settings, ConsolidationSettings):
        return settings
    if isinstance(settings, Mapping):
        return parse_consolidation(settings.get("consolidation", {}))
    section = getattr(settings, "section", None)
    if callable(section):  # core.context.settings.Settings
        parsed = section("consolidation")
        return parsed if isinstance(parsed, ConsolidationSettings) else parse_consolidation(parsed)
    raise TypeError(f"settings must be a dict or ConsolidationSettings, not {type(settings)}")
