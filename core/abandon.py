"""Work a caller may stop waiting for: loading a search model while the person quits.

Loading an embedding model is one long call into native code (seconds on a busy
machine) that nothing can interrupt. A thread pool would make quitting wait for it: the
pool joins its threads at exit. `run_abandonable` runs such work in a daemon thread and
stops waiting as soon as `cancelled()` is true; the thread then finishes on its own or
ends with the process. Only for work that writes nothing another run depends on (a
model load repairs its own files next time); never for a store write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Abandoned(BaseException):
    """The caller stopped waiting (`cancelled()` became true). A BaseException, like
    asyncio's CancelledError: a handler of ordinary errors on the way must not eat it."""


def run_abandonable(
    work: Callable[[], T], cancelled: Callable[[], bool], *, poll_seconds: float = 0.02
) -> T:
    """`work()`'s result, or Abandoned as soon as `cancelled()` is true (checked every
    `poll_seconds`). An exception `work` raises is raised here."""
    done = threading.Event()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the waiting caller
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="memdesk-abandonable", daemon=True).start()
    while not done.wait(poll_seconds):
        if cancelled():
            raise Abandoned
    if failure:
        raise failure[0]
    return outcome[0]


def stop_when(cancelled: Callable[[], bool]) -> None:
    """Raise Abandoned when `cancelled()` is true: call it between steps of long work
    (between batches of embeddings) so a cancelled worker ends at the next step."""
    if cancelled():
        raise Abandoned
