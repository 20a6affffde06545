"""Store changes into a screen's message queue, from whatever thread made them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message
from textual.screen import Screen


class StoreChanged(Message):
    """The store committed a change (in this process); `change` is a core `Change`."""

    def __init__(self, change: Any) -> None:
        self.change = change
        super().__init__()


def subscribe_screen(store: Any, screen: Screen) -> Callable[[], None]:
    """Forward the store's change callbacks to `screen` as StoreChanged messages.

    Store callbacks run in the committing thread (the UI, a watcher, a worker) while it
    holds the store lock; post_message is thread-safe and never waits for the UI, so a
    slow screen cannot stall a writer. Returns the unsubscribe function."""
    subscribe = getattr(store, "subscribe", None)
    if subscribe is None:
        return lambda: None
    return subscribe(lambda change: screen.post_message(StoreChanged(change)))


def search_of(services: Any) -> Any:
    """The services bundle's SearchService (may be built lazily, so call off the UI
    thread), or None when there is no bundle or it has no search."""
    if services is None:
        return None
    try:
        return getattr(services, "search", None)
    except Exception:  # a search that fails to open means "no search", not a crash
        return None
