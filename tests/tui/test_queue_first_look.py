"""A big store's queue shows its candidates before every entry is read: the desk's
first look builds only them (core/first_look.py); the full read follows in a worker,
and quitting meanwhile does not wait for it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from memdesk.core.storage.entry_snapshot import EntrySnapshot
from memdesk.core.store import Store
from memdesk.tui.app import build_app
from memdesk.tui.services import Services
from tui_helpers import SIZE, TODAY, wait_for

pytestmark = pytest.mark.anyio


@pytest.fixture
def big(demo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The demo store read once, so it has a snapshot (as a big store has)."""
    monkeypatch.setattr(EntrySnapshot, "racy_ns", -(10**12))
    monkeypatch.setattr(EntrySnapshot, "min_entries", 1)
    Store.open(demo_dir).entries()
    return Store.open(demo_dir)


class HeldRead(Services):
    """The full read waits until the test lets it go (or the desk stops it)."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, load_model=False, today=lambda: TODAY)
        self.release = threading.Event()
        self.full_reads = 0
        self.stopped = threading.Event()

    def read_all(self, stop):  # type: ignore[no-untyped-def]
        self.full_reads += 1
        while not self.release.wait(0.01):
            if stop():
                self.stopped.set()
                return False
        return super().read_all(stop)


async def test_the_queue_shows_before_the_full_read(big: Store) -> None:
    everything = big.entries()
    wanted = [e.id for e in everything if e.status == "candidate"]
    big = Store.open(big.root)  # nothing read yet
    services = HeldRead(big)
    app = build_app(big, watch=False, services=services)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)))
        assert [e.id for e in app.screen.rows] == wanted
        assert app.counts["entries"] == len(everything)
        assert app.counts["candidates"] == len(wanted)
        assert not services.loaded  # the full read is still held
        snapshot = big.files.snapshot
        assert snapshot is not None and snapshot.hits == len(wanted)
        services.release.set()
        await wait_for(pilot, lambda: services.loaded and app.services.flags_ready)
        assert [e.id for e in app.screen.rows] == wanted
        assert services.full_reads == 1


async def test_quitting_stops_the_full_read(big: Store) -> None:
    services = HeldRead(big)
    app = build_app(big, watch=False, services=services)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)))
            await wait_for(pilot, lambda: services.full_reads == 1)
            await pilot.press("q")
        assert not app.is_running
        assert services.stopped.wait(5)  # the read was told to stop, and did
        assert not services.loaded
    finally:
        services.release.set()


def test_a_scan_told_to_stop_ends_early_and_the_next_one_reads_the_rest(
    big: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memdesk.core.storage.file_cache as file_cache_module

    monkeypatch.setattr(file_cache_module, "STOP_EVERY", 8)
    every = Store.open(big.root).entries()
    fresh = Store.open(big.root)
    asked: list[int] = []
    assert not fresh.files.scan(stop=lambda: asked.append(1) is None)
    assert len(asked) == 1
    assert 0 < len(fresh.files.entries()) < len(every)
    assert [e.to_json() for e in fresh.entries()] == [e.to_json() for e in every]
