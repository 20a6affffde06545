"""`[consolidation]` settings: defaults, validation naming the key, the general loader."""

from __future__ import annotations

import pytest
from memdesk.core.consolidate.settings import (
    ConsolidationSettings,
    consolidation_settings,
    parse_consolidation,
)
from memdesk.core.context.settings import SettingsError, load_settings, save_settings
from memdesk.core.extract.settings import ExtractSettings
from memdesk.core.pairs import THRESHOLDS


def test_defaults_match_seed_001():
    s = parse_consolidation({})
    assert (s.time_threshold_hours, s.session_threshold) == (24.0, 5)
    assert (s.low_confidence, s.low_confidence_stale_days) == (0.3, 30)
    assert (s.session_max_age_days, s.retention_days) == (180, 90)
    # Pair thresholds default to the shared row of the measure in use (core/pairs):
    # near-duplicates at 0.95 for a model's cosine and for TF-IDF alike.
    assert s.duplicate_similarity is None and s.failure_warn_after == 3
    assert THRESHOLDS["model"].duplicate == THRESHOLDS["tfidf"].duplicate == 0.95
    assert s.auto_apply_safe is False and s.max_sessions == 10


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"retention_days": 0},
            "consolidation.retention_days: must be days (a whole number >= 1), got 0",
        ),
        ({"retention_days": 1.5}, "consolidation.retention_days"),
        ({"low_confidence": 2}, "consolidation.low_confidence: must be a number from 0 to 1"),
        ({"session_threshold": True}, "consolidation.session_threshold"),
        ({"auto_apply_safe": "yes"}, "consolidation.auto_apply_safe: must be true or false"),
        ({"similarity": "magic"}, "must be one of auto, lexical, search"),
        ({"explicit_phrases": []}, "consolidation.explicit_phrases"),
        ({"retension_days": 9}, "consolidation.retension_days: unknown key; allowed:"),
    ],
)
def test_bad_values_name_the_key(table, message):
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_consolidation(table)


def test_through_the_general_loader(tmp_path):
    save_settings(tmp_path, {"consolidation": {"retention_days": 30, "auto_apply_safe": True}})
    parsed = load_settings(tmp_path).section("consolidation")
    assert isinstance(parsed, ConsolidationSettings)
    assert parsed.retention_days == 30 and parsed.auto_apply_safe
    assert consolidation_settings(load_settings(tmp_path)).retention_days == 30
    with pytest.raises(SettingsError):
        save_settings(tmp_path, {"consolidation": {"retention_days": -1}})


def test_extractor_command_that_consolidation_runs():
    # Consolidation runs the plug-in the extraction settings name (one parser for both).
    def command(table):
        return ExtractSettings.from_mapping({"extractor": table}).extractor

    assert command({}).use == "heuristic"
    assert command({"command": "llm-extract --json"}).command == ("llm-extract", "--json")
    assert command({"command": ["x", "-y"]}).use == "command"
    with pytest.raises(SettingsError, match="extractor.command"):
        command({"command": 3})
