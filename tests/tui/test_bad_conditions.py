"""The desk under bad conditions: a broken settings file is one line, not a traceback
dialog, and an action it stops says it was not done (and the file says so too)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from memdesk.core.store import Store
from memdesk.tui.screens.dialogs import ErrorDialog
from tui_helpers import SIZE, make_app, ready, settle, wait_for

pytestmark = pytest.mark.anyio


def status_on_disk(root: Path, entry_id: str) -> str:
    path = root / ".memdesk" / "entries" / f"{entry_id}.toml"
    return tomllib.loads(path.read_text("utf-8"))["status"]


async def test_broken_settings_no_dialog_and_approve_not_done(store: Store) -> None:
    root = store.root
    (root / ".memdesk" / "settings.toml").write_text("[context\nbudget = 3\n")
    app = make_app(store)
    messages: list[tuple[str, str]] = []
    real_notify = app.notify

    def notify(message: str, *, title: str = "", **kwargs) -> None:  # type: ignore[no-untyped-def]
        messages.append((title, message))
        real_notify(message, title=title, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await settle(pilot)
        first = app.screen.current_entry().id  # type: ignore[attr-defined]
        await pilot.press("a")
        await wait_for(pilot, lambda: any("not done" in t for t, _ in messages))
        await settle(pilot)
        assert not isinstance(app.screen, ErrorDialog)
    assert status_on_disk(root, first) == "candidate"
    title, message = next((t, m) for t, m in messages if "not done" in t)
    assert title == "approve: not done"
    assert "settings.toml:1: not valid TOML" in message
    assert "\n" not in message


async def test_desk_reads_a_read_only_store(demo_dir: Path) -> None:
    import errno

    from fs_faults import failing_writes

    with failing_writes(demo_dir, errno.EROFS):
        store = Store.open(demo_dir)
        app = make_app(store)
        messages: list[tuple[str, str]] = []
        real_notify = app.notify

        def notify(message: str, *, title: str = "", **kwargs) -> None:  # type: ignore[no-untyped-def]
            messages.append((title, message))
            real_notify(message, title=title, **kwargs)

        app.notify = notify  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await settle(pilot)
            queue = app.screen
            assert len(queue.rows) > 0  # type: ignore[attr-defined]
            first = queue.current_entry().id  # type: ignore[attr-defined]
            await pilot.press("a")
            await wait_for(pilot, lambda: any("not done" in t for t, _ in messages))
            await settle(pilot)
            assert not isinstance(app.screen, ErrorDialog)
    assert status_on_disk(demo_dir, first) == "candidate"
    _, message = next((t, m) for t, m in messages if "not done" in t)
    assert "cannot write" in message and "\n" not in message


async def test_edit_dialog_names_the_field_of_a_bad_date(store: Store) -> None:
    from memdesk.tui.screens.dialogs import EditScreen
    from textual.widgets import Input, Static

    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen))
        app.screen.query_one("#edit-valid-until", Input).value = "next friday"
        app.screen.action_save()  # type: ignore[attr-defined]
        await pilot.pause()
        shown = str(app.screen.query_one("#edit-error", Static).render())
        assert isinstance(app.screen, EditScreen)  # stays open to fix it
        assert "valid_until" in shown and "YYYY-MM-DD" in shown


async def test_an_entry_with_a_5000_digit_number_is_a_problem_not_a_crash(store: Store) -> None:
    from memdesk.core.entry import Entry
    from memdesk.tui.screens.conflicts import ConflictsScreen

    good = store.add(Entry(summary="Always run make check before pushing"))
    bad = store.add(Entry(summary="Deploys go through make release"))
    path = store.entries_dir / f"{bad.id}.toml"
    path.write_text(path.read_text("utf-8").replace("version = 1\n", f"version = {'9' * 5000}\n"))
    app = make_app(Store.open(store.root))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await settle(pilot)
        shown = [e.id for e in app.screen.rows]  # type: ignore[attr-defined]
        assert good.id in shown and bad.id not in shown
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen))
        await settle(pilot)
        assert not isinstance(app.screen, ErrorDialog)
        assert app.is_running
