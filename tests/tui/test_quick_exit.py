"""Quitting fast without losing a write (tui/run.py, tui/driver.py).

`leave` ends the process without waiting for worker threads, but only once no write is
under way; the driver's input thread stops as soon as it is told to. `leave` ends the
process it runs in, so it is tried in a child process.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import textwrap
import threading
import time
import tomllib
from pathlib import Path

import pytest
from memdesk.core.store import Store
from memdesk.tui.driver import QuickStopDriver
from textual import events
from textual.app import App

pytestmark = pytest.mark.anyio

LEAVE_WHILE_WRITING = """
import atexit, sys, threading, time
from pathlib import Path
from memdesk.core.store import Store
from memdesk.tui import run
from memdesk.tui.app import build_app
from memdesk.tui.services import Services

root, marker = Path(sys.argv[1]), Path(sys.argv[2])
store = Store.open(root)
app = build_app(store, watch=False, services=Services(store, load_model=False))
atexit.register(marker.write_text, "atexit ran")
inside = threading.Event()

def slow_write():  # a commit under way: the store's lock held, the write not yet done
    with store.lock.held():
        inside.set()
        time.sleep(0.5)
        store.approve(["cand-001"], actor="test")

threading.Thread(target=slow_write).start()
threading.Thread(target=threading.Event().wait).start()  # a worker that never returns
inside.wait()
run.leave(app, 3)
"""


def test_leave_finishes_a_write_under_way_and_does_not_wait_for_workers(
    store: Store, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    script = tmp_path / "leave.py"
    script.write_text(textwrap.dedent(LEAVE_WHILE_WRITING), "utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(store.root), str(marker)],
        capture_output=True,
        text=True,
        timeout=60,  # a process waiting for its never-ending worker would stop the test here
    )
    assert done.returncode == 3, done.stderr
    entry = store.root / ".memdesk" / "entries" / "cand-001.toml"
    assert tomllib.loads(entry.read_text("utf-8"))["status"] == "confirmed"
    assert marker.read_text("utf-8") == "atexit ran"


class Recording(QuickStopDriver):
    """The driver on a pipe instead of the terminal, noting the keys it reads."""

    def __init__(self, app: App[None], fd: int) -> None:
        super().__init__(app, mouse=False, size=(80, 24))
        self.fileno = fd
        self.keys: list[str] = []

    def process_message(self, message: object) -> None:
        if isinstance(message, events.Key):
            self.keys.append(message.key)


def wait_for(predicate, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


async def test_the_input_thread_stops_as_soon_as_it_is_told() -> None:
    read, write = os.pipe()
    driver = Recording(App(), read)
    try:
        for key in ("q", "x"):  # twice: a suspended app starts its thread again
            thread = threading.Thread(target=driver.run_input_thread)
            thread.start()
            time.sleep(0.15)  # asleep in its select
            os.write(write, key.encode())
            wait_for(lambda k=key: k in driver.keys)
            t0 = time.perf_counter()
            driver.exit_event.set()
            thread.join(5)
            took = time.perf_counter() - t0
            assert not thread.is_alive()
            # Textual's own thread took 0.1 s to see the stop, then slept 0.1 s more.
            assert took < 0.09
            driver.exit_event.clear()  # as disable_input does, before a restart
    finally:
        driver.close()
        os.close(read)
        os.close(write)


async def test_a_stray_wake_up_is_drained_and_reading_goes_on() -> None:
    read, write = os.pipe()
    driver = Recording(App(), read)
    thread = threading.Thread(target=driver.run_input_thread)
    try:
        thread.start()
        os.write(driver.exit_event._write, b"\0")  # a byte without a stop
        wait_for(lambda: not _readable(driver.exit_event.fileno()))  # drained, no spinning
        assert thread.is_alive()
        os.write(write, b"a")
        wait_for(lambda: "a" in driver.keys)
    finally:
        driver.exit_event.set()
        thread.join(5)
        driver.close()
        os.close(read)
        os.close(write)
    assert not thread.is_alive()


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])
