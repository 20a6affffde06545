"""Messages the desk's threads (the watcher, workers, the writer) post to the app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memdesk.core.live_ingest import WatchedChanges
from memdesk.tui.write_queue import Outcome
from textual.message import Message


class FilesChanged(Message):
    """The watcher saw a burst of relevant file changes."""

    def __init__(self, changes: WatchedChanges) -> None:
        super().__init__()
        self.changes = changes


class IndexProgress(Message):
    """Progress of index building: done/total embeddings, or a new stage label;
    done < 0 means finished."""

    def __init__(self, done: int, total: int, label: str | None = None) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.label = label


class WriteDone(Message):
    """A store write queued with `MemdeskApp.write` finished (or failed)."""

    def __init__(self, outcome: Outcome, then: Callable[[Any], None] | None) -> None:
        super().__init__()
        self.outcome = outcome
        self.then = then
