"""A table whose columns use the terminal's width.

One column (the summary) takes whatever width the others leave; every other column is
as wide as its widest cell, within a minimum and a maximum. When the table is too
narrow for all of them at once, the columns a reader needs least are left out, in a
set order (the detail pane under the table shows every field anyway), so the summary
never shrinks below a readable width and nothing is cut at the right edge.

Widths follow the content and the size: the table refits after a resize and after
rows change. A new width is set on the column in place (one cell update makes the table
lay out again); only when a column comes or goes is the table rebuilt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.content import Content
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey

SLACK_MINIMUM = 24  # the summary column is never narrower than this


@dataclass(frozen=True)
class FitColumn:
    key: str
    label: str
    minimum: int = 1
    maximum: int = 40
    # 0: always shown; otherwise the highest number is left out first when narrow.
    drop_order: int = 0
    slack: bool = False  # takes the width the others leave (one column per table)


def natural_width(column: FitColumn, widest_cell: int) -> int:
    """The width a column asks for: its widest cell or label, within its bounds."""
    return max(column.minimum, min(column.maximum, max(widest_cell, cell_len(column.label))))


def fit_widths(
    columns: Sequence[FitColumn],
    widest: Mapping[str, int],
    available: int,
    padding: int = 1,
    slack_minimum: int = SLACK_MINIMUM,
) -> dict[str, int]:
    """The width of every column shown (a column left out is absent), filling
    `available` cells when it can. `widest` is each column's widest cell."""
    wanted = {c.key: natural_width(c, widest.get(c.key, 0)) for c in columns if not c.slack}
    shown = list(columns)

    def fixed(cols: Sequence[FitColumn]) -> int:
        return sum(wanted[c.key] + 2 * padding for c in cols if not c.slack)

    def slack_room(cols: Sequence[FitColumn]) -> int:
        slack_columns = sum(1 for c in cols if c.slack)
        return available - fixed(cols) - 2 * padding * slack_columns

    droppable = sorted((c for c in columns if c.drop_order > 0), key=lambda c: -c.drop_order)
    for column in droppable:
        if slack_room(shown) >= slack_minimum:
            break
        shown.remove(column)
    # Still too narrow with only the columns that are always shown: they give way down
    # to their minimum, widest first.
    for column in sorted(
        (c for c in shown if not c.slack), key=lambda c: -(wanted[c.key] - c.minimum)
    ):
        short = slack_minimum - slack_room(shown)
        if short <= 0:
            break
        wanted[column.key] -= min(short, wanted[column.key] - column.minimum)
    widths = {c.key: wanted[c.key] for c in shown if not c.slack}
    for column in shown:
        if column.slack:
            widths[column.key] = max(slack_minimum, slack_room(shown))
    return widths


def cell_width(value: object) -> int:
    """Cells a table cell's value takes on one line."""
    if isinstance(value, str):
        return len(value) if value.isascii() else cell_len(value)
    if isinstance(value, Content):
        return value.cell_length
    if isinstance(value, Text):
        return value.cell_len
    return cell_len(str(value))


