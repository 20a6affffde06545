"""Pilot tests of the memory files screen: managed files, the load-limit warning, the
queue's flag for an approval that pushes facts past the cut, ordering from the screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from memdesk.core.store import Store
from memdesk.tui.app import build_app
from memdesk.tui.screens.memory_files import MemoryFilesScreen
from memdesk.tui.services import Services
from screen_app import ScreenApp
from textual.widgets import DataTable, Static

pytestmark = pytest.mark.anyio

BOILERPLATE = "*Persistent knowledge. First 200 lines loaded automatically.*\n"


def auto_memory(root: Path, sections: int = 12, items: int = 16) -> Path:
    lines = ["# Agent Memory", ""]
    for s in range(sections):
        lines.append(f"## Topic {s}")
        lines.extend(f"- fact {i} of topic {s}" for i in range(items))
        lines.append("")
    path = root / "MEMORY.md"
    path.write_text(BOILERPLATE + "\n".join(lines), encoding="utf-8")
    return path


async def _settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_lists_managed_files_with_the_load_limit_warning(tmp_path: Path) -> None:
    path = auto_memory(tmp_path)
    (tmp_path / "CLAUDE.md").write_text("## Rules\n- never push to main\n", "utf-8")
    store = Store.init(tmp_path)  # adopts MEMORY.md
    from memdesk.core.memfiles.adopt import adopt

    adopt(store, tmp_path / "CLAUDE.md")
    pinned = next(e for e in store.entries() if e.summary == "fact 2 of topic 11")
    store.edit(pinned.id, {"tags": ["pin"]})
    app = ScreenApp(store, lambda s: MemoryFilesScreen(s))
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, MemoryFilesScreen)
        assert [s.shown_path for s in screen.statuses] == ["CLAUDE.md", "MEMORY.md"]
        assert screen.query_one(DataTable).row_count == 2
        title = str(screen.query_one("#files-title", Static).render())
        assert "2 managed" in title and "1 past a load limit" in title
        await pilot.press("down")
        await _settle(pilot)
        detail = str(screen.query_one("#files-detail-text", Static).render())
        assert "200 lines / 25 KB" in detail and "past the cut" in detail
        assert "fact 2 of topic 11" in detail
        before = path.read_text("utf-8")
        await pilot.press("O")
        await _settle(pilot)
        after = path.read_text("utf-8")
        assert after != before and after.index("## Topic 11") < after.index("## Topic 0")
        detail = str(screen.query_one("#files-detail-text", Static).render())
        assert "fact 2 of topic 11" not in detail  # above the cut now


async def test_f_opens_the_screen_and_the_queue_flags_a_push_past_the_cut(
    tmp_path: Path,
) -> None:
    path = auto_memory(tmp_path, sections=11, items=16)  # 197 lines: all loaded
    store = Store.init(tmp_path)
    text = path.read_text("utf-8")
    extra = "".join(f"- new fact {i}\n" for i in range(5))
    path.write_text(text.replace("## Topic 0\n", "## Topic 0\n" + extra), "utf-8")
    added = store.ingest_memory_md()
    assert len(added) == 5
    store.approve([e.id for e in added[:3]])  # 200 lines: the next one pushes
    services = Services(store, load_model=False)
    app = build_app(store, watch=False, services=services)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        queue = app.screen
        flags = queue.flags  # type: ignore[attr-defined]
        assert all(
            any(f.startswith("load cut: pushes 1 entry") for f in flags[e.id]) for e in added[3:]
        )
        await pilot.press("f")
        await _settle(pilot)
        assert isinstance(app.screen, MemoryFilesScreen)
        (status,) = app.screen.statuses
        assert status.candidates == [e.id for e in added[3:]]
        assert "would push entries past it" in status.warning


async def test_the_context_preview_says_what_its_agent_does_not_load(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from memdesk.tui.screens.context_preview import ContextPreviewScreen

    auto_memory(tmp_path)
    store = Store.init(tmp_path)
    app = ScreenApp(store, lambda s: ContextPreviewScreen(s, SimpleNamespace(search=None)))
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        title = str(app.screen.query_one("#excluded-title", Static).render())
        assert "load limit · MEMORY.md:" in title
        assert "past the 200 lines / 25 KB Claude Code (auto memory) loads" in title
