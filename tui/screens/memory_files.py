"""The managed memory files: each with its entries, waiting candidates, size, what its
agent loads, and a warning when facts sit past that cut (or an approval would push them
there). `O` orders the highlighted file so what matters most stays above the cut."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from memdesk.core.memfiles.status import FileStatus, file_statuses
from memdesk.core.memfiles.sync import order_files
from memdesk.tui.actions import bindings_for
from memdesk.tui.screens.live import (
    LiveScreen,
    entries_of,
    go_back,
    lock_of,
)
from memdesk.tui.widgets import DeskFooter
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

COLUMNS: tuple[tuple[str, int], ...] = (
    ("file", 30),
    ("format", 19),
    ("entries", 7),
    ("waiting", 7),
    ("lines", 6),
    ("bytes", 7),
    ("agent loads", 17),
    ("", 2),
)
SHOWN_PAST = 8  # entries past the cut listed in the detail pane


class MemoryFilesScreen(LiveScreen):
    """Managed memory files and their agents' load limits."""

    CSS_PATH = "../memory_files.tcss"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("files")

    def __init__(self, store: Any, services: Any = None) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.statuses: list[FileStatus] = []

    def compose(self) -> ComposeResult:
        yield Static("Memory files", id="files-title")
        yield DataTable(id="files-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="files-detail"):
            yield Static("", id="files-detail-text")
        yield DeskFooter()

    def data_changed(self) -> None:
        self.action_reload()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name, width in COLUMNS:
            table.add_column(name, key=name or "warn", width=width)
        self.follow_changes()
        self.action_reload()
        table.focus()

    def action_close(self) -> None:
        go_back(self)

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="memory-files")
    def _load(self) -> None:
        entries = entries_of(self.store, self.services)
        with lock_of(self.store, self.services):
            statuses = file_statuses(self.store, entries)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, statuses)

    def _show(self, statuses: list[FileStatus]) -> None:
        self.statuses = statuses
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for status in statuses:
            table.add_row(
                status.shown_path,
                status.format,
                str(status.entries),
                str(len(status.candidates)),
                str(status.lines),
                str(status.bytes),
                status.limit,
                Content.styled("!", "bold $warning") if status.warning else "",
                key=status.path,
            )
        if statuses:
            table.move_cursor(row=min(max(row, 0), len(statuses) - 1), animate=False)
        warned = sum(1 for s in statuses if s.warning)
        title = f"Memory files · {len(statuses)} managed"
        if warned:
            title += f" · {warned} past a load limit"
        self.query_one("#files-title", Static).update(title)
        self._detail()

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._detail()

    def current(self) -> FileStatus | None:
        row = self.query_one(DataTable).cursor_row
        return self.statuses[row] if 0 <= row < len(self.statuses) else None

    def _detail(self) -> None:
        text = self.query_one("#files-detail-text", Static)
        status = self.current()
        if status is None:
            text.update(
                Content.styled(
                    "No managed memory files. `memdesk adopt PATH` takes one over as it is;"
                    " `memdesk adopt --discover` lists this directory's.",
                    "$text-muted",
                )
            )
            return
        parts: list[Content] = [
            Content.from_markup("[b]$p[/b]  $a", p=status.path, a=status.agent),
            Content.from_markup(
                "[$text-muted]loads[/] $l  [$text-muted]·  read now[/] $n of $t lines",
                l=status.limit,
                n=str(status.cut.loaded_lines),
                t=str(status.cut.lines),
            ),
        ]
        if status.warning:
            parts.append(Content.from_markup("[$warning]⚑ $w[/]", w=status.warning))
        entries = {e.id: e for e in entries_of(self.store, self.services)}
        past = [entries[i].summary for i in status.cut.past if i in entries]
        if past:
            parts.append(Content.styled("past the cut:", "$text-muted"))
            parts.extend(Content(f"  {summary}") for summary in past[:SHOWN_PAST])
            if len(past) > SHOWN_PAST:
                parts.append(Content.styled(f"  … {len(past) - SHOWN_PAST} more", "$text-muted"))
            parts.append(
                Content.styled(
                    "O orders the file so what matters most stays above it", "$text-muted"
                )
            )
        for candidate, pushed in status.pushes.items():
            if not pushed or candidate not in entries:
                continue
            others = [i for i in pushed if i != candidate]
            effect = f"pushes {len(others)} past the cut" if others else "lands past the cut"
            parts.append(
                Content.from_markup(
                    "[$warning]approving[/] $s [$warning]$e[/]",
                    s=entries[candidate].summary,
                    e=effect,
                )
            )
        text.update(Content("\n").join(parts))

    def action_order(self) -> None:
        status = self.current()
        if status is not None:
            self._order(Path(status.path))

    @work(thread=True, exclusive=True, group="memory-files-order")
    def _order(self, path: Path) -> None:
        with lock_of(self.store, self.services):
            results = order_files(self.store, path)
        written = any(r.written for r in results)
        self.app.call_from_thread(
            self.notify, f"{path.name}: {'ordered' if written else 'already in order'}"
        )
        self.app.call_from_thread(self.action_reload)
