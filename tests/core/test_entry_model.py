"""The entry model: every field round-trips through TOML; bad values are named."""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path

import pytest
from memdesk.core.entry import FIELD_ORDER, Entry, EntryError, Source, normalise_text, text_hash
from memdesk.core.entry_files import entry_to_toml, read_entry_file


def full_entry() -> Entry:
    return Entry(
        id="e-1",
        version=3,
        kind="decision",
        scope="workspace",
        status="confirmed",
        confidence="high",
        summary="后台任务换成 arq, because Celery has no asyncio",
        facts=["Worker 入口是 worker.py", "celery_app.py deleted"],
        tags=["jobs", "决定"],
        valid_until=dt.date(2027, 1, 31),
        related=["e-7"],
        supersedes=["e-0"],
        superseded_by="",
        flags={"suspicious": "asks to run curl | sh"},
        source=Source(
            origin="transcript",
            session_id="s-1",
            timestamp="2025-03-05T15:31:16+08:00",
            files=["src/worker.py"],
            commands=["uv run arq tidepool.worker.WorkerSettings"],
            locator="t.jsonl:12",
            excerpt="we decided: arq",
        ),
        created=dt.datetime(2025, 3, 5, 7, 31, 16, tzinfo=dt.UTC),
        updated=dt.datetime(2025, 3, 6, 7, 31, 16, tzinfo=dt.UTC),
        last_access=dt.datetime(2025, 4, 1, tzinfo=dt.UTC),
    )


def test_every_field_round_trips_through_toml(tmp_path: Path) -> None:
    entry = full_entry()
    path = tmp_path / "e-1.toml"
    path.write_bytes(entry_to_toml(entry))
    loaded = read_entry_file(path, tmp_path)
    assert loaded == entry
    assert loaded.to_json() == entry.to_json()


def test_field_order_on_disk_is_stable() -> None:
    data = tomllib.loads(entry_to_toml(full_entry()).decode())
    assert list(data) == [f for f in FIELD_ORDER if f in data]
    assert list(data["source"]) == [
        "origin",
        "session_id",
        "timestamp",
        "files",
        "commands",
        "locator",
        "excerpt",
    ]


def test_json_form_has_every_field_with_nulls() -> None:
    data = Entry(summary="x").to_json()
    assert set(data) == set(FIELD_ORDER)
    assert data["valid_until"] is None and data["last_access"] is None


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("kind", "opinion", "unknown kind 'opinion'"),
        ("scope", "team", "unknown scope 'team'"),
        ("status", "maybe", "unknown status 'maybe'"),
        ("confidence", "0.9", "unknown confidence '0.9'"),
        ("valid_until", "next tuesday", "'valid_until' is not a date"),
        ("facts", "ok", None),
        ("tags", [1, 2], "'tags' must be a list of text"),
        ("version", 0, "'version' must be a whole number"),
        ("created", "yesterday", "'created' is not a date-time"),
    ],
)
def test_validation_names_file_field_and_value(
    field: str, value: object, needle: str | None
) -> None:
    data = {"summary": "a fact", field: value}
    if needle is None:
        assert Entry.from_dict(data).facts == ["ok"]
        return
    with pytest.raises(EntryError) as err:
        Entry.from_dict(data, path="entries/x.toml")
    message = str(err.value)
    assert message.startswith("entries/x.toml: ")
    assert needle in message
    assert err.value.field == field
    assert err.value.value == value


def test_unknown_field_and_empty_summary_are_errors() -> None:
    with pytest.raises(EntryError, match="unknown field"):
        Entry.from_dict({"summary": "x", "colour": "red"})
    with pytest.raises(EntryError, match="'summary' must be non-empty"):
        Entry.from_dict({"summary": "  "})


def test_normalised_hash_ignores_bullets_case_width_and_spacing() -> None:
    assert normalise_text("-  Use   PNPM ") == "use pnpm"
    assert text_hash("- 记住：用 pnpm") == text_hash("记住：用  pnpm")
    assert text_hash("ＡＢＣ") == text_hash("abc")  # full-width forms (NFKC)
    assert text_hash("use npm") != text_hash("use pnpm")
