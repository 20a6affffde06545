"""JSON nested 100,000 deep, or an integer of 5,000 digits, in any file memdesk reads or
on stdin: one line naming where, never "unexpected RecursionError", and a damaged
pending or derived file never stops the store opening (round 8, C1 and C2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import run_cli

DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000 + "\n"
DEEP_ARRAY = "[" * 200_000 + "]" * 200_000 + "\n"
HUGE_INT = '[{"summary": "x", "version": 1' + "0" * 5000 + "}]\n"


def _clean(done) -> None:  # type: ignore[no-untyped-def]
    assert "unexpected" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2, done.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    assert run_cli("--dir", str(tmp_path), "init").returncode == 0
    return tmp_path


@pytest.mark.parametrize("text", [DEEP_OBJECT, DEEP_ARRAY, HUGE_INT], ids=["obj", "arr", "int"])
def test_import_names_the_file(project: Path, text: str) -> None:
    path = project / "deep.json"
    path.write_text(text)
    done = run_cli("--dir", str(project), "import", str(path))
    _clean(done)
    assert "deep.json" in done.stdout + done.stderr


@pytest.mark.parametrize("text", [DEEP_OBJECT, HUGE_INT], ids=["deep", "int"])
def test_flush_says_stdin_is_not_json(project: Path, text: str) -> None:
    done = run_cli("--dir", str(project), "flush", stdin=text)
    _clean(done)
    assert done.returncode != 0
    assert "stdin" in done.stderr


def test_one_poisoned_inbox_drop_is_set_aside_and_the_rest_read(project: Path) -> None:
    inbox = project / ".memdesk" / "inbox"
    (inbox / "a-deep.jsonl").write_text(DEEP_OBJECT)
    (inbox / "b-good.jsonl").write_text(
        '{"role":"user","content":"Always remember: lint before push."}\n'
    )
    done = run_cli("--dir", str(project), "extract", "--sources")
    _clean(done)
    assert "a-deep.jsonl" in done.stderr
    assert "lint before push" in run_cli("--dir", str(project), "list").stdout


@pytest.mark.parametrize(
    "name",
    ["pending-batch.json", "memory_md.json", "conflicts/m-1.json", "consolidation.json"],
)
def test_a_deep_store_file_does_not_stop_the_store(project: Path, name: str) -> None:
    assert run_cli("--dir", str(project), "add", "Run tests with pytest -q").returncode == 0
    path = project / ".memdesk" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(DEEP_OBJECT)
    for verb in (["list"], ["problems"], ["doctor"]):
        done = run_cli("--dir", str(project), *verb)
        _clean(done)
        assert done.returncode in (0, 1), done.stderr
    assert "pytest -q" in run_cli("--dir", str(project), "list").stdout
    if name == "consolidation.json":
        _clean(run_cli("--dir", str(project), "consolidate", "--dry-run"))


def test_an_inbox_name_that_is_not_utf8_is_set_aside_and_the_rest_read(project: Path) -> None:
    # Round 8, R2: one such name made every `extract --sources` fail, naming no file.
    import os

    inbox = os.fsencode(project / ".memdesk" / "inbox")
    message = b'{"role":"user","content":"Always remember: lint before push."}\n'
    with open(inbox + b"/bad\xff\xfe.jsonl", "wb") as handle:
        handle.write(message)
    (project / ".memdesk" / "inbox" / "good.jsonl").write_text(
        '{"role":"user","content":"Always remember: never deploy on a Friday."}\n'
    )
    done = run_cli("--dir", str(project), "extract", "--sources")
    _clean(done)
    assert done.returncode == 0
    assert "bad\\xff\\xfe.jsonl'" in done.stderr and "not UTF-8" in done.stderr
    listed = run_cli("--dir", str(project), "list").stdout
    assert "Friday" in listed and "lint before push" not in listed


def test_toml_nested_too_deep_is_one_line_naming_the_file(project: Path) -> None:
    added = run_cli("--dir", str(project), "add", "Run tests with pytest -q")
    deep = "deep = " + "[" * 5000 + "]" * 5000 + "\n"
    entry = next((project / ".memdesk" / "entries").rglob("*.toml"))
    entry.write_text(entry.read_text() + deep)
    done = run_cli("--dir", str(project), "problems")
    _clean(done)
    assert f"{entry.name}: malformed TOML: nested too deeply" in done.stdout + done.stderr
    settings = project / ".memdesk" / "settings.toml"
    settings.write_text(settings.read_text() + deep)
    done = run_cli("--dir", str(project), "context")
    _clean(done)
    assert "settings.toml: not valid TOML: nested too deeply to read" in done.stderr
    assert added.stdout.strip()


@pytest.mark.parametrize("verb", ["files", "ingest", "render", "doctor"])
def test_a_deep_manifest_is_not_a_crash(project: Path, verb: str) -> None:
    # A branch can carry `.memdesk/files/*.json`: one nested 100k deep is skipped as a
    # damaged manifest, never "unexpected RecursionError".
    files = project / ".memdesk" / "files"
    files.mkdir(exist_ok=True)
    (files / "CLAUDE.md-0000000000.json").write_text(DEEP_OBJECT)
    done = run_cli("--dir", str(project), verb)
    _clean(done)
