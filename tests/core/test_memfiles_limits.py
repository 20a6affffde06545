"""Load limits, ordering a file above its cut, and finding the agents' memory files."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.memfiles.adopt import adopt
from memdesk.core.memfiles.discover import claude_project_dir, discover
from memdesk.core.memfiles.formats import FORMATS, detect_format
from memdesk.core.memfiles.status import approval_warnings, file_statuses
from memdesk.core.memfiles.sync import order_files
from memdesk.core.store import Store
from memdesk.core.trust import allow, requests
from memfiles_fixtures import long_auto_memory

BOILERPLATE = "*Persistent knowledge. First 200 lines loaded automatically.*\n"


def auto_memory(tmp_path: Path, text: str) -> tuple[Store, Path]:
    """An auto-memory MEMORY.md (its boilerplate line says so), adopted by init."""
    path = tmp_path / "MEMORY.md"
    path.write_text(BOILERPLATE + text, encoding="utf-8")
    store = Store.init(tmp_path)  # init adopts it
    return store, path


def test_every_format_knows_its_load_limit() -> None:
    auto = FORMATS["claude-auto-memory"]
    assert (auto.load_lines, auto.load_bytes) == (200, 25_000)
    assert auto.limit_text() == "200 lines / 25 KB"
    assert FORMATS["claude-md"].limit_text() == "whole file"
    text = "# Sound Memory\n\n*First 200 lines loaded automatically.*\n"
    assert detect_format(Path("/p/MEMORY.md"), text).name == "claude-auto-memory"
    assert detect_format(Path("/p/memory/2026-01-02.md")).name == "openclaw-daily"
    assert detect_format(Path("/p/AGENTS.md")).name == "agents-md"


def test_files_say_what_is_past_the_cut(tmp_path: Path) -> None:
    store, path = auto_memory(tmp_path, long_auto_memory())  # 12 sections of 16 facts
    lines = path.read_text("utf-8").splitlines()
    (status,) = file_statuses(store)
    assert status.format == "claude-auto-memory"
    assert status.lines == len(lines) > 200 and status.cut.over
    assert status.cut.loaded_lines == 200
    assert len(status.cut.past) == sum(1 for line in lines[200:] if line.startswith("- "))
    assert "past the 200 lines / 25 KB Claude Code (auto memory) loads" in status.warning
    assert status.to_json()["over_limit"] is True


def test_an_approval_that_would_push_facts_past_the_cut_is_flagged(tmp_path: Path) -> None:
    lines = ["# Agent Memory", "", "## Early"] + [f"- early fact {i}" for i in range(190)]
    lines += ["", "## Late", "- the last loaded fact", "- another loaded fact", ""]
    store, path = auto_memory(tmp_path, "\n".join(lines))
    (status,) = file_statuses(store)
    assert not status.cut.over and status.lines == 198
    text = path.read_text("utf-8").replace(
        "- early fact 0\n", "- early fact 0\n" + "".join(f"- new {i}\n" for i in range(4))
    )
    path.write_text(text, encoding="utf-8")
    added = store.ingest_memory_md()
    assert len(added) == 4
    warnings = approval_warnings(store)
    # Each new line alone keeps all within 200 lines (198 + 1); nothing flagged yet.
    assert warnings == {}
    store.approve([added[0].id, added[1].id])  # 200 lines now
    warnings = approval_warnings(store)
    assert set(warnings) == {added[2].id, added[3].id}
    assert "pushes 1 entry past the 200 lines" in warnings[added[2].id]


def test_render_order_moves_what_matters_above_the_cut(tmp_path: Path) -> None:
    store, path = auto_memory(tmp_path, long_auto_memory())
    late = next(e for e in store.entries() if e.summary == "fact 3 of topic 11 about the build")
    store.edit(late.id, {"tags": ["pin"]})
    before = path.read_text("utf-8")
    (result,) = order_files(store)
    assert result.written
    after = path.read_text("utf-8")
    assert sorted(filter(None, after.splitlines())) == sorted(filter(None, before.splitlines()))
    assert after.index("## Topic 11") < after.index("## Topic 0")
    assert after.startswith(BOILERPLATE + "# Agent Memory\n\n## Topic 11\n- fact 0 of topic 11")
    (status,) = file_statuses(store)
    assert late.id not in status.cut.past


def test_discover_lists_the_files_of_this_directory(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    codex = tmp_path / "codex"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    project = tmp_path / "project"
    (project / "memory").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("- a rule\n", "utf-8")
    (project / "memory" / "2026-03-01.md").write_text("- a note\n", "utf-8")
    auto = claude_project_dir(project, home / ".claude") / "memory"
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- auto fact\n", "utf-8")
    (auto / "testing.md").write_text("---\ntype: feedback\n---\n- real db\n", "utf-8")
    (codex / "memories").mkdir(parents=True)
    (codex / "memories" / "notes.md").write_text("- codex fact\n", "utf-8")
    store = Store.init(project)
    adopt(store, project / "CLAUDE.md")
    found = [(f.path.name, f.format, f.managed) for f in discover(project, store.meta_dir, {})]
    assert found == [
        ("CLAUDE.md", "claude-md", True),
        ("2026-03-01.md", "openclaw-daily", False),
        ("MEMORY.md", "claude-auto-memory", False),
        ("testing.md", "claude-memory-topic", False),
        ("notes.md", "codex-memories", False),
    ]
    moved = {"memfiles": {"claude_dir": str(tmp_path / "nowhere")}}
    # A folder outside that the settings name is used once allowed here (trust.py).
    assert "MEMORY.md" in [f.path.name for f in discover(project, store.meta_dir, moved)]
    allow(project, requests(moved, project))
    assert "MEMORY.md" not in [f.path.name for f in discover(project, store.meta_dir, moved)]
