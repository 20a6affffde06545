"""Textual's terminal driver, stopping its input thread at once.

Textual's Linux driver reads keys on a thread that waits in `select` for up to 0.1 s
before it looks whether it should stop, then sleeps another 0.1 s on an empty select
when it does; quitting waited for both (100–200 ms of the `q`). Here the stop request
also writes a byte to a pipe the same `select` watches: the thread wakes and ends at
once, and the empty last wait is gone (what it did besides waiting, the parser's last
tick, is kept). Everything else is Textual's driver as it is.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
from codecs import getincrementaldecoder

from memdesk.tui.run import trace
from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver


class WakingEvent(threading.Event):
    """An Event whose `set` also makes `fileno()` readable (for a `select`)."""

    def __init__(self) -> None:
        super().__init__()
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)

    def fileno(self) -> int:
        return self._read

    def set(self) -> None:
        super().set()
        if self._write >= 0:
            with contextlib.suppress(OSError):  # full: already woken
                os.write(self._write, b"\0")

    def clear(self) -> None:
        super().clear()
        self.drain()

    def drain(self) -> None:
        if self._read < 0:
            return
        with contextlib.suppress(OSError):
            while os.read(self._read, 512):
                pass

    def close(self) -> None:
        """Close the pipe; a later `set` only sets (its number may be another file's)."""
        read, write, self._read, self._write = self._read, self._write, -1, -1
        for fd in (read, write):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)


class QuickStopDriver(LinuxDriver):
    """LinuxDriver whose input thread ends as soon as it is told to."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.exit_event: WakingEvent = WakingEvent()

    def stop_application_mode(self) -> None:
        super().stop_application_mode()
        trace("terminal restored")  # MEMDESK_QUIT_TRACE (tui/run.py)

    def close(self) -> None:
        super().close()
        self.exit_event.close()

    def run_input_thread(self) -> None:
        """Textual's `LinuxDriver.run_input_thread`, also woken by `exit_event`."""
        selector = selectors.SelectSelector()
        fileno = self.fileno
        wake = self.exit_event.fileno()
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        EVENT_READ = selectors.EVENT_READ

        parser = XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick
        decode = getincrementaldecoder("utf-8")().decode
        read = os.read

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False
        ) -> None:
            keys = [(key, mask) for key, mask in selector_events if key.fd == fileno]
            if len(keys) < len(selector_events):  # woken: a stop (a stale byte never spins)
                self.exit_event.drain()
            for last, (_selector_key, mask) in loop_last(keys):
                if mask & EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        break  # stdin is piped and at its end
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process_selector_events(selector.select(0.1))
            selector.unregister(fileno)
            # Textual waits 0.1 s on a select with nothing left to watch here; only its
            # last tick of the parser is kept.
            process_selector_events([], final=True)
        finally:
            selector.close()
            with contextlib.suppress(EOFError, ParseError):
                for _event in feed(""):
                    pass


def quick_stop(driver: type[Driver]) -> type[Driver]:
    """The driver to use for Textual's choice `driver`: this one for its Linux driver."""
    if driver is LinuxDriver:
        return QuickStopDriver
    return driver
