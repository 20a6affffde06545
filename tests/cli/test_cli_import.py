"""`memdesk import`: refuses what the store could not read back, never doubles entries,
and says clearly what is wrong with the file it was given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def root(tmp_path: Path, cli) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    assert cli("--dir", str(project), "init").returncode == 0
    return project


def entry_count(root: Path) -> int:
    return len(list((root / ".memdesk" / "entries").glob("*.toml")))


def test_huge_summary_is_refused_naming_the_limit(root: Path, tmp_path: Path, cli) -> None:
    src = tmp_path / "big.json"
    src.write_text(json.dumps([{"summary": "x" * 1_100_000}, {"summary": "a normal fact"}]))
    result = cli("--dir", str(root), "import", str(src))
    assert result.returncode == 0, result.stderr
    assert "imported 1 entry, 1 invalid" in result.stdout
    assert "item 0" in result.stderr and "at most 1 MB" in result.stderr
    assert entry_count(root) == 1
    assert cli("--dir", str(root), "problems").stdout.strip() == "no problems"


def test_importing_twice_does_not_double(root: Path, tmp_path: Path, cli) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"summary": "Use pnpm, not npm"}\n{"summary": "Tests run with pytest"}\n')
    first = cli("--dir", str(root), "import", str(src))
    assert "imported 2 entries" in first.stdout
    again = cli("--dir", str(root), "import", str(src), "--json")
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["imported"] == [] and len(data["duplicates"]) == 2
    assert entry_count(root) == 2


def test_reimporting_an_export_does_not_double(root: Path, tmp_path: Path, cli) -> None:
    cli("--dir", str(root), "add", "Use pnpm, not npm", "--status", "confirmed")
    export = tmp_path / "export.json"
    export.write_text(cli("--dir", str(root), "export").stdout)
    result = cli("--dir", str(root), "import", str(export))
    assert result.returncode == 0, result.stderr
    assert "imported 0 entries" in result.stdout and "1 duplicate" in result.stdout
    assert entry_count(root) == 1


def test_same_text_twice_in_one_file_is_one_entry(root: Path, tmp_path: Path, cli) -> None:
    src = tmp_path / "in.json"
    src.write_text(json.dumps([{"summary": "Use pnpm"}, {"summary": "use  PNPM"}]))
    cli("--dir", str(root), "import", str(src))
    assert entry_count(root) == 1


def test_folder_is_named_as_a_folder(root: Path, tmp_path: Path, cli) -> None:
    result = cli("--dir", str(root), "import", str(tmp_path))
    assert result.returncode == 1
    assert "is a folder" in result.stderr and "no such file" not in result.stderr


def test_one_bad_byte_loses_one_line_only(root: Path, tmp_path: Path, cli) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(
        b'{"summary": "first fact"}\n{"summary": "caf\xe9 fact"}\n{"summary": "third fact"}\n'
    )
    result = cli("--dir", str(root), "import", str(src))
    assert result.returncode == 0, result.stderr
    assert "imported 2 entries, 1 invalid" in result.stdout
    assert ":2: not UTF-8 text" in result.stderr
