"""`memdesk sources` finds each agent's sessions for this directory; `--add` watches them;
`memdesk extract` refuses a file in no known format."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from memdesk.cli.main import main
from memdesk.core.extract.inbox import source_files
from memdesk.core.store import Store


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    for name in ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def line(record: object) -> str:
    return json.dumps(record) + "\n"


def make_sessions(project: Path, home: Path, codex: Path) -> None:
    claude = (
        home
        / ".claude/projects"
        / str(project).replace("/", "-").replace(".", "-").replace("_", "-")
    )
    claude.mkdir(parents=True)
    (claude / "a1.jsonl").write_text(
        line({"type": "user", "sessionId": "a1", "message": {"role": "user", "content": "use uv"}})
    )
    day = codex / "sessions/2025/09/19"
    day.mkdir(parents=True)
    meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": "r1", "cwd": str(project)}}
    (day / "rollout-2025-09-19T09-00-00-r1.jsonl").write_text(line(meta))
    other = {"timestamp": "t", "type": "session_meta", "payload": {"id": "r2", "cwd": "/elsewhere"}}
    (day / "rollout-2025-09-19T10-00-00-r2.jsonl").write_text(line(other))
    digest = hashlib.sha256(str(project).encode()).hexdigest()
    chats = home / ".gemini/tmp" / digest / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2025-09-19T09-00-g1.json").write_text(
        json.dumps({"sessionId": "g1", "projectHash": digest, "messages": []})
    )
    state = home / ".copilot/session-state/c1"
    state.mkdir(parents=True)
    (state / "workspace.yaml").write_text(f"id: c1\ncwd: {project}\n")
    (state / "events.jsonl").write_text(
        line({"type": "session.start", "data": {"sessionId": "c1"}})
    )
    (project / ".aider.chat.history.md").write_text("# aider chat started at 2025-01-01 10:00:00\n")
    (project / ".specstory/history").mkdir(parents=True)
    (project / ".specstory/history/2025-01-01_10-00-x.md").write_text("_**User**_\n\nhi\n")


def test_sources_lists_each_agents_sessions_for_this_directory(
    tmp_path: Path, homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "my_proj.v2"
    project.mkdir()
    make_sessions(project.resolve(), homes, tmp_path / "codex-home")
    assert main(["--dir", str(project), "sources", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(s["agent"], s["format"], s["sessions"]) for s in found] == [
        ("claude-code", "claude-code", 1),
        ("codex", "codex", 1),
        ("gemini-cli", "gemini-cli", 1),
        ("copilot-cli", "copilot-cli", 1),
        ("aider", "aider", 1),
        ("specstory", "specstory", 1),
    ]
    assert all(s["bytes"] > 0 and s["path"] for s in found)
    assert main(["--dir", str(project), "sources"]) == 0
    assert "claude-code" in capsys.readouterr().out


def test_sources_add_puts_them_into_the_settings_and_extract_reads_them(
    tmp_path: Path, homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert main(["--dir", str(project), "init"]) == 0
    make_sessions(project.resolve(), homes, tmp_path / "codex-home")
    capsys.readouterr()
    assert main(["--dir", str(project), "sources", "--add", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)["added"]
    assert len(added) == 6
    store = Store.open(project)
    assert store.settings["sources"]["transcripts"] == added
    read = {p.name for p in source_files(store)}
    assert {"a1.jsonl", "rollout-2025-09-19T09-00-00-r1.jsonl", "events.jsonl"} <= read
    assert "rollout-2025-09-19T10-00-00-r2.jsonl" not in read  # another project's rollout
    assert main(["--dir", str(project), "sources", "--add"]) == 0  # again: nothing new
    assert "nothing new to add" in capsys.readouterr().out
    assert Store.open(project).settings["sources"]["transcripts"] == added


def test_homes_come_from_settings(
    tmp_path: Path, homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert main(["--dir", str(project), "init"]) == 0
    elsewhere = tmp_path / "other-codex"
    make_sessions(project.resolve(), homes, elsewhere)
    settings = project / ".memdesk/settings.toml"
    settings.write_text(settings.read_text() + f'\n[sources.homes]\ncodex = "{elsewhere}"\n')
    capsys.readouterr()
    # The settings travel with the repository: a folder outside they name is listed
    # only once the person allows it here (else the agent's own folder is used).
    assert main(["--dir", str(project), "sources", "--json"]) == 0
    found = {s["agent"]: s for s in json.loads(capsys.readouterr().out)}
    assert "codex" not in found
    assert main(["--dir", str(project), "trust"]) == 0
    assert f"allowed: sources.homes.codex = {elsewhere}" in capsys.readouterr().out
    assert main(["--dir", str(project), "sources", "--json"]) == 0
    found = {s["agent"]: s for s in json.loads(capsys.readouterr().out)}
    assert found["codex"]["sessions"] == 1 and found["codex"]["path"] == str(elsewhere / "sessions")


def test_extract_refuses_a_file_in_no_known_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--dir", str(tmp_path), "init"]) == 0
    odd = tmp_path / "metrics.jsonl"
    odd.write_text('{"cpu": 0.4}\n{"cpu": 0.5}\n')
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "extract", str(odd)]) == 1
    err = capsys.readouterr().err
    assert str(odd) in err and "tried: claude-code, codex" in err
    assert Store.open(tmp_path).entries() == []


def test_extract_says_when_a_recognised_file_has_no_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--dir", str(tmp_path), "init"]) == 0
    session = tmp_path / "s.jsonl"
    session.write_text(line({"type": "summary", "summary": "Setup", "leafUuid": "u"}))
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "extract", "--json", str(session)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["files"][0]["format"] == "claude-code"
    assert "read as claude-code; it holds no conversation" in err
