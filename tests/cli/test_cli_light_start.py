"""`memdesk context` (every agent's SessionStart hook) loads only what it runs: not the
desk, not search, not the extraction rules or the guard. Other verbs still parse."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.store import Store

HEAVY = (
    "textual",
    "rich",
    "tantivy",
    "fastembed",
    "onnxruntime",
    "memdesk.tui",
    "memdesk.core.search",
    "memdesk.core.extract",
    "memdesk.core.guard",
)

PROBE = """
import contextlib, io, json, sys
from memdesk.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def loaded_by(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_context_imports_nothing_heavy(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    added = store.add(Entry(summary="the build uses cargo nextest", status="confirmed"))
    result = loaded_by("--dir", str(tmp_path), "context", "--budget", "300")
    assert result["code"] == 0
    assert "cargo nextest" in str(result["out"])
    modules = result["modules"]
    assert isinstance(modules, list)
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
    assert added.id


def test_a_verb_in_a_module_of_another_name_still_runs(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    store.add(Entry(summary="listed from cmd_store", status="confirmed"))
    result = loaded_by("--dir", str(tmp_path), "list")
    assert result["code"] == 0
    assert "listed from cmd_store" in str(result["out"])


def test_help_still_lists_every_verb() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memdesk.cli", "--help"], capture_output=True, text=True
    )
    for verb in ("context", "list", "extract", "search", "doctor"):
        assert verb in done.stdout
