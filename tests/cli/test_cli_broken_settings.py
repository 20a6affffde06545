"""A settings.toml that is not valid TOML: every verb says so in one line (file and
line), reading verbs that do not need settings keep working, and a writing verb refuses
before it commits instead of failing after."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

BROKEN = "[context]\nbudget = 200\n[search\nmode = 'text'\n"  # line 3 is broken


@pytest.fixture
def broken(tmp_path: Path, cli) -> tuple[Path, str]:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    added = cli("--dir", str(tmp_path), "add", "Run the tests with pytest -q before pushing")
    assert added.returncode == 0, added.stderr
    (tmp_path / ".memdesk" / "settings.toml").write_text(BROKEN)
    return tmp_path, added.stdout.strip()


def _one_clear_line(result) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "settings.toml:3: not valid TOML" in lines[0], lines[0]


@pytest.mark.parametrize(
    "verb",
    [
        ["search", "pytest"],
        ["consolidate"],
        ["duplicates"],
        ["reindex"],
        ["context"],
        ["render"],
        ["extract", "--sources"],
    ],
)
def test_verbs_needing_settings_say_file_and_line(broken, cli, verb: list[str]) -> None:
    root, _ = broken
    result = cli("--dir", str(root), *verb)
    assert result.returncode == 1
    _one_clear_line(result)


@pytest.mark.parametrize("verb", [["list"], ["stats"], ["problems"], ["export"]])
def test_reading_verbs_work_without_settings(broken, cli, verb: list[str]) -> None:
    root, _ = broken
    result = cli("--dir", str(root), *verb)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_problems_names_the_broken_settings_file(broken, cli) -> None:
    root, _ = broken
    result = cli("--dir", str(root), "problems")
    assert "settings.toml:3: not valid TOML" in result.stdout


def test_approve_refuses_before_committing(broken, cli) -> None:
    root, entry_id = broken
    result = cli("--dir", str(root), "approve", entry_id)
    assert result.returncode == 1
    _one_clear_line(result)
    data = tomllib.loads((root / ".memdesk" / "entries" / f"{entry_id}.toml").read_text())
    assert data["status"] == "candidate"  # nothing committed: a retry makes no duplicate
    journal = (root / ".memdesk" / "journal.jsonl").read_text().splitlines()
    assert len(journal) == 1  # only the add


def test_add_confirmed_refuses_before_committing(broken, cli) -> None:
    root, _ = broken
    result = cli(
        "--dir", str(root), "add", "Deploys go through make release", "--status", "confirmed"
    )
    assert result.returncode == 1
    _one_clear_line(result)
    assert len(list((root / ".memdesk" / "entries").glob("*.toml"))) == 1


def test_add_candidate_still_works(broken, cli) -> None:
    # A candidate is not rendered into MEMORY.md: the settings are not needed to add one.
    root, _ = broken
    result = cli("--dir", str(root), "add", "Deploys go through make release")
    assert result.returncode == 0, result.stderr
    assert len(list((root / ".memdesk" / "entries").glob("*.toml"))) == 2


def test_problems_names_each_wrong_table_of_valid_toml(tmp_path: Path, cli) -> None:
    """A file that parses but holds a wrong value or an unknown table: `problems` names
    each table in one line (the verb needing it would stop with the same line)."""
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    (tmp_path / ".memdesk" / "settings.toml").write_text(
        '[context]\nunit = "words"\n[serach]\nmodel = "x"\n'
    )
    result = cli("--dir", str(tmp_path), "problems")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert any("context.unit" in line and "settings.toml" in line for line in lines), lines
    assert any("serach" in line and "unknown table" in line for line in lines), lines
    assert "no problems" not in result.stdout
    shaped = cli("--dir", str(tmp_path), "problems", "--json")
    data = json.loads(shaped.stdout)
    assert data["settings"] is None  # the file itself is TOML
    assert len(data["settings_tables"]) == 2


def test_problems_is_quiet_about_good_settings(tmp_path: Path, cli) -> None:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    result = cli("--dir", str(tmp_path), "problems", "--json")
    assert json.loads(result.stdout)["settings_tables"] == []
    assert cli("--dir", str(tmp_path), "problems").stdout.strip() == "no problems"
