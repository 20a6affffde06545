"""The CLI for managed memory files: adopt, files, render --order, and import's word."""

from __future__ import annotations

import json
from pathlib import Path

CLAUDE_MD = """\
# CLAUDE.md

## Rules

**NEVER**:

- Import modules mid-code
- Run `pnpm dev`

## Commands

Before committing, run:

```bash
pnpm typecheck
```
"""


def test_adopt_json_and_files(tmp_path: Path, cli) -> None:
    (tmp_path / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    adopted = cli("--dir", str(tmp_path), "adopt", str(tmp_path / "CLAUDE.md"), "--json")
    assert adopted.returncode == 0, adopted.stderr
    data = json.loads(adopted.stdout)
    assert set(data) == {"path", "format", "entries", "sections", "unchanged"}
    assert data["format"] == "claude-md" and data["entries"] == 3 and data["unchanged"] is True
    assert data["sections"] == ["CLAUDE.md", "Rules", "Commands"]
    assert (tmp_path / "CLAUDE.md").read_text("utf-8") == CLAUDE_MD

    listed = cli("--dir", str(tmp_path), "list", "--json")
    summaries = {e["summary"]: e for e in json.loads(listed.stdout)}
    assert summaries["Import modules mid-code"]["section"] == ["CLAUDE.md", "Rules", "NEVER"]
    assert summaries["Before committing, run:"]["facts"] == ["pnpm typecheck"]

    with open(tmp_path / "CLAUDE.md", "a", encoding="utf-8") as handle:
        handle.write("- Use uv for Python\n")
    files = cli("--dir", str(tmp_path), "files", "--json")
    assert files.returncode == 0, files.stderr
    (row,) = json.loads(files.stdout)
    assert row["entries"] == 3 and row["load_limit"] == "whole file"
    assert row["lines"] == CLAUDE_MD.count("\n") + 1  # on disk: the append is there
    ingest = cli("--dir", str(tmp_path), "ingest")
    assert "Use uv for Python" in ingest.stdout
    (row,) = json.loads(cli("--dir", str(tmp_path), "files", "--json").stdout)
    assert row["candidates"] == 1 and row["lines"] == CLAUDE_MD.count("\n")
    text = cli("--dir", str(tmp_path), "files").stdout
    assert "CLAUDE.md  claude-md  3 entries, 1 waiting" in text

    render = cli("--dir", str(tmp_path), "render")
    assert render.returncode == 0
    assert (tmp_path / "CLAUDE.md").read_text("utf-8") == CLAUDE_MD

    again = cli("--dir", str(tmp_path), "adopt", str(tmp_path / "CLAUDE.md"))
    assert again.returncode == 1 and "already adopted" in again.stderr


def test_init_adopts_memory_md_and_render_leaves_it(tmp_path: Path, cli) -> None:
    text = "# Memory\n\n## Build\n- make all\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    (tmp_path / "MEMORY.md").write_text(text, encoding="utf-8")
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    assert cli("--dir", str(tmp_path), "render").returncode == 0
    assert (tmp_path / "MEMORY.md").read_text("utf-8") == text
    listed = json.loads(cli("--dir", str(tmp_path), "list", "--json").stdout)
    assert {e["status"] for e in listed} == {"confirmed"}
    assert not [e for e in listed if e["summary"].startswith("|---")]


def test_import_of_markdown_names_the_right_verbs(tmp_path: Path, cli) -> None:
    (tmp_path / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    result = cli("--dir", str(tmp_path), "import", str(tmp_path / "CLAUDE.md"))
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1
    assert "adopt" in result.stderr and "ingest" in result.stderr
    assert "malformed JSON" not in result.stderr


def test_adopt_discover_and_render_order(tmp_path: Path, cli, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "AGENTS.md").write_text("- rule one\n", encoding="utf-8")
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    found = json.loads(cli("--dir", str(tmp_path), "adopt", "--discover", "--json").stdout)
    assert [(Path(f["path"]).name, f["format"], f["managed"]) for f in found] == [
        ("AGENTS.md", "agents-md", False)
    ]
    usage = cli("--dir", str(tmp_path), "adopt")
    assert usage.returncode == 1 and "--discover" in usage.stderr
    agents = str(tmp_path / "AGENTS.md")
    assert cli("--dir", str(tmp_path), "adopt", agents, "--as", "agents-md").returncode == 0
    (tmp_path / "GEMINI.md").write_text("- rule two\n", encoding="utf-8")
    everything = cli("--dir", str(tmp_path), "adopt", "--discover", "--all", "--json")
    assert [r["format"] for r in json.loads(everything.stdout)] == ["gemini-md"]
    ordered = cli("--dir", str(tmp_path), "render", "--order")
    assert ordered.returncode == 0, ordered.stderr
    assert (tmp_path / "AGENTS.md").read_text("utf-8") == "- rule one\n"


def test_discover_names_each_link_out_in_one_line_and_adopts_the_rest(tmp_path: Path, cli) -> None:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "notes.md").write_text("- aws_secret_access_key = x\n", "utf-8")
    assert cli("--dir", str(root), "init").returncode == 0
    (root / "CLAUDE.md").symlink_to(outside / "notes.md")
    (root / "AGENTS.md").write_text("- uses pnpm\n", "utf-8")
    listed = cli("--dir", str(root), "adopt", "--discover")
    (line,) = [x for x in listed.stdout.splitlines() if "CLAUDE.md" in x]
    assert line.startswith("refused: ") and "outside the working directory" in line
    adopted = cli("--dir", str(root), "adopt", "--discover", "--all")
    assert adopted.returncode == 0
    assert "AGENTS.md" in adopted.stdout and "CLAUDE.md" not in adopted.stdout
    (refusal,) = adopted.stderr.splitlines()
    assert "CLAUDE.md" in refusal and "not adopted" in refusal
    problems = cli("--dir", str(root), "problems")
    assert "CLAUDE.md: is a symbolic link to" in problems.stdout
