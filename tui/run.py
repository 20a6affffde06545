"""Running the desk as a program, and leaving as soon as `q` is handled.

Once the app had stopped (the terminal restored), quitting still waited for Python's
own way out: `asyncio.run` joins the thread of every worker still running (a listing,
the keeper's first tokenization of 10k entries, a first read do not stop midway), the
interpreter joins any other thread, then frees every object of a big store one by one
and finalises its modules (onnxruntime's and tantivy's objects too): 0.8–2.6 s at 10k
entries in tmux on a busy machine (docs/benchmarks.md).

None of that is needed once no write is under way. `run` runs the app on an event loop
of its own (so that stopping it waits for no worker), and `leave` ends the process with
`os._exit` once it is safe:

- every write the desk queued is done (its writer thread is joined), and
- the store's lock is held for this process: no other thread is inside a store write
  (an agent's line being ingested, a catch-up, a render of MEMORY.md), and none can
  start one. A write under way is finished first, whatever it takes.

Then stdio is flushed and the `atexit` functions run (scratch folders). A caller that
deletes the store's folder once the desk has closed (a temporary demo) calls
`join_workers` first, so that nothing still writes there. Derived files (the search
index, caches) are written by replacing whole files or checked when opened: a worker
stopped in the middle of one leaves what a crash would, which the next start reads or
rebuilds. `MEMDESK_QUIT_TRACE=FILE` appends when each step of a quit happened (wall
clock, seconds) to FILE: bench/quit_bench.py.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from memdesk.tui.app import MemdeskApp


_loop: asyncio.AbstractEventLoop | None = None  # the desk's, once `run` made it


def trace(step: str) -> None:
    """Note when `step` of a quit happened (only with MEMDESK_QUIT_TRACE set)."""
    path = os.environ.get("MEMDESK_QUIT_TRACE")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{time.time():.6f} {step}\n")


class _TracedEvent(threading.Event):
    """`app.closing` noting when `q` was handled (its first step sets it)."""

    def set(self) -> None:
        if not self.is_set():
            trace("q handled")
        super().set()


def run(app: MemdeskApp) -> int:
    """Run the desk in this terminal until it quits; its return code. The worker
    threads still running are not waited for here (see `leave`). Textual's Linux
    driver is replaced by one whose input thread stops at once (tui/driver.py)."""
    if app.driver_class.__name__ == "LinuxDriver":  # not Windows' (no termios there)
        from memdesk.tui.driver import quick_stop

        app.driver_class = quick_stop(app.driver_class)
    if os.environ.get("MEMDESK_QUIT_TRACE"):
        app.closing = _TracedEvent()
    global _loop
    _loop = loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    app.run(loop=loop)
    trace("app stopped")
    return int(app.return_code or 0)


def join_workers() -> None:
    """Wait for the worker threads still running after `run` (what `asyncio.run`
    does once its coroutine has returned)."""
    if _loop is not None and not _loop.is_closed():
        _loop.run_until_complete(_loop.shutdown_default_executor())
        _loop.close()


def leave(app: MemdeskApp, code: int) -> NoReturn:
    """End the process with `code` once no write is under way (see the module's doc)."""
    app.writes.shutdown()  # `q` joined it already; any other way out too
    app.store.lock.hold_in_process()  # waits for a write under way; never let go
    trace("writes done")
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # closed, or a reader gone
            pass
    atexit._run_exitfuncs()
    trace("leaving")
    os._exit(code)
