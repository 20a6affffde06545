"""Live context preview: exactly the block an agent would get, and what was left out.

Purpose, budget and an optional query go into core's `assemble_screened` (the same call
as `memdesk context` and MEMORY.md: an entry the current guard flags is left out, even
one written without the flag); the screen shows its text verbatim, a token meter
against the budget with the counter that produced the count, and every excluded entry
with its reason. It recomputes in a worker thread, debounced, whenever an input changes,
the store commits a change (store.subscribe) or the app calls `refresh_preview()` (its
watcher saw a file change on disk).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from memdesk.core.context import Assembly
from memdesk.core.context.query import search_service_scorer
from memdesk.core.context.request import assemble_screened
from memdesk.core.context.verdicts import VERDICTS_NAME, GuardVerdicts
from memdesk.core.memfiles.status import load_cut_note
from memdesk.core.settings import MemdeskSettings, SettingsFile
from memdesk.tui.actions import bindings_for
from memdesk.tui.screens.live import (
    LiveScreen,
    entries_of,
    go_back,
    search_of,
    today_of,
)
from memdesk.tui.widgets import DeskFooter
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Checkbox, Input, ProgressBar, Select, Static
from textual.worker import get_current_worker

BUDGET_STEP = 100
MAX_BUDGET = 1_000_000
DEBOUNCE_SECONDS = 0.1


def excluded_content(assembly: Assembly) -> Content:
    """One line per entry left out: id, reason code, and the explanation."""
    parts: list[str | tuple[str, str]] = []
    for index, excluded in enumerate(assembly.excluded):
        parts.extend(
            [
                "\n" if index else "",
                (excluded.entry_id, "bold"),
                " ",
                (excluded.reason, "$text-warning"),
                " ",
                (excluded.detail, "$text-muted"),
            ]
        )
    return Content.assemble(*parts) if parts else Content.styled("nothing", "$text-muted")


@dataclass(frozen=True)
class PreviewRequest:
    purpose: str
    budget: int
    query: str
    include_candidates: bool
    metadata: bool = False  # each entry's kind, scope, source and time in the block
    generation: int = 0  # bumps on every store change, so equal inputs still recompute


class ContextPreviewScreen(LiveScreen):
    """What an agent would be given, under a budget, updating live."""

    CSS_PATH = "../context_preview.tcss"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("context")

    def __init__(self, store: Any, services: Any = None) -> None:
        super().__init__()
        self.store = store
        self.services = services
        # The desk's bundle has the settings; hosted alone, the screen reads its own.
        self._settings_file = None if hasattr(services, "settings") else SettingsFile(store.root)
        settings = self._settings()
        # A bad [context] is said once, and the preview runs on its defaults.
        self.settings_error = settings.problem_with("context")
        cs = settings.context
        purposes = cs.purpose_names()
        default_purpose, default_budget, self.unit = cs.purpose, cs.budget, cs.unit
        include_candidates = cs.include_candidates
        metadata = cs.metadata
        self.purposes: list[str] = purposes
        self.request = PreviewRequest(
            default_purpose, default_budget, "", include_candidates, metadata
        )
        self.assembly: Assembly | None = None
        self.error = ""
        self.cut_note = ""  # managed files whose agents miss facts past their load limit
        self._timer: Any = None
        # The guard's verdicts on the entries shown, kept while the screen lives (read
        # from the store's kept verdicts first: a text screened before is not again).
        index = store.index_dir
        self._verdicts = GuardVerdicts(index / VERDICTS_NAME if index.is_dir() else None)

    # -- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        r = self.request
        yield Static("Context preview", id="preview-title")
        with Horizontal(id="preview-controls"):
            yield Select(
                [(p, p) for p in self.purposes],
                value=r.purpose,
                allow_blank=False,
                id="purpose",
                compact=True,
            )
            yield Input(str(r.budget), type="integer", id="budget", compact=True)
            yield Input(
                placeholder="query (optional): the user's next message",
                id="query",
                compact=True,
            )
            yield Checkbox("candidates", r.include_candidates, id="candidates", compact=True)
        with Horizontal(id="preview-meter"):
            yield ProgressBar(total=max(1, r.budget), show_eta=False, id="meter")
            yield Static("", id="meter-label")
        with Horizontal(id="preview-body"):
            with VerticalScroll(id="preview-block"):
                yield Static("", id="preview-text", markup=False)
            with Vertical(id="preview-side"):
                yield Static("Left out", id="excluded-title")
                with VerticalScroll(id="excluded"):
                    yield Static("", id="excluded-list")
        yield DeskFooter()

    def data_changed(self) -> None:
        self.refresh_preview()

    def on_mount(self) -> None:
        self.query_one("#preview-block").focus()
        self.follow_changes()
        if self.settings_error:
            self.notify(self.settings_error, title="settings.toml", severity="error")
        self._schedule(0)

    def _settings(self) -> MemdeskSettings:
        """settings.toml as the desk has it (or as read here when hosted alone); parsed
        again only after the file changed."""
        if self._settings_file is not None:
            return self._settings_file.current()
        return self.services.settings

    # -- inputs ---------------------------------------------------------------------------
    def _set(self, **changes: Any) -> None:
        request = replace(self.request, **changes)
        if request != self.request:
            self.request = request
            self._schedule()

    def action_budget(self, steps: int) -> None:
        budget = min(MAX_BUDGET, max(0, self.request.budget + steps * BUDGET_STEP))
        budget_input = self.query_one("#budget", Input)
        with budget_input.prevent(Input.Changed):
            budget_input.value = str(budget)
        self._set(budget=budget)
        self._show_meter()

    def action_next_purpose(self) -> None:
        index = (
            self.purposes.index(self.request.purpose)
            if self.request.purpose in self.purposes
            else -1
        )
        purpose = self.purposes[(index + 1) % len(self.purposes)]
        self.query_one("#purpose", Select).value = purpose  # Select.Changed does the rest

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_toggle_candidates(self) -> None:
        self.query_one("#candidates", Checkbox).toggle()

    def action_toggle_metadata(self) -> None:
        self._set(metadata=not self.request.metadata)

    def action_close(self) -> None:
        focused = self.focused
        if isinstance(focused, Input):  # leave the input first
            self.query_one("#preview-block").focus()
        else:
            go_back(self)

    @on(Select.Changed, "#purpose")
    def _purpose_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._set(purpose=event.value)

    @on(Input.Changed, "#budget")
    def _budget_typed(self, event: Input.Changed) -> None:
        try:
            budget = int(event.value)
        except ValueError:
            return  # half-typed; the last good budget stays
        self._set(budget=min(MAX_BUDGET, max(0, budget)))
        self._show_meter()

    @on(Input.Changed, "#query")
    def _query_typed(self, event: Input.Changed) -> None:
        self._set(query=event.value)

    @on(Input.Submitted)
    def _submitted(self, _: Input.Submitted) -> None:
        self.query_one("#preview-block").focus()

    @on(Checkbox.Changed, "#candidates")
    def _candidates_changed(self, event: Checkbox.Changed) -> None:
        self._set(include_candidates=event.value)

    # -- recomputing ------------------------------------------------------------------------
    def refresh_preview(self) -> None:
        """Recompute from the store as it is now (the app calls this on a file change)."""
        self.request = replace(self.request, generation=self.request.generation + 1)
        self._schedule()

    def action_refresh_preview(self) -> None:
        self.refresh_preview()

    def _schedule(self, delay: float = DEBOUNCE_SECONDS) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if delay <= 0:
            self._recompute(self.request)
        else:
            self._timer = self.set_timer(delay, lambda: self._recompute(self.request))

    @work(thread=True, exclusive=True, group="context-preview")
    def _recompute(self, request: PreviewRequest) -> None:
        worker = get_current_worker()
        try:
            settings = self._settings()
            if settings.problem_with("context"):
                raise ValueError(settings.problem_with("context"))
            search = None
            if request.query.strip():
                service = search_of(self.services)
                if service is not None:
                    search = search_service_scorer(service)
            entries = entries_of(self.store, self.services)
            self.cut_note = load_cut_note(self.store, entries)
            # In this worker: screening may load the guard's meaning model.
            assembly = assemble_screened(
                entries,
                self._verdicts,
                purpose=request.purpose,
                budget=request.budget,
                query=request.query or None,
                include_candidates=request.include_candidates,
                metadata=request.metadata,
                settings=settings.context,
                search=search,
                today=today_of(self.services),
            )
        except Exception as exc:  # bad settings, a broken scorer: shown, not raised
            if not worker.is_cancelled:
                self.app.call_from_thread(self._show_error, request, str(exc))
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, request, assembly)

    # -- showing ---------------------------------------------------------------------------
    def _show_error(self, request: PreviewRequest, message: str) -> None:
        if request != self.request:
            return
        self.error = message
        self.query_one("#preview-text", Static).update(Content.styled(message, "$text-error"))
        self._show_meter()

    def _show(self, request: PreviewRequest, assembly: Assembly) -> None:
        if request != self.request:
            return  # inputs changed meanwhile; a newer result is on its way
        self.assembly = assembly
        self.error = ""
        self.unit = assembly.unit
        text = assembly.text or "(nothing to inject: every entry was left out)"
        self.query_one("#preview-text", Static).update(text)
        self.query_one("#excluded-list", Static).update(excluded_content(assembly))
        self.query_one("#excluded-title", Static).update(
            f"Left out ({len(assembly.excluded)}) · included {len(assembly.included)}"
            + (f"\nload limit · {self.cut_note}" if self.cut_note else "")
        )
        self.query_one("#preview-title", Static).update(
            f"Context preview · {assembly.purpose} · {assembly.format} format"
            + (f" · query ranked by {assembly.relevance}" if assembly.query else "")
            + (" · with metadata" if assembly.metadata else "")
        )
        self._show_meter()

    def _show_meter(self) -> None:
        budget = self.request.budget
        meter = self.query_one("#meter", ProgressBar)
        used = self.assembly.tokens if self.assembly else 0
        meter.update(total=max(1, budget), progress=min(used, max(1, budget)))
        label = self.query_one("#meter-label", Static)
        if self.assembly is None:
            label.update(f"… / {budget} {self.unit}")
            return
        counter = self.assembly.counter
        stale = " (updating…)" if self.assembly.budget != budget else ""
        label.update(
            Content.assemble(
                (f"{used} / {budget} {self.unit}", "bold"),
                (f" · counted by {counter}{stale}", "$text-muted"),
            )
        )
