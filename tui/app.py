"""The memdesk Textual app: the shell around the screens.

It holds modes for the review queue and the browser, loads the other screens on first
use, and keeps every screen current: it is the one subscriber to the store and the one
receiver of the file watcher, and bumps `data_version` after each change (screens follow
it through tui/screens/live.py). What it shows comes from elsewhere: the actions and
their keys from tui/actions.py, settings from core/settings.py (via `Services`),
ingestion from core/live_ingest.py, store writes through tui/write_queue.py.

`build_app(store)` is the one way to make it (CLI, tests, screenshot script, bench).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import threading
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any, ClassVar

from memdesk.core.entry import Entry
from memdesk.core.live_ingest import WatchedChanges, ingest_changes, watch_plan
from memdesk.core.store import Store
from memdesk.tui.actions import DeskAction, app_actions, bindings_for
from memdesk.tui.commands import DeskCommands, open_palette
from memdesk.tui.keymap import load_keymap
from memdesk.tui.messages import FilesChanged, IndexProgress, WriteDone
from memdesk.tui.screens.live import StoreChanged
from memdesk.tui.services import Services
from memdesk.tui.watcher import Watcher
from memdesk.tui.widgets import display_dir, header_content
from memdesk.tui.write_queue import WriteQueue
from textual import work
from textual.app import App
from textual.binding import BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState, get_current_worker

ACTOR = "tui"
# Screens in their own modules, imported on first use (the first frame does not wait
# for them): mode -> (module, class).
SCREENS: dict[str, tuple[str, str]] = {
    "conflicts": ("memdesk.tui.screens.conflicts", "ConflictsScreen"),
    "context": ("memdesk.tui.screens.context_preview", "ContextPreviewScreen"),
    "stats": ("memdesk.tui.screens.stats", "StatsScreen"),
    "files": ("memdesk.tui.screens.memory_files", "MemoryFilesScreen"),
}
# Seconds between the queue's first rows from a first look and the full read.
FULL_READ_DELAY = 0.4
# Desk keys are off while a dialog is open (a `q` in the picker must not quit).
DESK_ACTIONS = app_actions()


class MemdeskApp(App[int]):
    # The conflict screen's styles too: added on its first open they made Textual parse
    # every stylesheet again (≈ 17 ms at that `c`); here they join the first parse.
    CSS_PATH: ClassVar[list[str | PurePath]] = ["app.tcss", "conflicts.tcss"]
    TITLE = "memdesk"
    COMMANDS = App.COMMANDS | {DeskCommands}
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("app")

    header_text: reactive[Content] = reactive(Content("memdesk"), always_update=True)
    progress: reactive[tuple[int, int] | None] = reactive(None)
    progress_label: reactive[str] = reactive("")
    # Bumped after every change (ours, an agent's, a file edited on disk), once the
    # caches are current: live screens follow it (tui/screens/live.py).
    data_version: reactive[int] = reactive(0)

    def __init__(self, services: Services, *, watch: bool = True) -> None:
        super().__init__()
        self.services = services
        self.store = services.store
        self.watch_files = watch
        self.display_dir = display_dir(self.store.root)
        self.counts: dict[str, int] = {}
        self.watcher: Watcher | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.writes = WriteQueue(self.store, services.lock)
        self._refresh_scheduled = False
        self._refreshing = False  # a refresh_counts worker is running
        self._refresh_again = False  # and something changed meanwhile
        self._marker_paths: set[Path] = set()
        self._shown_generation = -1
        self._gc_frozen = False
        self._conflicts_found = False  # the conflict screen's pairs were looked for
        # Set by `q`: long background jobs stop now, not once Textual's loop has ended.
        self.closing = threading.Event()
        settings = services.settings  # checked once here; every problem is said on mount
        self.settings_problems: list[str] = list(settings.problems)
        keymap, self.keymap_problems = load_keymap(settings.keys)
        if keymap:
            self.set_keymap(keymap)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Desk keys are off while a dialog is open (a `q` in the picker must not quit)."""
        return not (isinstance(self.screen, ModalScreen) and action in DESK_ACTIONS)

    # -- start / stop ------------------------------------------------------------
    def on_mount(self) -> None:
        from memdesk.tui.screens.browser import BrowserScreen
        from memdesk.tui.screens.queue import QueueScreen

        self.add_mode("queue", lambda: QueueScreen(self.store, self.services))
        self.add_mode("browser", lambda: BrowserScreen(self.store, self.services))
        self.header_text = header_content(self.display_dir, {}, "loading entries…")
        self.switch_mode("queue")
        self.load_entries()
        self._unsubscribe = self.store.subscribe(
            lambda change: self.post_message(StoreChanged(change))
        )
        for problem in self.settings_problems:
            self.notify(problem, title="settings.toml", severity="warning", timeout=8)
        for problem in self.keymap_problems:
            self.notify(problem, title="settings [keys]", severity="warning", timeout=8)
        if self.watch_files:
            plan = watch_plan(self.store, self.services.settings.sources)
            self.watcher = Watcher(
                self.store.root,
                self._watched,
                plan.transcript_globs,
                inbox=plan.inbox,
                memory_files=plan.memory_files,
            )
            self.watcher.start()
            # Entry files written in place are reported: scans need not stat them all.
            self.store.files.follow()

    def _watched(self, changes: WatchedChanges) -> None:
        """From the watcher's thread: the store's file cache hears of entry files
        written in place at once (see EntryFileCache.follow), the app next."""
        self.store.files.touched(p.name for p in changes.entries)
        self.post_message(FilesChanged(changes))

    def _start_background(self) -> None:
        """After the queue first shows its rows: the work that would compete with the
        first read of the entries (for the store's lock, the GIL and the 2 cores of a
        small machine) if it started with it. A big store's first look built only the
        candidates: the full read comes first."""
        if not self.services.loaded:
            # A moment for the person's first keys (the read holds the GIL for ≈ 0.5 s
            # of CPU at 10k entries); anything that needs every entry reads them itself.
            self.set_timer(FULL_READ_DELAY, self.read_everything)
            return
        if self.watch_files:
            # Lines agents appended while the desk was closed join the queue now.
            self.ingest_changes(WatchedChanges(memory_md=True), catch_up=True)
        if self.services.load_model:
            self.build_search_index()
        else:
            self.sync_search_index()  # flags from word overlap, no model needed

    def on_unmount(self) -> None:
        self._stop_watching()
        self.writes.shutdown()
        if self._gc_frozen:
            gc.unfreeze()
            self._gc_frozen = False

    @work(thread=True, exit_on_error=False, group="load")
    def load_entries(self) -> None:
        """The first look at the entry files, off the UI thread: the queue's rows and
        the counts (a big store's other entries are read by `read_everything`)."""
        generation = self.services.generation
        counts = self.services.first_look()
        self.call_from_thread(self._show_counts, counts, generation)

    @work(thread=True, exit_on_error=False, group="load")
    def read_everything(self) -> None:
        """The full read after a first look; quitting stops it within a few hundred
        files."""
        if self.services.read_all(self.stopping()):
            self.call_from_thread(self._everything_read)

    def _everything_read(self) -> None:
        self.changed()  # counts from every entry (and the cyclic GC's freeze, see below)
        self._start_background()

    def _stop_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
            self.store.files.follow(False)
        if self._unsubscribe is not None:
            with contextlib.suppress(ValueError):
                self._unsubscribe()
            self._unsubscribe = None

    def stopping(self) -> Callable[[], bool]:
        """For a worker's long job: true once the desk is closing (call in the worker)."""
        worker = get_current_worker()
        return lambda: self.closing.is_set() or worker.is_cancelled

    async def action_quit(self) -> None:
        self.closing.set()  # the start-up catch-up, the flags' first pass, the full read…
        self._stop_watching()
        self.writes.shutdown()  # never leave a half-queued write behind
        self.exit(0)

    # -- writing -------------------------------------------------------------------
    def write(
        self, label: str, fn: Callable[[], Any], then: Callable[[Any], None] | None = None
    ) -> None:
        """Run a store operation on the writer thread; `then(result)` runs on the UI
        thread after it (`then(None)` when it was not done). Refusals and conflicts
        become notifications, other errors the error dialog."""
        self.writes.submit(label, fn, lambda outcome: self.post_message(WriteDone(outcome, then)))

    def on_write_done(self, message: WriteDone) -> None:
        outcome = message.outcome
        if outcome.conflict:
            self.notify(
                outcome.conflict,
                title=f"{outcome.label}: conflict",
                severity="warning",
                timeout=8,
            )
            self.services.invalidate([outcome.conflict_id])
        elif outcome.refused:
            self.notify(
                outcome.refused, title=f"{outcome.label}: not done", severity="error", timeout=8
            )
        elif outcome.bug is not None:
            self.show_error(outcome.bug, where=outcome.label)
        if message.then is not None:
            message.then(outcome.result)
        self.changed()

    # -- keeping views current ---------------------------------------------------------
    def changed(self) -> None:
        """Something changed: new header counts, every screen reloads (many calls in
        a row make one refresh)."""
        if not self._refresh_scheduled:
            self._refresh_scheduled = True
            self.call_later(self._refresh)

    def _refresh(self) -> None:
        self._refresh_scheduled = False
        if not self.services.loaded:
            return  # load_entries refreshes when it is done
        if self._refreshing:
            # One counting worker at a time (several would only fight over the GIL and
            # the lock); it goes round once more when it is done.
            self._refresh_again = True
            return
        # Usually only a few entries need re-reading: do it here, unless a write holds
        # the store (then a worker waits for it, not the UI).
        if not self._marker_paths and self.services.lock.acquire(blocking=False):
            try:
                generation = self.services.generation
                counts = self.services.counts_and_flags()
            finally:
                self.services.lock.release()
            self._show_counts(counts, generation)
            if self.services.flags_behind:  # the pair keeper was busy: a worker does it
                self.sync_search_index()
        else:
            self._refreshing = True
            self.refresh_counts()

    @work(thread=True, exit_on_error=False, group="refresh")
    def refresh_counts(self) -> None:
        """Re-read what changed and count (off the UI thread), then redraw."""
        try:
            paths, self._marker_paths = self._marker_paths, set()
            if paths:
                self.services.recheck_markers(paths)
            generation = self.services.generation
            counts = self.services.counts_and_flags()
            self.call_from_thread(self._show_counts, counts, generation)
            if self.services.flags_behind:
                self.call_from_thread(self.sync_search_index)
        finally:
            with contextlib.suppress(Exception):  # the app may be closing
                self.call_from_thread(self._refresh_done)

    def _refresh_done(self) -> None:
        self._refreshing = False
        if self._refresh_again:
            self._refresh_again = False
            self.changed()

    def _show_counts(self, counts: dict[str, int], generation: int) -> None:
        if generation < self._shown_generation:
            return  # a slower worker finished after a newer count was shown
        if not self._gc_frozen and self.services.loaded:
            # The entries just read live as long as the desk: the cyclic GC need not
            # walk them in every full collection (at 10k entries such a pause took
            # ≈ 100 ms, often in the middle of showing an agent's append). Handed
            # back on unmount.
            gc.freeze()
            self._gc_frozen = True
        first = self._shown_generation < 0
        self._shown_generation = generation
        self.counts = counts
        self.header_text = header_content(self.display_dir, counts)
        self.data_version += 1
        if first:
            self.call_after_refresh(self._start_background)

    def on_store_changed(self, message: StoreChanged) -> None:
        self.services.invalidate(message.change.ids)
        self.changed()
        if self.services.search is not None or not self.services.flags_ready:
            self.sync_search_index()  # else the refresh brings the flags along

    def on_files_changed(self, message: FilesChanged) -> None:
        changes = message.changes
        if changes.entries:  # edited by someone else (or by us: re-reading is cheap)
            self.services.invalidate(p.stem for p in changes.entries)
            self._marker_paths |= changes.entries
        if changes.memory_md or changes.inbox or changes.transcripts:
            self.ingest_changes(changes)
        elif changes.entries:
            self.changed()

    @work(thread=True, exit_on_error=False, group="ingest")
    def ingest_changes(self, changes: WatchedChanges, catch_up: bool = False) -> None:
        """Feed what changed on disk to core ingestion (off the UI thread); the policy
        (what is read, memdesk's own writes skipped) is core's. A closing desk leaves
        the start-up catch-up to the next start (what the watcher saw is read)."""
        stop = self.stopping() if catch_up else None
        with self.services.lock:
            report = ingest_changes(
                self.store, changes, catch_up=catch_up, settings=self.services.settings, stop=stop
            )
        if report.stopped:
            return
        for problem in report.problems:
            self.call_from_thread(self.notify, problem, severity="warning")
        self.call_from_thread(self._after_ingest, report.fresh)

    def _after_ingest(self, fresh: list[Entry]) -> None:
        # The store's StoreChanged message may still be queued behind this call: name
        # the new entries here too, so this refresh already shows them.
        self.services.invalidate(e.id for e in fresh)
        if fresh:
            n = len(fresh)
            self.notify(
                f"{fresh[0].summary[:60]}" + (f" (+{n - 1} more)" if n > 1 else ""),
                title=f"{n} new candidate{'s' if n != 1 else ''}",
            )
        self.changed()  # entries edited on disk by others need a reload too

    # -- search index ----------------------------------------------------------------
    def action_build_index(self) -> None:
        self.build_search_index()

    @work(thread=True, exit_on_error=False, exclusive=True, group="index")
    def build_search_index(self) -> None:
        self.post_message(IndexProgress(0, 1, "starting search…"))
        stop = self.stopping()
        self.services.build_search(
            progress=lambda done, total: self.post_message(IndexProgress(done, total)),
            stage=lambda label: self.post_message(IndexProgress(0, 1, label)),
            cancelled=stop,  # quitting never waits for the model
        )
        if not stop():
            self.post_message(IndexProgress(-1, -1))
            self.call_from_thread(self._find_conflicts_once)

    def on_index_progress(self, message: IndexProgress) -> None:
        if message.done < 0:
            self.progress = None
            self.progress_label = ""
            self.changed()
            self.notify(self.services.search_status, title="search ready", timeout=3)
        else:
            if message.label is not None:
                self.progress_label = message.label
            self.progress = (message.done, message.total)

    def pairs_changed(self) -> None:
        """A pair was dismissed (no store change): the queue's flags follow."""
        self.sync_search_index()

    @work(thread=True, exit_on_error=False, exclusive=True, group="sync")
    def sync_search_index(self) -> None:
        stop = self.stopping()
        flags_changed = self.services.sync_search(cancelled=stop)
        if stop():
            return
        # Without the model nothing but the flags can have changed: no reload for nothing.
        if flags_changed or self.services.search is not None:
            self.call_from_thread(self._after_sync)
        self.call_from_thread(self._find_conflicts_once)

    def _after_sync(self) -> None:
        self.data_version += 1

    def _find_conflicts_once(self) -> None:
        """Once the queue has its flags: every pair for the conflict screen, found in
        the background, so opening it shows them at once (later changes only look at
        what changed, see `Services.conflicts`)."""
        if not self._conflicts_found:
            self._conflicts_found = True
            self.find_conflicts()

    @work(thread=True, exit_on_error=False, exclusive=True, group="conflicts")
    def find_conflicts(self) -> None:
        self.services.conflicts(cancelled=self.stopping())

    def action_command_palette(self) -> None:
        open_palette(self)

    # -- errors ------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.show_error(event.worker.error, where=event.worker.name or "background work")

    def show_error(self, error: BaseException | None, where: str = "") -> None:
        """The one place errors from workers end up (see dialogs.show_error)."""
        from memdesk.tui.screens.dialogs import show_error

        self.progress, self.progress_label = None, ""
        show_error(self, error, where)

    # -- screens -----------------------------------------------------------------------
    def action_show_queue(self) -> None:
        self.switch_mode("queue")

    def action_show_browser(self) -> None:
        self.switch_mode("browser")

    def action_show_conflicts(self) -> None:
        self.show_lazy("conflicts")

    def action_show_context(self) -> None:
        self.show_lazy("context")

    def action_show_stats(self) -> None:
        self.show_lazy("stats")

    def action_show_files(self) -> None:
        self.show_lazy("files")

    def action_show_consolidation(self) -> None:
        """The consolidation plan (pushed over the current screen; escape goes back)."""
        from memdesk.tui.screens.consolidation import ConsolidationScreen

        if not isinstance(self.screen, ConsolidationScreen):
            self.push_screen(ConsolidationScreen(self.store, self.services))

    def show_lazy(self, mode: str) -> None:
        """Switch to a screen from its own module (imported the first time)."""
        if mode not in self._modes:
            module_name, class_name = SCREENS[mode]
            screen_class: type[Screen[None]] = getattr(
                importlib.import_module(module_name), class_name
            )
            self.add_mode(mode, lambda: self._fresh(screen_class(self.store, self.services)))
        self.switch_mode(mode)

    def _fresh(self, screen: Screen[None]) -> Screen[None]:
        """A screen made now is styled by the stylesheet as it is when it mounts:
        Textual would restyle every widget of the app once more on its first switch
        (137 ms of the conflict screen's 376 at 10k entries)."""
        screen._css_update_count = self._css_update_count
        return screen

    def action_help(self) -> None:
        from memdesk.tui.screens.help import HelpScreen, help_rows

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(help_rows(self)))

    async def run_desk_action(self, action: DeskAction) -> None:
        """Run a palette entry: app actions here, screen actions on their screen."""
        if action.target == "app":
            await self.run_action(action.action)
            return
        if self.current_mode != action.target:
            self.switch_mode(action.target)
        await self.screen.run_action(action.action)

    # -- undo / redo -------------------------------------------------------------------
    def action_undo(self) -> None:
        self._undo_redo("undo")

    def action_redo(self) -> None:
        self._undo_redo("redo")

    def _undo_redo(self, which: str) -> None:
        def done(result: Any) -> None:
            if result is not None:
                self.notify(f"{which}: {result.op} of {', '.join(result.ids[:3])}")

        self.write(which, lambda: getattr(self.store, which)(actor=ACTOR), done)


def build_app(store: Store, *, watch: bool = True, services: Services | None = None) -> MemdeskApp:
    """The app on `store`: watching files unless `watch=False`; `services` to share or
    to configure (e.g. `Services(store, load_model=False)` in tests)."""
    if services is None:
        services = Services(store, load_model=os.environ.get("MEMDESK_NO_MODEL") != "1")
    return MemdeskApp(services, watch=watch)
