"""Files a hostile branch could commit, through the CLI: one line naming the file, never
a store-wide failure (a 5000-digit number in an entry or settings.toml, a symbolic link
loop in entries/, a memory/ file whose name is not UTF-8)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HUGE = "9" * 5000


@pytest.fixture
def repo(tmp_path: Path, cli) -> Path:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    for text in ("Always run make check before pushing", "Deploys go through make release"):
        added = cli("--dir", str(tmp_path), "add", text, "--status", "confirmed")
        assert added.returncode == 0, added.stderr
    return tmp_path


def _no_traceback(result) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in result.stderr, result.stderr
    assert "integer string conversion" not in result.stderr + result.stdout


@pytest.mark.parametrize("verb", [["list"], ["context"], ["render"], ["doctor"]])
def test_an_entry_with_a_5000_digit_number_leaves_the_rest_working(
    repo: Path, cli, verb: list[str]
) -> None:
    path = sorted((repo / ".memdesk" / "entries").glob("*.toml"))[0]
    path.write_text(path.read_text("utf-8").replace("version = 1\n", f"version = {HUGE}\n"))
    result = cli("--dir", str(repo), *verb)
    _no_traceback(result)
    assert result.returncode in ((0, 1) if verb == ["doctor"] else (0,)), result.stderr
    problems = cli("--dir", str(repo), "problems")
    _no_traceback(problems)
    (line,) = [x for x in problems.stdout.splitlines() if path.name in x]
    assert f".memdesk/entries/{path.name}:" in line and "5,000 digits" in line


def test_a_5000_digit_budget_in_settings_is_one_line_naming_the_file(repo: Path, cli) -> None:
    (repo / ".memdesk" / "settings.toml").write_text(f"[context]\nbudget = {HUGE}\n")
    context = cli("--dir", str(repo), "context")
    _no_traceback(context)
    assert context.returncode == 1
    (line,) = context.stderr.strip().splitlines()
    assert "settings.toml:2: not valid TOML: a number of 5,000 digits" in line
    problems = cli("--dir", str(repo), "problems")
    _no_traceback(problems)
    assert "settings.toml:2: not valid TOML" in problems.stdout


@pytest.mark.parametrize("verb", [["list"], ["context"], ["render"], ["doctor"]])
def test_a_symlink_loop_in_entries_leaves_the_rest_working(
    repo: Path, cli, verb: list[str]
) -> None:
    os.symlink("loop.toml", repo / ".memdesk" / "entries" / "loop.toml")
    result = cli("--dir", str(repo), *verb)
    assert result.returncode in ((0, 1) if verb == ["doctor"] else (0,)), result.stderr
    assert "unexpected" not in result.stderr
    if verb == ["doctor"]:  # the damaged file is a finding
        assert "loop.toml: symbolic link that loops back on itself" in result.stdout
    problems = cli("--dir", str(repo), "problems")
    assert problems.returncode == 0, problems.stderr
    (line,) = [x for x in problems.stdout.splitlines() if "loop.toml" in x]
    assert ".memdesk/entries/loop.toml: symbolic link that loops back on itself" in line


def test_discover_names_a_file_name_that_is_not_utf8_and_lists_the_rest(repo: Path, cli) -> None:
    memory = repo / "memory"
    memory.mkdir()
    (memory / "notes.md").write_text("- always x\n", "utf-8")
    with open(os.path.join(os.fsencode(memory), b"\xfe2026.md"), "w") as handle:
        handle.write("- always y\n")
    listed = cli("--dir", str(repo), "adopt", "--discover")
    assert listed.returncode == 0, listed.stderr
    assert "codec" not in listed.stderr
    (line,) = [x for x in listed.stdout.splitlines() if "2026.md" in x]
    assert line.startswith("refused: b'") and "\\xfe2026.md'" in line
    assert "not UTF-8" in line
    assert any("notes.md" in x and "not adopted" in x for x in listed.stdout.splitlines())
    shaped = cli("--dir", str(repo), "adopt", "--discover", "--json")
    assert shaped.returncode == 0, shaped.stderr
    assert any("\\xfe2026.md" in f["path"] for f in json.loads(shaped.stdout))
    adopted = cli("--dir", str(repo), "adopt", "--discover", "--all")
    assert adopted.returncode == 0, adopted.stderr
    assert "notes.md" in adopted.stdout
    (refusal,) = [x for x in adopted.stderr.splitlines() if "2026.md" in x]
    assert "\\xfe2026.md" in refusal and "not UTF-8" in refusal


def test_adopt_names_a_file_name_that_is_not_utf8(repo: Path, cli) -> None:
    memory = repo / "memory"
    memory.mkdir()
    bad = os.path.join(os.fsencode(memory), b"\xfe2026.md")
    with open(bad, "w") as handle:
        handle.write("- always y\n")
    adopted = cli("--dir", str(repo), "adopt", os.fsdecode(bad))
    assert adopted.returncode == 1
    (line,) = adopted.stderr.strip().splitlines()
    assert "\\xfe2026.md'" in line and "not UTF-8" in line and "codec" not in line
