"""`[context] tokenizer` from a repository's settings (round 8, C4 and escape 3): a path
outside the working directory is not opened until the person allows it here, and a file
that is not a tokenizer.json is named in one line while the default counts instead."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from memdesk.core.context.settings import load_settings, save_settings
from memdesk.core.context.tokens import get_counter
from memdesk.core.trust import allow, requests


def _project(tmp_path: Path, tokenizer: str) -> Path:
    root = tmp_path / "project"
    (root / ".memdesk").mkdir(parents=True)
    save_settings(root, {"context": {"tokenizer": tokenizer}})
    return root


def test_an_outside_tokenizer_path_falls_back_until_allowed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "elsewhere" / "tokenizer.json"
    outside.parent.mkdir()
    outside.write_text("{}")
    root = _project(tmp_path, str(outside))
    with caplog.at_level(logging.WARNING):
        assert load_settings(root).context.tokenizer == "auto"
    assert any(
        "context.tokenizer" in r.getMessage() and "not allowed on this machine" in r.getMessage()
        for r in caplog.records
    )
    wanted = requests({"context": {"tokenizer": str(outside)}}, root)
    assert [r.key for r in wanted] == ["context.tokenizer"]
    allow(root, wanted)
    assert load_settings(root).context.tokenizer == str(outside)


def test_a_tokenizer_path_inside_the_project_asks_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path, "models/tokenizer.json")
    assert requests({"context": {"tokenizer": "models/tokenizer.json"}}, root) == []
    assert requests({"context": {"tokenizer": "../../etc/passwd"}}, root) != []
    assert load_settings(root).context.tokenizer == str(root / "models/tokenizer.json")


def test_a_file_that_is_not_a_tokenizer_counts_with_the_default(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with caplog.at_level(logging.WARNING):
        counter = get_counter("tokens", str(path))
    assert counter.name == get_counter("tokens", "auto").name
    assert counter.count("hello world") > 0
    messages = [r.getMessage() for r in caplog.records]
    assert any("context.tokenizer" in m and str(path) in m for m in messages), messages
