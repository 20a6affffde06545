"""The consolidation screen on the demo, driven with Textual's Pilot."""

from __future__ import annotations

import asyncio
import time

import pytest
from memdesk.core.store import Store
from memdesk.tui.screens.consolidation import ConsolidationScreen
from textual.app import App
from textual.widgets import SelectionList, Static


class Host(App):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(ConsolidationScreen(self.store))


async def wait_until(pilot, condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the screen"
        await pilot.pause()
        await asyncio.sleep(0.02)


def test_accept_some_apply_then_undo(demo_dir):
    asyncio.run(_accept_some_apply_then_undo(demo_dir))


async def _accept_some_apply_then_undo(demo_dir):
    store = Store.open(demo_dir)
    app = Host(store)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConsolidationScreen)
        await wait_until(pilot, lambda: screen.plan is not None and not screen.busy)
        plan = screen.plan
        listing = screen.query_one("#consolidation-list", SelectionList)
        assert listing.option_count == len(plan.proposals) > 3
        summary = str(screen.query_one("#consolidation-summary", Static).render())
        assert "heuristic: no extractor configured" in summary

        # tick the safe expiries and the supersede; leave the rest unticked
        await pilot.press("e")
        supersede = next(p for p in plan.proposals if p.action == "supersede")
        listing.select(supersede.id)
        ticked = set(screen.ticked)
        assert ticked == {p.id for p in plan.safe} | {supersede.id}

        await pilot.press("a")
        await wait_until(pilot, lambda: screen.last_result is not None and not screen.busy)
        store = Store.open(demo_dir)
        assert store.get("lan-010").status == "superseded"
        assert store.get("cand-013").status == "expired"
        assert store.get("cand-003").status == "candidate"  # the merge was not ticked
        assert store.find("usr-008") is not None  # nor the deletes
        assert {p.action for p in screen.plan.proposals} >= {"merge", "delete"}

        await pilot.press("u")
        await wait_until(pilot, lambda: screen.last_result is None and not screen.busy)
        store = Store.open(demo_dir)
        assert store.get("lan-010").status == "confirmed"
        assert store.get("cand-013").status == "candidate"


def test_highlight_shows_reason_and_evidence(demo_dir):
    asyncio.run(_highlight_shows_reason_and_evidence(demo_dir))


async def _highlight_shows_reason_and_evidence(demo_dir):
    app = Host(Store.open(demo_dir))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await wait_until(pilot, lambda: screen.plan is not None and not screen.busy)
        listing = screen.query_one("#consolidation-list", SelectionList)
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert listing.highlighted is not None and listing.highlighted >= 2
        shown = str(screen.query_one("#consolidation-evidence", Static).render())
        highlighted = screen.plan.proposals[listing.highlighted]
        assert highlighted.reason[:40] in shown.replace("\n", " ")
        await pilot.press("a")  # nothing ticked: a warning, nothing applied
        await pilot.pause()
        assert screen.last_result is None


def test_inside_the_desk_app_with_its_services(demo_dir):
    pytest.importorskip("memdesk.tui.app")  # the desk shell (its own branch) may not be merged
    asyncio.run(_inside_the_desk(demo_dir))


async def _inside_the_desk(demo_dir):
    from tui_helpers import SIZE, make_app, ready

    app = make_app(Store.open(demo_dir))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = ConsolidationScreen(app.store, app.services)
        app.push_screen(screen)
        await wait_until(pilot, lambda: screen.plan is not None and not screen.busy)
        supersede = next(p for p in screen.plan.proposals if p.action == "supersede")
        screen.query_one("#consolidation-list", SelectionList).select(supersede.id)
        await pilot.press("a")
        await wait_until(pilot, lambda: screen.last_result is not None and not screen.busy)
        # the desk heard the commit: its shared entry cache shows the new state
        await wait_until(
            pilot,
            lambda: {e.id: e.status for e in app.services.entries()}.get("lan-010") == "superseded",
        )
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ConsolidationScreen)
