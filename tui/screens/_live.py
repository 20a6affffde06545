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


def lock_of(store: Any, services: Any) -> Any:
    """The lock screens take around store calls: the app's shared one when there is an
    app bundle (it serialises the UI and its workers), else the store's own."""
    lock = getattr(services, "lock", None)
    return lock if lock is not None else store.lock.held()


def today_of(services: Any) -> Any:
    """The bundle's notion of today (fixed in tests and snapshots), else None."""
    today = getattr(services, "today", None)
    return today() if callable(today) else None


def follow_app_changes(screen: Screen, callback: Callable[[], None]) -> None:
    """Call `callback` whenever the app shell says its data changed (a file changed on
    disk and was re-read, an ingest finished): the shell bumps `data_version`."""
    app = screen.app
    if hasattr(app, "data_version"):
        screen.watch(app, "data_version", lambda _value: callback(), init=False)


def go_back(screen: Screen) -> None:
    """`esc`: pop a pushed screen; in the app shell's modes, back to the review queue."""
    app = screen.app
    if len(app.screen_stack) > 1:
        app.pop_screen()
    elif hasattr(app, "action_show_queue"):
        app.action_show_queue()


def entries_of(store: Any, services: Any) -> list[Any]:
    """Every entry: from the app bundle's cache (kept current by the shell) when there
    is one, else read from the store under its lock."""
    cached = getattr(services, "entries", None)
    if callable(cached):
        return list(cached())
    with store.lock.held():
        return store.entries()
