"""Helpers for the TUI tests: the app as users get it, and polling with a timeout."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable

from memdesk.core.store import Store
from memdesk.tui.app import MemdeskApp, build_app
from memdesk.tui.services import Services

# The demo's dates are fixed; so is "today" in tests (due-to-expire counts depend on it).
TODAY = dt.date(2026, 11, 1)
SIZE = (120, 36)


def make_app(store: Store, *, watch: bool = False) -> MemdeskApp:
    """The app as users get it, without the model (tests never load it)."""
    services = Services(store, load_model=False, today=lambda: TODAY)
    app = build_app(store, watch=watch, services=services)
    app.display_dir = "~/demo"  # the header shows the directory: keep snapshots stable
    return app


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    """Poll until `predicate()` holds (UI work and file watching are asynchronous), and
    the screen shown then has mounted its widgets: a pushed screen is `app.screen` before
    its compose has run, which a loaded machine makes visible."""
    deadline = time.monotonic() + timeout
    while not (predicate() and pilot.app.screen.is_mounted):
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the UI")
        await pilot.pause(0.02)
    await asyncio.sleep(0)


async def ready(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait for the first load (entries are read off the UI thread) and its redraw."""
    app = pilot.app
    await wait_for(pilot, lambda: app.services.loaded and app.data_version > 0)
    await pilot.pause()


def then_press(*keys: str):  # type: ignore[no-untyped-def]
    """A snapshot `run_before`: wait for the first load, press keys, let work settle."""

    async def run(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press(*keys)
        # A key that pushes a screen (the edit form) shows it before its compose has
        # run on a loaded machine: wait until what is shown is mounted.
        await wait_for(pilot, lambda: True)
        await settle(pilot)

    return run


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """No worker running, no message pending: the screen shows the final state."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
