"""Store writes from the desk: one at a time, in order, off the UI thread.

A slow commit (a big store re-renders MEMORY.md) must never freeze the screen, and two
writes must never overtake each other (approve, then undo). Each write runs under the
desk's shared lock on one writer thread; what came of it is sorted into an `Outcome`
the app shows: a result, a refusal said in one line, a concurrent edit kept as a
conflict, or a bug for the error dialog.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from memdesk.core.errors import describe_error
from memdesk.core.merge import MergeConflict
from memdesk.core.store import Store, StoreError


@dataclass(frozen=True)
class Outcome:
    """What one write came to; exactly one of the last four says what happened."""

    label: str
    result: Any = None
    refused: str = ""  # one line for a person: the write was not done
    conflict: str = ""  # changed on disk meanwhile: both sides kept as a conflict
    conflict_id: str = ""
    bug: BaseException | None = None  # anything else: the error dialog shows it


class WriteQueue:
    """`submit(label, fn, done)`: run `fn()` on the writer thread, then `done(outcome)`
    (on the writer thread: post a message from there to get back to the UI)."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self.store = store
        self.lock = lock
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memdesk-write")

    def submit(
        self, label: str, fn: Callable[[], Any], done: Callable[[Outcome], None]
    ) -> Future[Outcome]:
        def run() -> Outcome:
            outcome = self._run(label, fn)
            done(outcome)
            return outcome

        return self._writer.submit(run)

    def _run(self, label: str, fn: Callable[[], Any]) -> Outcome:
        try:
            with self.lock:
                return Outcome(label, result=fn())
        except MergeConflict as error:
            try:
                with self.lock:
                    self.store.save_conflict(error.conflict)
            except (StoreError, OSError) as saving:
                return Outcome(label, refused=describe_error(saving))
            fields = ", ".join(error.conflict.field_names) or "fields"
            return Outcome(
                label,
                conflict=f"{error.conflict.entry_id} changed on disk meanwhile ({fields}); "
                "both sides kept as a conflict (c to resolve)",
                conflict_id=error.conflict.entry_id,
            )
        except (StoreError, ValueError, OSError) as error:
            return Outcome(label, refused=describe_error(error))
        except Exception as error:  # a bug: shown with its details, the queue goes on
            return Outcome(label, bug=error)

    def shutdown(self) -> None:
        """Wait for the writes already queued (never leave one half done)."""
        self._writer.shutdown(wait=True)
