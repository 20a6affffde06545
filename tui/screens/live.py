"""How a screen stays current, one way for every screen; and what screens share.

`LiveScreen.follow_changes()` (call it in `on_mount`) makes `data_changed()` run after
every change to the data while the screen is shown; a screen in the background (another
mode is up) catches up once when it is shown again. Inside the desk the app is the one
subscriber to the store and to the file watcher and bumps `data_version` after each
change (its caches are current by then); a screen hosted alone (tests, another app)
subscribes to the store itself and gets `StoreChanged` messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events, on
from textual.message import Message
from textual.screen import Screen


class StoreChanged(Message):
    """The store committed a change (in this process); `change` is a core `Change`.
    Store callbacks run in the committing thread; post_message is thread-safe and never
    waits for the UI, so a slow screen cannot stall a writer."""

    def __init__(self, change: Any) -> None:
        self.change = change
        super().__init__()


class LiveScreen(Screen[None]):
    """A screen showing store data; subclasses implement `data_changed`."""

    store: Any
    _stale: bool = False
    _unsubscribe: Callable[[], None] | None = None

    def data_changed(self) -> None:
        """Show the data as it is now (called on the UI thread)."""
        raise NotImplementedError

    def follow_changes(self) -> None:
        app = self.app
        if hasattr(app, "data_version"):  # the desk shell
            self.watch(app, "data_version", lambda _version: self._changed(), init=False)
        else:
            self._unsubscribe = self.store.subscribe(
                lambda change: self.post_message(StoreChanged(change))
            )

    def _changed(self) -> None:
        """Now if shown (maybe under a dialog); else once it is shown again."""
        if self.is_current or self in self.app.screen_stack:
            self.data_changed()
        else:
            self._stale = True

    @on(StoreChanged)
    def _store_changed(self, _: StoreChanged) -> None:
        self._changed()

    @on(events.ScreenResume)
    def _catch_up(self) -> None:
        if self._stale:
            self._stale = False
            self.data_changed()

    @on(events.Unmount)
    def _stop_following(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None


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
