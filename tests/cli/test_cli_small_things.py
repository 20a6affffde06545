"""Small things a new user runs into: each says what is wrong once, clearly."""

from __future__ import annotations

import json
from pathlib import Path


def test_missing_dir_is_named_and_init_makes_it(tmp_path: Path, cli) -> None:
    target = tmp_path / "new-project"
    listed = cli("--dir", str(target), "list")
    assert listed.returncode == 1 and "no such folder" in listed.stderr
    made = cli("--dir", str(target), "init")
    assert made.returncode == 0, made.stderr
    assert (target / ".memdesk").is_dir()


def test_extract_warning_is_printed_once(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        "{bad\n" + json.dumps({"role": "user", "content": "Remember: deploy with make"}) + "\n"
    )
    result = cli("--dir", str(tmp_path), "extract", str(transcript))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("malformed JSON") == 1, result.stderr


def test_a_sources_glob_matching_nothing_is_said(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    settings = tmp_path / ".memdesk" / "settings.toml"
    settings.write_text(settings.read_text() + '\n[sources]\ntranscripts = "not-a-list"\n')
    result = cli("--dir", str(tmp_path), "extract", "--sources")
    assert result.returncode == 0, result.stderr
    assert "'not-a-list' matches no file" in result.stderr
