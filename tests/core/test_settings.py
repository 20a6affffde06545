"""The typed settings object: every table checked, each problem one line naming the file
and the key, a bad table falling back to its defaults, re-read only when the file changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core.context.settings import SettingsError
from memdesk.core.settings import MemdeskSettings, SettingsFile, check, load


def write(root: Path, text: str) -> Path:
    path = root / ".memdesk" / "settings.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_missing_file_is_every_default(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert settings.problems == ()
    assert settings.context.budget == 800 and settings.sources.inbox is True
    assert settings.memfiles.gate == "hold" and settings.keys == {}


def test_values_land_in_their_typed_tables(tmp_path: Path) -> None:
    write(
        tmp_path,
        '[context]\nbudget = 1200\n[search]\nfusion = "rrf"\n'
        '[sources]\ntranscripts = "logs/*.jsonl"\ninbox = false\n'
        '[memfiles]\ngate = "keep"\n[mcp]\nmax_text_chars = 99\n[keys]\napprove = "y"\n'
        "[consolidation]\nretention_days = 5\n",
    )
    settings = load(tmp_path)
    assert settings.problems == ()
    assert settings.context.budget == 1200
    assert settings.search.fusion == "rrf"
    assert settings.sources.transcripts == ("logs/*.jsonl",) and not settings.sources.inbox
    assert settings.extract.sources is settings.sources
    assert settings.memfiles.gate == "keep"
    assert settings.mcp.max_text_chars == 99
    assert settings.keys == {"approve": "y"}
    assert settings.consolidation.retention_days == 5


def test_every_problem_is_one_line_with_file_and_key_and_the_rest_still_applies(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "[context]\nbudget = 900\ncolour = 1\n[serach]\nmodel = 'x'\n"
        "[memfiles]\ngate = 'open'\n[sources]\ninbox = 'yes'\n[search]\nrrf_k = 0\n"
        "[mcp]\nlimit = 1\n",
    )
    settings = load(tmp_path)
    lines = settings.problems
    assert all(line.startswith(f"{path}: ") and "\n" not in line for line in lines)
    text = "\n".join(lines)
    for key in ("context.colour", "serach", "memfiles.gate", "sources.inbox", "search.rrf_k"):
        assert key in text
    assert "mcp.limit" in text
    assert len(lines) == 6
    # A bad table holds its defaults; the good ones keep their values.
    assert settings.context.budget == 800  # [context] itself was wrong (colour)
    assert settings.memfiles.gate == "hold"
    assert settings.sources.inbox is True
    assert "memfiles.gate" in settings.problem_with("memfiles")
    assert settings.problem_with("keys") == ""


def test_a_file_that_is_not_toml_is_one_problem_naming_the_line(tmp_path: Path) -> None:
    write(tmp_path, "[context\nbudget = 3\n")
    settings = load(tmp_path)
    defaults = MemdeskSettings()
    assert (settings.context, settings.search, settings.sources) == (
        defaults.context,
        defaults.search,
        defaults.sources,
    )
    [line] = settings.problems
    assert settings.problem_with("context") == line == settings.problem_with("keys")
    assert "settings.toml:1: not valid TOML" in line
    with pytest.raises(SettingsError, match="not valid TOML"):
        check(tmp_path)


def test_the_file_is_parsed_again_only_when_it_changed(tmp_path: Path) -> None:
    path = write(tmp_path, "[context]\nbudget = 100\n")
    file = SettingsFile(tmp_path)
    first = file.current()
    assert file.current() is first
    path.write_text("[context]\nbudget = 2500\n", "utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert file.current().context.budget == 2500
