"""A big store's queue shows its candidates before every entry is read: the desk's
first look builds only them (core/first_look.py); the full read follows in a worker,
and quitting meanwhile does not wait for it."""

from __future__ import annotations

import threading
import time
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
    """The full read waits until the test lets it go; builds of entries are counted."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, load_model=False, today=lambda: TODAY)
        self.release = threading.Event()
        self.full_reads = 0
        self.read_in_daemon: list[bool] = []

    def entries(self):  # type: ignore[no-untyped-def]
        if self._cache is None:
            self.full_reads += 1
            self.read_in_daemon.append(threading.current_thread().daemon)
            self.release.wait(30)
        return super().entries()


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


async def test_quitting_does_not_wait_for_the_full_read(big: Store) -> None:
    services = HeldRead(big)
    app = build_app(big, watch=False, services=services)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)))
            await wait_for(pilot, lambda: services.full_reads == 1)
            (reading,) = [w for w in app.workers if w.name == "read_everything"]
            await pilot.press("q")
        assert not app.is_running
        # The worker gave up waiting; the read itself runs in a daemon thread, left to
        # finish on its own (a worker thread would keep the process alive at exit).
        deadline = time.monotonic() + 10
        while not reading.is_finished and time.monotonic() < deadline:
            time.sleep(0.01)
        assert reading.is_finished
        assert services.read_in_daemon == [True]
        assert not services.release.is_set()
    finally:
        services.release.set()
