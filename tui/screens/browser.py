"""The memory browser: every entry, filters by status / kind / scope, search as you type
(debounced, off the UI thread; hybrid once the index is built, a text filter until
then), and the entry's version history and links."""

from __future__ import annotations

from typing import ClassVar

from memdesk.core.entry import KINDS, SCOPES, STATUSES, Entry
from memdesk.core.store import Store
from memdesk.tui.actions import bindings_for
from memdesk.tui.fit_table import FitColumn, FitTable
from memdesk.tui.screens.entry_actions import clear_flag, edit_entry, set_status
from memdesk.tui.screens.live import LiveScreen
from memdesk.tui.services import Services
from memdesk.tui.widgets import DeskFooter, DeskHeader, entry_detail
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select, Static

DEBOUNCE_SECONDS = 0.15
MAX_ROWS = 2000  # a table of 10k rows is slow to build and nobody scrolls it
# The summary takes the width the others leave; the last columns go first when narrow.
BROWSER_COLUMNS = (
    FitColumn("id", "id", minimum=6, maximum=20),
    FitColumn("status", "status", minimum=6, maximum=10, drop_order=1),
    FitColumn("kind", "kind", minimum=4, maximum=12, drop_order=2),
    FitColumn("scope", "scope", minimum=5, maximum=12, drop_order=3),
    FitColumn("conf", "conf", minimum=4, maximum=6, drop_order=4),
    FitColumn("summary", "summary", slack=True),
    FitColumn("updated", "updated", minimum=10, maximum=10, drop_order=5),
)


class BrowserScreen(LiveScreen):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("browser")

    def __init__(self, store: Store, services: Services) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.rows: list[Entry] = []
        self.search_ids: list[str] | None = None  # None: no query
        self._debounce: Timer | None = None
        self._query = ""

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        with Vertical(id="browser-body"):
            with Horizontal(id="browser-filters"):
                yield Input(placeholder="search (Chinese or English)…  /", id="browser-search")
                yield Select([(s, s) for s in STATUSES], prompt="any status", id="filter-status")
                yield Select([(k, k) for k in KINDS], prompt="any kind", id="filter-kind")
                yield Select([(s, s) for s in SCOPES], prompt="any scope", id="filter-scope")
            yield Static("", id="browser-caption", classes="caption")
            yield FitTable(
                BROWSER_COLUMNS, id="browser-table", cursor_type="row", zebra_stripes=True
            )
            with VerticalScroll(id="browser-detail", classes="detail"):
                yield Static(id="browser-detail-text")
        yield DeskFooter()

    def data_changed(self) -> None:
        self.refresh_results()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self.follow_changes()
        self.reload()
        table.focus()

    # -- filters and search -------------------------------------------------------
    def _filter(self, select_id: str) -> list[str] | None:
        value = self.query_one(select_id, Select).value
        return None if value in (Select.BLANK, Select.NULL) else [str(value)]

    def filters(self) -> dict[str, list[str] | None]:
        return {
            "status": self._filter("#filter-status"),
            "kind": self._filter("#filter-kind"),
            "scope": self._filter("#filter-scope"),
        }

    @on(Input.Changed, "#browser-search")
    def _typed(self, event: Input.Changed) -> None:
        self._query = event.value
        # The ids found so far were for the text before this key (a data change can run
        # a search between two keys): not the results of this query. The table keeps
        # showing them until this query's results arrive.
        self.search_ids = None
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE_SECONDS, self.refresh_results)

    @on(Input.Submitted, "#browser-search")
    def _submitted(self) -> None:
        self.query_one(DataTable).focus()

    @on(Select.Changed)
    def _filter_changed(self) -> None:
        self.refresh_results()

    def refresh_results(self) -> None:
        if self._query.strip():
            self.run_search(self._query, self.filters())
        else:
            self.search_ids = None
            self.reload()

    @work(thread=True, exclusive=True, group="browser-search", exit_on_error=False)
    def run_search(self, query: str, filters: dict[str, list[str] | None]) -> None:
        ids = self.services.search_ids(query, **filters)
        self.app.call_from_thread(self._show_search, query, ids)

    def _show_search(self, query: str, ids: list[str]) -> None:
        if query != self._query:
            return  # typed on since: a newer search is coming
        self.search_ids = ids
        self.reload()

    # -- table -----------------------------------------------------------------------
    def reload(self) -> None:
        table = self.query_one(DataTable)
        current = self.current_entry()
        keep_id = current.id if current else None
        if not self.services.loaded:
            self.query_one("#browser-caption", Static).update("loading entries…")
            return
        entries = self.services.entries()
        f = self.filters()

        def keep(e: Entry) -> bool:
            return all(
                allowed is None or getattr(e, name) in allowed for name, allowed in f.items()
            )

        if self.search_ids is not None:
            by_id = {e.id: e for e in entries}
            ranked = [by_id[i] for i in self.search_ids if i in by_id]
            matching = [e for e in ranked if keep(e)]
        else:
            matching = [e for e in entries if keep(e)]
        self.rows = matching[:MAX_ROWS]
        table.clear()
        for e in self.rows:
            table.add_row(
                e.id,
                e.status,
                e.kind,
                e.scope,
                e.confidence,
                " ".join(e.summary.split()),
                f"{e.updated:%Y-%m-%d}",
                key=e.id,
            )
        if self.rows:
            index = next((i for i, e in enumerate(self.rows) if e.id == keep_id), 0)
            table.move_cursor(row=index, animate=False)
        caption = f"{len(matching)} of {len(entries)} entries"
        if self.search_ids is not None:
            caption += f" match “{self._query.strip()}”, best first"
        if len(matching) > MAX_ROWS:
            caption += f" (showing the first {MAX_ROWS})"
        caption += "  ·  " + self.services.search_status
        self.query_one("#browser-caption", Static).update(caption)
        self.show_detail()

    def current_entry(self) -> Entry | None:
        table = self.query_one(DataTable)
        if not self.rows or not 0 <= table.cursor_row < len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def show_detail(self) -> None:
        entry = self.current_entry()
        links: list[tuple[str, str]] = []
        history = []
        if entry is not None:
            if entry.supersedes:
                links.append(("supersedes", ", ".join(entry.supersedes)))
            if entry.superseded_by:
                links.append(("superseded by", entry.superseded_by))
            if entry.related:
                links.append(("related", ", ".join(entry.related)))
            history = self.store.history(entry.id)  # reads the journal: no lock needed
        self.query_one("#browser-detail-text", Static).update(
            entry_detail(entry, history=history, links=links)
        )

    def _status(self, label: str, method: str, allowed: tuple[str, ...]) -> None:
        entry = self.current_entry()
        if entry is None:
            return
        if entry.status not in allowed:
            self.notify(f"{entry.id} is {entry.status}: cannot be {label}", severity="warning")
            return
        set_status(self, [entry.id], label, method)

    def action_approve(self) -> None:
        self._status("approved", "approve", ("candidate", "expired"))

    def action_expire(self) -> None:
        self._status("expired", "expire", ("candidate", "confirmed"))

    def action_clear_flag(self) -> None:
        clear_flag(self, self.current_entry())

    def action_edit(self) -> None:
        entry = self.current_entry()
        if entry is not None:
            edit_entry(self, entry)

    def action_focus_search(self) -> None:
        self.query_one("#browser-search", Input).focus()

    def action_focus_table(self) -> None:
        self.query_one(DataTable).focus()
