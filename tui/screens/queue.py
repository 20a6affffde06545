"""The review queue: candidates in order of arrival, a detail pane, and the actions.

Every action goes through the Store (actor "tui"), so the TOML files, the journal and
MEMORY.md change at once; this screen only reloads when the app says data changed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from memdesk.core.entry import Entry
from memdesk.core.store import Store
from memdesk.tui.actions import bindings_for
from memdesk.tui.fit_table import FitColumn, FitTable
from memdesk.tui.screens.entry_actions import ACTOR, clear_flag, edit_entry, set_status
from memdesk.tui.screens.live import LiveScreen
from memdesk.tui.services import Services
from memdesk.tui.widgets import DeskFooter, DeskHeader, entry_detail
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

# The summary takes the width the others leave; when the terminal is narrow the last
# columns go first (the detail pane below shows them all).
QUEUE_COLUMNS = (
    FitColumn("mark", " ", minimum=1, maximum=1),
    FitColumn("arrived", "arrived", minimum=11, maximum=11, drop_order=1),
    FitColumn("summary", "summary", slack=True),
    FitColumn("flags", "flags", minimum=5, maximum=40),
    FitColumn("kind", "kind", minimum=4, maximum=12, drop_order=2),
    FitColumn("scope", "scope", minimum=5, maximum=12, drop_order=3),
    FitColumn("conf", "conf", minimum=4, maximum=6, drop_order=4),
    FitColumn("source", "source", minimum=6, maximum=16, drop_order=5),
)
COLUMNS = tuple(column.key for column in QUEUE_COLUMNS)


def flags_by_id(services: Services, entries: Iterable[Entry]) -> dict[str, list[str]]:
    """Readable flags per entry: duplicate of…, contradicts…, suspicious."""
    out: dict[str, list[str]] = {e.id: [] for e in entries}
    for pair in services.duplicates:
        for this, other in ((pair.a, pair.b), (pair.b, pair.a)):
            if this in out:
                label = "contradicts" if pair.type == "contradiction" else "dup of"
                out[this].append(f"{label} {other}")
    for entry in entries:
        for name in entry.flags:
            out[entry.id].append(name)
    return out


class QueueScreen(LiveScreen):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("queue")

    def __init__(self, store: Store, services: Services) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.selected: set[str] = set()
        self.hidden: set[str] = set()  # acted on; the write is still on its way
        self.rows: list[Entry] = []
        self.flags: dict[str, list[str]] = {}
        self._shown_detail: tuple[Entry, tuple[str, ...]] | None = None
        self._shown_cells: dict[str, tuple[Any, ...]] = {}  # row id -> what its cells show
        self._caption_text = ""

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        with Vertical(id="queue-body"):
            yield Static("", id="queue-caption", classes="caption")
            yield FitTable(
                QUEUE_COLUMNS,
                slack_minimum=30,
                id="queue-table",
                cursor_type="row",
                zebra_stripes=True,
            )
            with VerticalScroll(id="queue-detail", classes="detail"):
                yield Static(id="queue-detail-text")
        yield DeskFooter()

    def data_changed(self) -> None:
        self.reload()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self.follow_changes()
        self.reload()
        table.focus()

    # -- data ----------------------------------------------------------------------
    def reload(self) -> None:
        table = self.query_one(DataTable)
        current = self.current_entry()
        keep_id = current.id if current else None
        keep_row = table.cursor_row
        if not self.services.ready:
            if not self.rows:
                self.query_one("#queue-caption", Static).update("loading entries…")
            return  # the rows follow once the entries are read
        rows = [e for e in self.services.candidates() if e.id not in self.hidden]
        self.flags = flags_by_id(self.services, rows)
        for entry_id, warning in self.services.load_warnings().items():
            if entry_id in self.flags:
                self.flags[entry_id].append(f"load cut: {warning}")
        self.selected &= {e.id for e in rows}
        self._sync_table(table, rows)
        self.rows = rows
        if self.rows:
            index = next((i for i, e in enumerate(self.rows) if e.id == keep_id), None)
            if index is None:
                index = min(keep_row, len(self.rows) - 1)
            if index != table.cursor_row:
                table.move_cursor(row=index, animate=False)
        self._caption()
        self.show_detail()

    def _sync_table(self, table: DataTable, rows: list[Entry]) -> None:
        """Make the table show `rows`, touching only rows that differ. The app reloads
        after every change; clearing and re-adding every row each time was most of what
        an agent's append cost on the UI thread. Rows only arrive at the end (oldest
        first); anything else (an undo bringing an older one back) rebuilds the table."""
        wanted = {e.id for e in rows}
        shown = [key.value for key in table.rows]
        kept = [i for i in shown if i in wanted]
        if kept != [e.id for e in rows[: len(kept)]]:
            table.clear()
            self._shown_cells.clear()
            shown = kept = []
        for entry_id in shown:
            if entry_id not in wanted:
                table.remove_row(entry_id)
                self._shown_cells.pop(entry_id, None)
        for entry in rows[: len(kept)]:
            state = self._row_state(entry)
            if self._shown_cells.get(entry.id) != state:
                for column, value in zip(COLUMNS, self._cells(entry), strict=True):
                    table.update_cell(entry.id, column, value)
                self._shown_cells[entry.id] = state
        for entry in rows[len(kept) :]:
            table.add_row(*self._cells(entry), key=entry.id)
            self._shown_cells[entry.id] = self._row_state(entry)

    def _row_state(self, entry: Entry) -> tuple[Any, ...]:
        """Everything `_cells` reads: equal states show equal rows."""
        return (
            entry.id in self.selected,
            entry.created,
            entry.summary,
            tuple(self.flags.get(entry.id, [])),
            entry.kind,
            entry.scope,
            entry.confidence,
            entry.source.origin,
        )

    def _cells(self, entry: Entry) -> list[Any]:
        flags = self.flags.get(entry.id, [])
        mark = "●" if entry.id in self.selected else " "
        summary = " ".join(entry.summary.split())
        return [
            mark,
            f"{entry.created:%m-%d %H:%M}",
            summary,
            Content.from_markup("[$warning]$f[/]", f="; ".join(flags)) if flags else "",
            entry.kind,
            entry.scope,
            entry.confidence,
            entry.source.origin or "–",
        ]

    def _caption(self) -> None:
        n, sel = len(self.rows), len(self.selected)
        text = f"{n} candidate{'s' if n != 1 else ''} waiting, oldest first"
        if sel:
            text += f"  ·  {sel} selected"
        if not n:
            text = "Nothing waiting for review. New candidates appear here as agents write them."
        if text != self._caption_text:
            self._caption_text = text
            self.query_one("#queue-caption", Static).update(text)

    def current_entry(self) -> Entry | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def targets(self) -> list[str]:
        """The selection, or the row under the cursor when nothing is selected."""
        if self.selected:
            return [e.id for e in self.rows if e.id in self.selected]
        entry = self.current_entry()
        return [entry.id] if entry else []

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def show_detail(self) -> None:
        entry = self.current_entry()
        flags = self.flags.get(entry.id, []) if entry else []
        last = self._shown_detail
        # The same entry object (the cache swaps it when its file changes), same flags.
        if entry is not None and last and last[0] is entry and last[1] == tuple(flags):
            return
        self._shown_detail = (entry, tuple(flags)) if entry else None
        shown = [f for f in flags if f not in (entry.flags if entry else {})]
        self.query_one("#queue-detail-text", Static).update(entry_detail(entry, flags=shown))

    # -- selection -----------------------------------------------------------------
    def action_toggle_select(self) -> None:
        entry = self.current_entry()
        if entry is None:
            return
        self.selected ^= {entry.id}
        table = self.query_one(DataTable)
        table.update_cell(entry.id, "mark", "●" if entry.id in self.selected else " ")
        table.move_cursor(row=min(table.cursor_row + 1, len(self.rows) - 1))
        self._caption()

    def action_select_all(self) -> None:
        ids = {e.id for e in self.rows}
        self.selected = set() if self.selected >= ids else ids
        table = self.query_one(DataTable)
        for entry in self.rows:
            table.update_cell(entry.id, "mark", "●" if entry.id in self.selected else " ")
        self._caption()

    # -- actions -------------------------------------------------------------------
    def _write(
        self, label: str, fn: Callable[[], Any], then: Callable[[Any], None] | None = None
    ) -> None:
        self.app.write(label, fn, then)  # type: ignore[attr-defined]

    def _hide(self, ids: list[str]) -> None:
        """Take rows out of the list at once; the write follows on the writer thread
        (if it fails, the next reload brings them back)."""
        self.hidden |= set(ids)
        self.selected -= set(ids)
        table = self.query_one(DataTable)
        for entry_id in ids:
            with contextlib.suppress(Exception):
                table.remove_row(entry_id)
        self.rows = [e for e in self.rows if e.id not in self.hidden]
        self._caption()
        self._shown_detail = None
        self.show_detail()

    def _status_action(self, label: str, method: str) -> None:
        ids = self.targets()
        if not ids:
            self.notify("nothing to " + label, severity="warning")
            return
        self._hide(ids)

        def unhide(_result: Any) -> None:
            self.hidden -= set(ids)

        set_status(self, ids, label, method, unhide)

    def action_approve(self) -> None:
        self._status_action("approved", "approve")

    def action_reject(self) -> None:
        self._status_action("rejected", "reject")

    def action_expire(self) -> None:
        self._status_action("expired", "expire")

    def action_clear_flag(self) -> None:
        clear_flag(self, self.current_entry())

    def action_edit(self) -> None:
        entry = self.current_entry()
        if entry is not None:
            edit_entry(self, entry)

    def _pick(self, title: str, then: Callable[[Entry, str], Any]) -> None:
        from memdesk.tui.screens.dialogs import PickEntryScreen

        entry = self.current_entry()
        if entry is None:
            return
        order = {"confirmed": 0, "candidate": 1, "expired": 2, "superseded": 3}
        pool = sorted(self.services.entries(), key=lambda e: order.get(e.status, 9))
        suggestions = self.services.similar(entry, pool)

        def picked(other_id: str | None) -> None:
            if other_id:
                then(entry, other_id)

        self.app.push_screen(PickEntryScreen(title, suggestions), picked)

    def action_supersede(self) -> None:
        def do(entry: Entry, old_id: str) -> None:
            self._hide([entry.id])

            def done(result: Any) -> None:
                self.hidden.discard(entry.id)
                if result is not None:
                    self.notify(f"{entry.id} supersedes {old_id}  (u to undo)")

            self._write(
                "supersede", lambda: self.store.supersede(old_id, entry.id, actor=ACTOR), done
            )

        entry = self.current_entry()
        label = entry.summary[:40] if entry else ""
        self._pick(f"Which entry does “{label}” replace?", do)

    def action_merge(self) -> None:
        def do(entry: Entry, target_id: str) -> None:
            self._hide([entry.id])

            def done(result: Any) -> None:
                self.hidden.discard(entry.id)
                if result is not None:
                    self.notify(f"merged {entry.id} into {target_id}  (u to undo)")

            self._write(
                "merge", lambda: self.store.merge_into(entry.id, target_id, actor=ACTOR), done
            )

        entry = self.current_entry()
        label = entry.summary[:40] if entry else ""
        self._pick(f"Merge “{label}” into which entry?", do)
