"""The app shell: browser search, help, command palette, lazy screens, remapped keys."""

from __future__ import annotations

import tomllib

import pytest
from memdesk.core.store import Store
from memdesk.tui.screens.browser import BrowserScreen
from memdesk.tui.screens.help import HelpScreen
from memdesk.tui.screens.queue import QueueScreen
from textual.command import CommandList, CommandPalette
from textual.widgets import Input, Select
from tui_helpers import SIZE, make_app, ready, wait_for

pytestmark = pytest.mark.anyio


async def test_browser_search_as_you_type_chinese_and_english(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))
        browser = app.screen
        await wait_for(pilot, lambda: len(browser.rows) == len(store.entries()))
        await pilot.press("slash", *"端口")
        await wait_for(pilot, lambda: browser.search_ids is not None and browser._query == "端口")
        assert {e.id for e in browser.rows} >= {"lan-028"}
        assert all("端口" in e.search_text() for e in browser.rows)
        browser.query_one("#browser-search", Input).value = "pnpm"
        await wait_for(pilot, lambda: browser._query == "pnpm" and browser.search_ids is not None)
        await wait_for(pilot, lambda: "lan-010" in {e.id for e in browser.rows})


async def test_browser_filters_and_history(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("a")  # approve cand-001 in the queue: one history record
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))
        browser = app.screen
        await wait_for(pilot, lambda: bool(browser.rows))
        browser.query_one("#filter-status", Select).value = "superseded"
        await wait_for(pilot, lambda: all(e.status == "superseded" for e in browser.rows))
        assert {e.id for e in browser.rows} == {"lan-007", "usr-009", "sup-001"}
        detail = str(browser.query_one("#browser-detail-text").render())
        assert "superseded by" in detail
        browser.query_one("#filter-status", Select).value = "confirmed"
        await wait_for(pilot, lambda: "cand-001" in {e.id for e in browser.rows})
        table = browser.query_one("#browser-table")
        table.move_cursor(row=[e.id for e in browser.rows].index("cand-001"))
        await pilot.pause()
        detail = str(browser.query_one("#browser-detail-text").render())
        assert "approve by tui" in detail


async def test_help_lists_bindings_with_ids(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        ids = {row[2] for row in app.screen.rows}
        assert {"approve", "reject", "edit", "supersede", "merge", "expire", "undo"} <= ids
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, QueueScreen))


async def test_command_palette_runs_an_action(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.pause()
        from textual.command import SearchIcon

        assert app.screen.query_one(SearchIcon).icon == ">"  # not 🔎, a box in many fonts
        await pilot.press(*"Approve")
        hits = app.screen.query_one(CommandList)
        await wait_for(
            pilot,
            lambda: hits.option_count > 0 and "Approve" in str(hits.get_option_at_index(0).prompt),
        )
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: store.get("cand-001").status == "confirmed")


async def test_screens_from_other_modules_load_lazily_or_say_not_available(store: Store) -> None:
    import importlib.util

    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for key, mode, module in (
            ("c", "conflicts", "memdesk.tui.screens.conflicts"),
            ("p", "context", "memdesk.tui.screens.context_preview"),
            ("s", "stats", "memdesk.tui.screens.stats"),
        ):
            await pilot.press("v")
            await pilot.press(key)
            await pilot.pause()
            if importlib.util.find_spec(module) is None:
                assert any(
                    f"{mode} screen: not available yet" in str(n.message)
                    for n in app._notifications
                )
                assert isinstance(app.screen, QueueScreen)
            else:
                assert app.current_mode == mode


async def test_keys_are_remapped_from_settings(store: Store) -> None:
    settings = store.settings_path
    settings.write_text(
        settings.read_text("utf-8") + '\n[keys]\napprove = "y"\nbogus = "z"\n', "utf-8"
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert any("keys.bogus: unknown binding id" in str(n.message) for n in app._notifications)
        await pilot.press("a")  # no longer approve
        await pilot.pause()
        assert store.get("cand-001").status == "candidate"
        await pilot.press("y")
        await wait_for(pilot, lambda: store.get("cand-001").status == "confirmed")
    path = store.entries_dir / "cand-001.toml"
    assert tomllib.loads(path.read_text("utf-8"))["status"] == "confirmed"


async def test_quit_exits_cleanly(store: Store) -> None:
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    assert app.watcher is None


async def test_desk_keys_are_off_while_a_dialog_is_open(store: Store) -> None:
    from memdesk.tui.screens.dialogs import PickEntryScreen

    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(app.screen, PickEntryScreen))
        await pilot.press("q", "b")  # typed while the option list has focus
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, PickEntryScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, QueueScreen))


async def test_browser_expires_a_confirmed_entry(store: Store) -> None:
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)))
        browser = app.screen
        table = browser.query_one("#browser-table")
        table.move_cursor(row=[e.id for e in browser.rows].index("lan-013"))
        await pilot.pause()
        await pilot.press("x")
        path = root / ".memdesk" / "entries" / "lan-013.toml"
        await wait_for(pilot, lambda: tomllib.loads(path.read_text("utf-8"))["status"] == "expired")
        await wait_for(pilot, lambda: browser.current_entry().status == "expired")
        assert "Release builds are cut" not in (root / "MEMORY.md").read_text("utf-8")


async def test_consolidation_screen_opens_with_o_and_closes_with_escape(store: Store) -> None:
    from memdesk.tui.screens.consolidation import ConsolidationScreen

    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ConsolidationScreen))
        await wait_for(pilot, lambda: app.screen.plan is not None and not app.screen.busy)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, QueueScreen))
