"""settings.toml: defaults, overrides, errors that name the key, unknown tables kept."""

from __future__ import annotations

import pytest
from memdesk.core.context.settings import (
    ContextSettings,
    SettingsError,
    load_settings,
    parse_settings,
    save_settings,
)


def test_missing_file_means_defaults(tmp_path):
    settings = load_settings(tmp_path)
    assert settings.context == ContextSettings()
    assert settings.context.purpose == "coding" and settings.context.budget == 800


def test_round_trip_with_purpose_override(tmp_path):
    data = {
        "context": {
            "purpose": "review",
            "budget": 2000,
            "unit": "chars",
            "half_life_days": 7,
            "include_candidates": True,
            "purposes": {"review": {"sections": ["experience", "project"]}},
        },
        "search": {"model": "whatever"},
        "someone_elses": {"x": 1},
    }
    path = save_settings(tmp_path, data)
    assert path == tmp_path / ".memdesk" / "settings.toml"
    settings = load_settings(tmp_path)
    ctx = settings.context
    assert (ctx.purpose, ctx.budget, ctx.unit, ctx.half_life_days) == ("review", 2000, "chars", 7.0)
    assert ctx.include_candidates is True
    assert ctx.sections_for("review") == ("experience", "project")
    assert settings.section("someone_elses") == {"x": 1}
    assert settings.section("search").model == "whatever"  # checked: a known table


def test_builtin_purpose_can_be_overridden():
    ctx = parse_settings({"context": {"purposes": {"coding": {"sections": ["commands"]}}}}).context
    assert ctx.sections_for("coding") == ("commands",)


@pytest.mark.parametrize(
    ("table", "key", "allowed"),
    [
        ({"budget": "lots"}, "context.budget", "whole number"),
        ({"budget": 0}, "context.budget", ">= 1"),
        ({"budget": True}, "context.budget", "whole number"),
        ({"unit": "words"}, "context.unit", "tokens, chars"),
        ({"format": "html"}, "context.format", "agent, markdown"),
        ({"purpose": "poetry"}, "context.purpose", "chat, coding"),
        ({"half_life_days": -1}, "context.half_life_days", "days > 0"),
        ({"include_candidates": "yes"}, "context.include_candidates", "true or false"),
        ({"colour": "red"}, "context.colour", "allowed: budget"),
        ({"purposes": {"x": {"sections": ["nope"]}}}, "context.purposes.x.sections", "project"),
        ({"purposes": {"x": {"sections": []}}}, "context.purposes.x.sections", "at least one"),
        ({"purposes": {"x": {"order": []}}}, "context.purposes.x.order", "allowed: sections"),
    ],
)
def test_bad_values_name_the_key_and_what_is_allowed(table, key, allowed):
    with pytest.raises(SettingsError) as info:
        parse_settings({"context": table})
    assert info.value.key == key
    assert key in str(info.value) and allowed in str(info.value)


def test_invalid_toml_is_a_settings_error(tmp_path):
    (tmp_path / ".memdesk").mkdir()
    (tmp_path / ".memdesk" / "settings.toml").write_text("[context\nbudget = 1", "utf-8")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(tmp_path)


def test_save_refuses_invalid_settings(tmp_path):
    with pytest.raises(SettingsError):
        save_settings(tmp_path, {"context": {"unit": "bytes"}})
    assert not (tmp_path / ".memdesk" / "settings.toml").exists()


def test_every_known_table_is_checked_whatever_was_imported():
    # One list of tables (memdesk.core.settings.SECTIONS), not a registry filled by
    # whichever modules happened to be imported: each table's parser always runs.
    from memdesk.core.consolidate.settings import ConsolidationSettings
    from memdesk.core.settings import SECTIONS

    assert {"context", "search", "extractor", "sources", "consolidation"} <= set(SECTIONS)
    assert {"memfiles", "mcp", "keys"} <= set(SECTIONS)
    settings = parse_settings({"consolidation": {"retention_days": 6}})
    assert isinstance(settings.section("consolidation"), ConsolidationSettings)
    for table, key in (
        ({"consolidation": {"retention_days": "often"}}, "consolidation.retention_days"),
        ({"memfiles": {"gate": "open"}}, "memfiles.gate"),
        ({"mcp": {"max_text_chars": 0}}, "mcp.max_text_chars"),
        ({"search": {"fusion": "best"}}, "search.fusion"),
    ):
        with pytest.raises(SettingsError, match=key.replace(".", r"\.")):
            parse_settings(table)


def test_relative_tokenizer_path_is_relative_to_the_store_root(tmp_path):
    save_settings(tmp_path, {"context": {"tokenizer": "models/tokenizer.json"}})
    assert load_settings(tmp_path).context.tokenizer == str(tmp_path / "models/tokenizer.json")
    save_settings(tmp_path, {"context": {"tokenizer": "estimate"}})
    assert load_settings(tmp_path).context.tokenizer == "estimate"


def test_metadata_setting_is_true_or_false():
    from memdesk.core.context.settings import SettingsError, parse_context

    assert parse_context({}).metadata is False
    assert parse_context({"metadata": True}).metadata is True
    with pytest.raises(SettingsError, match="context.metadata: must be true or false"):
        parse_context({"metadata": "yes"})
