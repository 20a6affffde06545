"""The conflict screen's list: every open conflict, a window of them at a time.

Textual's OptionList measures every option whenever options are added or one is removed
(at 10k conflicts: seconds on the UI thread, for each change). A person works through
the list from where the cursor is, so the list holds at most `WINDOW` options around
the highlighted conflict and moves that window when the cursor reaches its edge; the
keys move through every conflict as before. A list that fits in the window is the
plain OptionList it was.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

WINDOW = 64


@dataclass(frozen=True)
class Row:
    key: str  # unique among the rows (an option id)
    item: Any  # what `prompt` lays out (only the rows in the window are laid out)
    shown_as: Hashable  # equal for two rows that look the same and mean the same


def shown_as(item: Any) -> tuple[object, ...]:
    """What the list shows of an open conflict (core.conflicts.OpenConflict) and what
    acting on it reads (equal: the option need not be laid out again). Cheap: a list of
    10k conflicts is compared whole."""
    pair = item.pair
    pair_part = (pair.a, pair.b, pair.type, round(pair.score, 4), pair.method) if pair else ()
    conflict = item.conflict
    fields = (conflict.path, tuple(conflict.field_names)) if conflict else ()
    return (item.key, item.kind, tuple(item.ids), item.title, item.reason, tuple(item.hashes),
            pair_part, fields)  # fmt: skip


def rows_of(items: Sequence[Any]) -> list[Row]:
    """The list's rows for open conflicts."""
    return [Row(i.key, i, shown_as(i)) for i in items]


class ConflictList(OptionList):
    """An OptionList over `rows`, `WINDOW` options at a time; `index` counts all rows."""

    def __init__(
        self,
        prompt: Callable[[Any], Content],
        *,
        id: str | None = None,  # noqa: A002
    ) -> None:
        super().__init__(id=id)
        self.prompt = prompt
        self.all_rows: list[Row] = []
        self.window_start = 0  # the first row in the window

    # -- contents -------------------------------------------------------------------------
    def show(self, rows: Sequence[Row], index: int | None) -> None:
        """Show `rows` with row `index` highlighted; options are rebuilt only when what
        the window shows changed."""
        same = [r.shown_as for r in rows] == [r.shown_as for r in self.all_rows]
        self.all_rows = list(rows)
        if not rows:
            if self.option_count:
                self.clear_options()
            self.window_start = 0
            return
        index = 0 if index is None else max(0, min(index, len(rows) - 1))
        if same and self.window_start <= index < self.window_start + self.option_count:
            self.highlighted = index - self.window_start
            return
        self._fill(self._offset_for(index, keep=same), index)

    @property
    def index(self) -> int | None:
        """The highlighted row, counted among all rows."""
        if self.highlighted is None:
            return None
        return self.window_start + self.highlighted

    def _offset_for(self, index: int, keep: bool = False) -> int:
        if len(self.all_rows) <= WINDOW:
            return 0
        if keep and self.window_start <= index < self.window_start + WINDOW:
            return min(self.window_start, len(self.all_rows) - WINDOW)
        return max(0, min(index - WINDOW // 2, len(self.all_rows) - WINDOW))

    def _fill(self, offset: int, index: int) -> None:
        self.window_start = offset
        window = self.all_rows[offset : offset + WINDOW]
        self.set_options([Option(self.prompt(r.item), id=r.key) for r in window])
        self.highlighted = index - offset

    def _move_to(self, index: int) -> None:
        """Highlight row `index`, moving the window when it is outside."""
        if not self.all_rows:
            return
        index = max(0, min(index, len(self.all_rows) - 1))
        if not self.window_start <= index < self.window_start + self.option_count:
            self._fill(self._offset_for(index), index)
        else:
            self.highlighted = index - self.window_start

    # -- keys: past the window's edge the window moves ------------------------------------
    def action_cursor_down(self) -> None:
        index = self.index
        at_window_end = index is not None and self.highlighted == self.option_count - 1
        if at_window_end and index is not None and index + 1 < len(self.all_rows):
            self._move_to(index + 1)
            return
        super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.index is not None and self.highlighted == 0 and self.window_start > 0:
            self._move_to(self.index - 1)
            return
        super().action_cursor_up()

    def action_first(self) -> None:
        if self.window_start > 0:
            self._move_to(0)
            return
        super().action_first()

    def action_last(self) -> None:
        if self.window_start + self.option_count < len(self.all_rows):
            self._move_to(len(self.all_rows) - 1)
            return
        super().action_last()
