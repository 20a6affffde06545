"""The memdesk Textual app: modes for the review queue and the browser, lazily loaded
screens for conflicts / context preview / stats, live file watching, the command
palette, help and remappable keys.

`build_app(store)` is the one way to make it (CLI, tests, screenshot script, bench).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

from memdesk.core.entry import Entry
from memdesk.core.errors import describe_error
from memdesk.core.live_ingest import WatchedChanges, ingest_changes, watch_plan
from memdesk.core.merge import MergeConflict
from memdesk.core.store import Change, Store, StoreError
from memdesk.tui.commands import DeskCommand, DeskCommands
from memdesk.tui.keymap import load_keymap
from memdesk.tui.services import Services
from memdesk.tui.watcher import Watcher
from memdesk.tui.widgets import header_content
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.worker import Worker, WorkerState, get_current_worker

ACTOR = "tui"
# Screens built in their own modules (by the conflicts / context / stats work); loaded on
# first use so a missing one only costs a notification.
LAZY_SCREENS: dict[str, tuple[str, str]] = {
    "conflicts": ("memdesk.tui.screens.conflicts", "ConflictsScreen"),
    "context": ("memdesk.tui.screens.context_preview", "ContextPreviewScreen"),
    "stats": ("memdesk.tui.screens.stats", "StatsScreen"),
    "files": ("memdesk.tui.screens.memory_files", "MemoryFilesScreen"),
}


DESK_ACTIONS = frozenset(
    {"quit", "help", "show_queue", "show_browser", "show_conflicts", "show_context"}
    | {"show_stats", "show_consolidation", "show_files", "undo", "redo"}
)


class StoreChanged(Message):
    """The store committed a change (from any thread)."""

    def __init__(self, change: Change) -> None:
        super().__init__()
        self.change = change


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

    def __init__(self, label: str, future: Future, then: Callable[[Any], None] | None) -> None:
        super().__init__()
        self.label = label
        self.future = future
        self.then = then


PALETTE_ICON = ">"


def display_dir(root: Path) -> str:
    home = Path.home()
    with contextlib.suppress(ValueError):
        return "~/" + root.relative_to(home).as_posix()
    return str(root)


class MemdeskApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "memdesk"
    COMMANDS = App.COMMANDS | {DeskCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="quit"),
        Binding("question_mark,f1", "help", "Help", id="help"),
        Binding("v", "show_queue", "Queue", id="show_queue", show=False),
        Binding("b", "show_browser", "Browser", id="show_browser"),
        Binding("c", "show_conflicts", "Conflicts", id="show_conflicts"),
        Binding("p", "show_context", "Context", id="show_context", show=False),
        Binding("s", "show_stats", "Stats", id="show_stats", show=False),
        Binding("f", "show_files", "Memory files", id="show_files", show=False),
        Binding("o", "show_consolidation", "Consolidate", id="show_consolidation", show=False),
        Binding("u,ctrl+z", "undo", "Undo", id="undo"),
        Binding("ctrl+y", "redo", "Redo", id="redo", show=False),
    ]

    header_text: reactive[Content] = reactive(Content("memdesk"), always_update=True)
    progress: reactive[tuple[int, int] | None] = reactive(None)
    progress_label: reactive[str] = reactive("")
    # Bumped after every change (ours, an agent's, a file edited on disk); screens
    # watch it to reload. Screens from other modules can watch it too.
    data_version: reactive[int] = reactive(0)

    def __init__(self, services: Services, *, watch: bool = True) -> None:
        super().__init__()
        self.services = services
        self.store = services.store
        self.watch_files = watch
        self.display_dir = display_dir(self.store.root)
        self.counts: dict[str, int] = {}
        self.watcher: Watcher | None = None
        self._unsubscribe = None
        self.keymap_problems: list[str] = []
        # Store writes run one at a time, in order, off the UI thread: a slow commit
        # (a big store re-renders MEMORY.md) never freezes the screen.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memdesk-write")
        self._refresh_scheduled = False
        self._refreshing = False  # a refresh_counts worker is running
        self._refresh_again = False  # and something changed meanwhile
        self._marker_paths: set[Path] = set()
        self._shown_generation = -1
        self._gc_frozen = False
        keymap, self.keymap_problems = load_keymap(self.store)
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
        for problem in self.keymap_problems:
            self.notify(problem, title="settings [keys]", severity="warning", timeout=8)
        if self.watch_files:
            plan = watch_plan(self.store)
            self.watcher = Watcher(
                self.store.root,
                lambda ch: self.post_message(FilesChanged(ch)),
                plan.transcript_globs,
                inbox=plan.inbox,
                memory_files=plan.memory_files,
            )
            self.watcher.start()
            # Lines agents appended while the desk was closed join the queue now.
            self.ingest_changes(WatchedChanges(memory_md=True), catch_up=True)
        if self.services.load_model:
            self.call_after_refresh(self.build_search_index)
        else:
            self.sync_search_index()  # flags from word overlap, no model needed

    def on_unmount(self) -> None:
        self._stop_watching()
        self._writer.shutdown(wait=True)
        if self._gc_frozen:
            gc.unfreeze()
            self._gc_frozen = False

    @work(thread=True, exit_on_error=False, group="load")
    def load_entries(self) -> None:
        """The first read of every entry file, off the UI thread (slow for big stores)."""
        generation = self.services.generation
        counts = self.services.counts()
        self.call_from_thread(self._show_counts, counts, generation)

    def _stop_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        if self._unsubscribe is not None:
            with contextlib.suppress(ValueError):
                self._unsubscribe()
            self._unsubscribe = None

    async def action_quit(self) -> None:
        self._stop_watching()
        self._writer.shutdown(wait=True)  # never leave a half-queued write behind
        self.exit(0)

    # -- writing -------------------------------------------------------------------
    def write(
        self, label: str, fn: Callable[[], Any], then: Callable[[Any], None] | None = None
    ) -> Future:
        """Run a store operation on the writer thread; `then(result)` runs on the UI
        thread after it. Refusals and conflicts become notifications, other errors the
        error dialog."""

        def run() -> Any:
            with self.services.lock:
                return fn()

        future = self._writer.submit(run)
        future.add_done_callback(lambda f: self.post_message(WriteDone(label, f, then)))
        return future

    def on_write_done(self, message: WriteDone) -> None:
        error = message.future.exception()
        result = None
        if isinstance(error, MergeConflict):
            with self.services.lock:
                self.store.save_conflict(error.conflict)
            fields = ", ".join(error.conflict.field_names) or "fields"
            self.notify(
                f"{error.conflict.entry_id} changed on disk meanwhile ({fields}); "
                "both sides kept as a conflict (c to resolve)",
                title=f"{message.label}: conflict",
                severity="warning",
                timeout=8,
            )
            self.services.invalidate([error.conflict.entry_id])
        elif isinstance(error, StoreError | ValueError | OSError):
            self.notify(
                describe_error(error),
                title=f"{message.label}: not done",
                severity="error",
                timeout=8,
            )
        elif error is not None:
            self.show_error(error, where=message.label)
        else:
            result = message.future.result()
        if message.then is not None:
            message.then(result if error is None else None)
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
                counts = self._count_and_flag()
            finally:
                self.services.lock.release()
            self._show_counts(counts, generation)
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
            counts = self._count_and_flag()
            self.call_from_thread(self._show_counts, counts, generation)
        finally:
            with contextlib.suppress(Exception):  # the app may be closing
                self.call_from_thread(self._refresh_done)

    def _refresh_done(self) -> None:
        self._refreshing = False
        if self._refresh_again:
            self._refresh_again = False
            self.changed()

    def _count_and_flag(self) -> dict[str, int]:
        """Header counts; without the model also the queue's flags, so a new row shows
        with its flags at once (only pairs of changed entries are looked for: cheap,
        once `sync_search_index` has found them all the first time). With the model
        the flags follow from `sync_search_index`, which embeds the changes first."""
        counts = self.services.counts()
        if self.services.search is None and self.services.flags_ready:
            self.services.refresh_duplicates()
        return counts

    def _show_counts(self, counts: dict[str, int], generation: int) -> None:
        if generation < self._shown_generation:
            return  # a slower worker finished after a newer count was shown
        if not self._gc_frozen:
            # The entries just read live as long as the desk: the cyclic GC need not
            # walk them in every full collection (at 10k entries such a pause took
            # ≈ 100 ms, often in the middle of showing an agent's append). Handed
            # back on unmount.
            gc.freeze()
            self._gc_frozen = True
        self._shown_generation = generation
        self.counts = counts
        self.header_text = header_content(self.display_dir, counts)
        self.data_version += 1

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
        (what is read, memdesk's own writes skipped) is core's."""
        with self.services.lock:
            report = ingest_changes(self.store, changes, catch_up=catch_up)
        for problem in report.problems:
            self.call_from_thread(self.notify, problem, severity="warning")
        self.call_from_thread(self._after_ingest, report.fresh, bool(changes.entries))

    def _after_ingest(self, fresh: list[Entry], entries_changed: bool) -> None:
        # The store's StoreChanged message may still be queued behind this call: name
        # the new entries here too, so this refresh already shows them.
        self.services.invalidate(e.id for e in fresh)
        if fresh:
            n = len(fresh)
            first = fresh[0].summary
            self.notify(
                f"{first[:60]}" + (f" (+{n - 1} more)" if n > 1 else ""),
                title=f"{n} new candidate{'s' if n != 1 else ''}",
            )
        self.changed()  # entries edited on disk by others need a reload too

    # -- search index ----------------------------------------------------------------
    def action_build_index(self) -> None:
        self.build_search_index()

    @work(thread=True, exit_on_error=False, exclusive=True, group="index")
    def build_search_index(self) -> None:
        self.post_message(IndexProgress(0, 1, "starting search…"))
        worker = get_current_worker()
        self.services.build_search(
            progress=lambda done, total: self.post_message(IndexProgress(done, total)),
            stage=lambda label: self.post_message(IndexProgress(0, 1, label)),
            cancelled=lambda: worker.is_cancelled,  # quitting never waits for the model
        )
        if not worker.is_cancelled:
            self.post_message(IndexProgress(-1, -1))

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
        flags_changed = self.services.sync_search()
        # Without the model nothing but the flags can have changed: no reload for nothing.
        if flags_changed or self.services.search is not None:
            self.call_from_thread(self._after_sync)

    def _after_sync(self) -> None:
        self.data_version += 1

    def action_command_palette(self) -> None:
        """Textual's palette, with a search mark every terminal font has (its 🔎 is a
        box in many)."""
        from textual.command import CommandPalette, SearchIcon

        if self.use_command_palette and not CommandPalette.is_open(self):
            palette = CommandPalette(id="--command-palette")
            self.push_screen(palette)
            palette.call_after_refresh(
                lambda: setattr(palette.query_one(SearchIcon), "icon", PALETTE_ICON)
            )

    # -- errors ------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.show_error(event.worker.error, where=event.worker.name or "background work")

    def show_error(self, error: BaseException | None, where: str = "") -> None:
        """The one place errors from workers end up. What a person can fix (a broken
        settings file, a store that cannot be written) is one line; a bug is a dialog
        with the details to copy."""
        from memdesk.tui.screens.dialogs import ErrorDialog

        self.progress = None
        self.progress_label = ""
        if isinstance(error, StoreError | ValueError | OSError):
            self.notify(describe_error(error), title=where or "error", severity="error", timeout=10)
            return
        self.push_screen(ErrorDialog(error, where))

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
        try:
            from memdesk.tui.screens.consolidation import ConsolidationScreen
        except ImportError:
            self.notify("consolidation screen: not available yet", severity="warning")
            return
        if not isinstance(self.screen, ConsolidationScreen):
            self.push_screen(ConsolidationScreen(self.store, self.services))

    def show_lazy(self, mode: str) -> bool:
        """Switch to a screen from its own module; say so if it is not there yet."""
        if mode not in self._modes:
            module_name, class_name = LAZY_SCREENS[mode]
            try:
                module = importlib.import_module(module_name)
                screen_class = getattr(module, class_name)
            except (ImportError, AttributeError):
                self.notify(f"{mode} screen: not available yet", severity="warning")
                return False
            self.add_mode(mode, lambda: screen_class(self.store, self.services))
        self.switch_mode(mode)
        return True

    def action_help(self) -> None:
        from memdesk.tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        rows = []
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            rows.append(
                (
                    self.get_key_display(binding) or key,
                    binding.description or binding.action,
                    binding.id or "",
                    binding.tooltip or "",
                )
            )
        self.push_screen(HelpScreen(rows))

    async def run_desk_command(self, command: DeskCommand) -> None:
        """Run a palette command: app actions here, screen actions on their screen."""
        if command.target != "app" and self.current_mode != command.target:
            self.switch_mode(command.target)
            await self.screen.run_action(command.action)
        elif command.target == "app":
            await self.run_action(command.action)
        else:
            await self.screen.run_action(command.action)

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