class FitTable(DataTable[Any]):
    """A DataTable with `FitColumn`s: add rows with one value per column, in order,
    and update cells by column key, whether the column is shown or left out."""

    def __init__(
        self, columns: Sequence[FitColumn], *, slack_minimum: int = SLACK_MINIMUM, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.fit_columns = tuple(columns)
        self.slack_minimum = slack_minimum
        self.widths: dict[str, int] = {}  # of the columns shown now
        self._keys = tuple(c.key for c in self.fit_columns)
        self._measured = tuple(c.key for c in self.fit_columns if not c.slack)
        self._shown_keys: tuple[str, ...] = ()
        self._values: dict[RowKey, dict[str, Any]] = {}  # row -> column key -> value
        # The widest cell of each column but the slack one, and its row. It grows as rows
        # arrive and is reset by `clear`, not by a row leaving: columns do not jump
        # each time a candidate is approved.
        self._widest: dict[str, int] = {}
        self._widest_row: dict[str, RowKey] = {}
        self._fit_pending = False

    # -- rows, by column key -------------------------------------------------------------
    def add_row(
        self,
        *cells: Any,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> RowKey:
        self._ensure_columns()
        values = dict(zip(self._keys, cells, strict=True))
        row_key = super().add_row(*self._shown(values), height=height, key=key, label=label)
        self._values[row_key] = values
        for column in self._measured:
            self._grow(row_key, column, values[column])
        self._schedule_fit()
        return row_key

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: Any,
        *,
        update_width: bool = False,
    ) -> None:
        self._ensure_columns()
        column = column_key.value if isinstance(column_key, ColumnKey) else column_key
        values = self._values.get(row_key)  # type: ignore[call-overload]
        if values is not None and column is not None:
            values[column] = value
            if column in self._measured:
                self._grow(RowKey(row_key) if isinstance(row_key, str) else row_key, column, value)
        if column in self.widths:
            super().update_cell(row_key, column_key, value, update_width=update_width)
        self._schedule_fit()

    def remove_row(self, row_key: RowKey | str) -> None:
        super().remove_row(row_key)
        self._values.pop(row_key, None)  # type: ignore[call-overload]
        self._schedule_fit()

    def clear(self, columns: bool = False) -> FitTable:
        super().clear(columns)
        self._values.clear()
        self._widest.clear()
        self._widest_row.clear()
        return self

    def _grow(self, row_key: RowKey, column: str, value: object) -> None:
        width = cell_width(value)
        if width > self._widest.get(column, 0):
            self._widest[column] = width
            self._widest_row[column] = row_key

    def _shown(self, values: Mapping[str, Any]) -> list[Any]:
        return [values[key] for key in self._shown_keys]

    # -- fitting -------------------------------------------------------------------------
    def _ensure_columns(self) -> None:
        """Columns exist from the first row on (before the first resize sizes them)."""
        if not self.widths:
            guess = self.app.size.width or 120  # the first resize sizes them for real
            self._rebuild(fit_widths(self.fit_columns, {}, guess, self.cell_padding))

    def on_mount(self) -> None:
        self._ensure_columns()

    def on_resize(self, _event: events.Resize) -> None:
        self.fit()

    def _schedule_fit(self) -> None:
        if not self._fit_pending and self.is_mounted:
            self._fit_pending = True
            self.call_after_refresh(self.fit)

    def available_width(self) -> int:
        """Cells for the columns: the table's width less a vertical scrollbar when the
        rows overflow (rows decide that, never the widths: no back and forth)."""
        width = self.size.width
        header = self.header_height if self.show_header else 0
        if self.row_count + header > self.size.height:
            width -= self.styles.scrollbar_size_vertical
        return width

    def fit(self) -> None:
        """Size the columns to the width and the content; rebuild when that changed."""
        self._fit_pending = False
        if self.size.width <= 0:
            return
        widths = fit_widths(
            self.fit_columns,
            self._widest,
            self.available_width(),
            self.cell_padding,
            self.slack_minimum,
        )
        if widths == self.widths:
            return
        if set(widths) == set(self.widths) and self._resize_in_place(widths):
            return
        self._rebuild(widths)

    def _resize_in_place(self, widths: dict[str, int]) -> bool:
        """Set the new widths on the columns shown; False when that cannot be done.

        Re-setting a cell with `update_width` makes the table recompute its size and
        drop its rendering caches. The cell chosen is the widest of its column, so the
        table measures that one cell, not the whole column."""
        row_key, column = next(
            (
                (self._widest_row[key], key)
                for key in self._shown_keys
                if key in self._widest_row and self._widest_row[key] in self._values
            ),
            (None, ""),
        )
        if row_key is None:
            return False
        for key, width in widths.items():
            self.columns[ColumnKey(key)].width = width
        self.widths = widths
        value = self._values[row_key][column]
        super().update_cell(row_key, column, value, update_width=True)
        return True

    def _rebuild(self, widths: dict[str, int]) -> None:
        """Columns at these widths, the same rows, the cursor where it was."""
        row, scroll = self.cursor_row, self.scroll_offset
        rows = list(self._values.items())
        super().clear(columns=True)
        self.widths = widths
        self._shown_keys = tuple(key for key in self._keys if key in widths)
        for column in self.fit_columns:
            if column.key in widths:
                super().add_column(column.label, key=column.key, width=widths[column.key])
        for row_key, values in rows:
            super().add_row(*self._shown(values), key=row_key.value)
        if rows and row >= 0:
            self.move_cursor(row=min(row, len(rows) - 1), animate=False)
            self.scroll_to(scroll.x, scroll.y, animate=False)
