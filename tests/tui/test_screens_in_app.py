"""The conflict, context and stats screens opened from the app shell (`build_app`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store

app_module = pytest.importorskip("memdesk.tui.app", reason="the app shell is not merged yet")
services_module = pytest.importorskip("memdesk.tui.services")

pytestmark = pytest.mark.anyio


async def _settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_screens_open_from_the_shell_and_resolve(tmp_path: Path) -> None:
    from memdesk.tui.screens.conflicts import ConflictsScreen
    from memdesk.tui.screens.context_preview import ContextPreviewScreen
    from memdesk.tui.screens.stats import StatsScreen

    store = Store.open(copy_demo_project(tmp_path / "demo"))
    services = services_module.Services(store, load_model=False)
    app = app_module.build_app(store, watch=False, services=services)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        await pilot.press("c")
        await _settle(pilot)
        assert isinstance(app.screen, ConflictsScreen)
        ours = app.screen.items[0].conflict.ours["summary"]
        await pilot.press("o")
        await _settle(pilot)
        data = tomllib.loads((store.entries_dir / "lan-033.toml").read_text("utf-8"))
        assert data["summary"] == ours
        assert all(i.kind != "conflict-markers" for i in app.screen.items)
        await pilot.press("escape")
        await _settle(pilot)
        assert not isinstance(app.screen, ConflictsScreen)
        await pilot.press("p")
        await _settle(pilot)
        assert isinstance(app.screen, ContextPreviewScreen)
        assert app.screen.assembly is not None and app.screen.assembly.text
        await pilot.press("plus")
        await _settle(pilot)
        assert app.screen.assembly.budget == 1300
        await pilot.press("escape", "s")
        await _settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        assert app.screen.stats is not None and app.screen.stats.entries == len(store.entries())


async def test_screen_bindings_can_be_remapped_in_settings(tmp_path: Path) -> None:
    from memdesk.tui.screens.context_preview import ContextPreviewScreen

    root = copy_demo_project(tmp_path / "demo")
    settings = root / ".memdesk" / "settings.toml"
    settings.write_text(
        settings.read_text("utf-8") + '\n[keys]\n"preview.budget_up" = "k"\n', "utf-8"
    )
    store = Store.open(root)
    services = services_module.Services(store, load_model=False)
    app = app_module.build_app(store, watch=False, services=services)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        assert app.keymap_problems == []
        await pilot.press("p")
        await _settle(pilot)
        assert isinstance(app.screen, ContextPreviewScreen)
        await pilot.press("k")
        await _settle(pilot)
        assert app.screen.assembly.budget == 1300
