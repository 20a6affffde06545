"""The CLI contract for store verbs, run as real processes on a temp directory."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path


def entry_toml(root: Path, entry_id: str) -> dict:
    return tomllib.loads((root / ".memdesk" / "entries" / f"{entry_id}.toml").read_text())


def test_full_workflow_visible_in_files(tmp_path: Path, cli) -> None:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    add = cli("--dir", str(tmp_path), "add", "Use pnpm, not npm", "--kind", "decision")
    assert add.returncode == 0, add.stderr
    old = add.stdout.strip()
    new = cli(
        "--dir", str(tmp_path), "add", "切换到 pnpm 9，锁文件是 pnpm-lock.yaml"
    ).stdout.strip()
    assert cli("--dir", str(tmp_path), "approve", old).returncode == 0
    assert entry_toml(tmp_path, old)["status"] == "confirmed"
    assert "- Use pnpm, not npm" in (tmp_path / "MEMORY.md").read_text()

    assert cli("--dir", str(tmp_path), "supersede", old, new).returncode == 0
    assert entry_toml(tmp_path, old)["status"] == "superseded"
    assert entry_toml(tmp_path, new)["supersedes"] == [old]
    memory = (tmp_path / "MEMORY.md").read_text()
    assert "切换到 pnpm 9" in memory and "Use pnpm, not npm" not in memory

    assert cli("--dir", str(tmp_path), "expire", new).returncode == 0
    assert entry_toml(tmp_path, new)["status"] == "expired"
    undo = cli("--dir", str(tmp_path), "undo")
    assert undo.returncode == 0 and "expire" in undo.stdout
    assert entry_toml(tmp_path, new)["status"] == "confirmed"

    ops = [
        json.loads(line)["op"]
        for line in (tmp_path / ".memdesk" / "journal.jsonl").read_text().splitlines()
    ]
    assert ops == ["add", "add", "approve", "supersede", "supersede", "expire", "undo"]


def test_list_json_has_every_field_and_filters(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    cli("--dir", str(tmp_path), "add", "profile fact", "--kind", "profile", "--scope", "user")
    cli("--dir", str(tmp_path), "add", "project fact", "--status", "confirmed")
    out = cli("--dir", str(tmp_path), "list", "--json", "--kind", "profile")
    data = json.loads(out.stdout)
    assert [e["summary"] for e in data] == ["profile fact"]
    assert {
        "id",
        "version",
        "kind",
        "scope",
        "status",
        "confidence",
        "summary",
        "facts",
        "source",
        "valid_until",
        "related",
        "supersedes",
        "superseded_by",
        "tags",
        "created",
        "updated",
        "last_access",
        "flags",
    } <= set(data[0])
    out = cli("--dir", str(tmp_path), "list", "--json", "--status", "confirmed")
    assert [e["summary"] for e in json.loads(out.stdout)] == ["project fact"]


def test_show_json_includes_history(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    entry_id = cli("--dir", str(tmp_path), "add", "a fact").stdout.strip()
    cli("--dir", str(tmp_path), "edit", entry_id, "--summary", "a better fact", "--tag", "x")
    data = json.loads(cli("--dir", str(tmp_path), "show", entry_id, "--json").stdout)
    assert data["summary"] == "a better fact" and data["tags"] == ["x"]
    assert [h["op"] for h in data["history"]] == ["add", "edit"]
    assert data["history"][1]["changes"]["summary"] == ["a fact", "a better fact"]


def test_ingest_and_render(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    (tmp_path / "MEMORY.md").write_text(
        "# Memory\n- remember: 周五不发版\n- remember: 周五不发版\n"
    )
    out = cli("--dir", str(tmp_path), "ingest", "--json")
    assert [e["summary"] for e in json.loads(out.stdout)] == ["remember: 周五不发版"]
    assert json.loads(out.stdout)[0]["source"]["origin"] == "MEMORY.md"
    assert json.loads(cli("--dir", str(tmp_path), "ingest", "--json").stdout) == []
    assert cli("--dir", str(tmp_path), "render").returncode == 0


def test_import_reports_invalid_items_and_imports_the_rest(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    items = [
        {"summary": "good one", "kind": "project", "scope": "project"},
        {"summary": "bad kind", "kind": "opinion"},
        {"summary": "bad date", "valid_until": "soon"},
        {"summary": "好的第二条", "kind": "preference", "scope": "user", "status": "confirmed"},
    ]
    src = tmp_path / "in.json"
    src.write_text(json.dumps(items, ensure_ascii=False))
    out = cli("--dir", str(tmp_path), "import", str(src))
    assert out.returncode == 0
    assert "imported 2 entries, 2 invalid" in out.stdout
    assert "item 1" in out.stderr and "unknown kind 'opinion'" in out.stderr
    assert "item 2" in out.stderr and "valid_until" in out.stderr
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text('{"summary": "line one"}\n{not json}\n')
    out = cli("--dir", str(tmp_path), "import", str(jsonl), "--json")
    assert json.loads(out.stdout)["errors"][0].endswith(
        ":2: malformed JSON: Expecting property name enclosed in double quotes"
    )


def test_export_formats(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    cli("--dir", str(tmp_path), "add", "x fact", "--status", "confirmed")
    assert json.loads(cli("--dir", str(tmp_path), "export").stdout)[0]["summary"] == "x fact"
    lines = cli("--dir", str(tmp_path), "export", "--format", "jsonl").stdout.splitlines()
    assert json.loads(lines[0])["summary"] == "x fact"
    assert "- x fact" in cli("--dir", str(tmp_path), "export", "--format", "md").stdout


def test_exit_codes(tmp_path: Path, cli) -> None:
    missing = cli("--dir", str(tmp_path), "list")
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1 and "memdesk init" in missing.stderr
    cli("--dir", str(tmp_path), "init")
    assert cli("--dir", str(tmp_path), "approve", "nope").returncode == 1
    assert cli("--dir", str(tmp_path), "add").returncode == 2  # usage
    assert cli("--dir", str(tmp_path), "list", "--status", "maybe").returncode == 2
    assert cli("no-such-verb-or-dir").returncode == 2
    refused = cli("--dir", str(tmp_path), "add", "<agent_memory>- x</agent_memory>")
    assert refused.returncode == 1 and "do-not-write guard" in refused.stderr


def test_concurrent_edit_conflict_is_saved_not_overwritten(tmp_path: Path, cli) -> None:
    cli("--dir", str(tmp_path), "init")
    entry_id = cli("--dir", str(tmp_path), "add", "use pnpm").stdout.strip()
    cli("--dir", str(tmp_path), "edit", entry_id, "--summary", "use pnpm 8")
    out = cli(
        "--dir", str(tmp_path), "edit", entry_id, "--summary", "use pnpm 9", "--base-version", "1"
    )
    assert out.returncode == 1 and "conflicting field(s): summary" in out.stderr
    assert entry_toml(tmp_path, entry_id)["summary"] == "use pnpm 8"
    problems = json.loads(cli("--dir", str(tmp_path), "problems", "--json").stdout)
    assert problems["conflicts"][0]["entry_id"] == entry_id


def test_version_prints_the_installed_version(cli) -> None:
    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("memdesk ") and done.stdout.split()[1][0].isdigit()
