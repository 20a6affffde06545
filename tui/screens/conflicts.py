"""The conflict screen: every open conflict in one list, each side by side, resolved here.

Field conflicts (two writers, or git conflict markers) show base / ours / theirs per
conflicting field with the differences highlighted, and are resolved by taking ours,
theirs, both, or an edited merge. Pairs (contradictions, near-duplicates) show both
entries side by side and are resolved by keeping one (the other is superseded), merging
one into the other, or dismissing the pair. All of it is core/conflicts.py; this module
only lays it out and maps keys to those calls.
"""

from __future__ import annotations

from typing import Any, ClassVar

from memdesk.core.conflicts import (
    ConflictError,
    OpenConflict,
    dismiss,
    keep_one,
    list_conflicts,
    merge_edit_text,
    merge_pair,
    parse_edit_text,
    resolve_fields,
    take_side,
)
from memdesk.core.textdiff import Span, side_by_side, value_text
from memdesk.tui.actions import bindings_for
from memdesk.tui.conflict_list import ConflictList, Row, rows_of
from memdesk.tui.screens.live import (
    LiveScreen,
    go_back,
    lock_of,
    search_of,
)
from memdesk.tui.widgets import DeskFooter
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static, TextArea
from textual.worker import get_current_worker

# Styles use theme variables only, so every theme colours the differences its own way.
STYLE_CHANGED_LEFT = "bold $text-error on $error-muted"
STYLE_CHANGED_RIGHT = "bold $text-success on $success-muted"
STYLE_DIM = "$text-muted"
SIDE_LABELS = {
    "concurrent-edit": ("base", "yours (not saved)", "on disk"),
    "conflict-markers": ("base", "ours (HEAD)", "theirs (incoming)"),
}
RELOAD_DELAY = 0.1  # seconds: a burst of store changes reloads the list once


def spans_content(spans: list[Span], changed_style: str) -> Content:
    if not spans:
        return Content.styled("(empty)", STYLE_DIM)
    return Content.assemble(*[(s.text, changed_style if s.changed else "") for s in spans])


class ConflictsScreen(LiveScreen):
    """Every open conflict; side by side; resolve by ours / theirs / both / edit."""

    CSS_PATH = "../conflicts.tcss"
    # Below 110 columns (class -narrow) the list sits above the detail instead of beside
    # it, so the sides of a conflict get the full width (conflicts.tcss).
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [
        (0, "-narrow"),
        (110, "-wide"),
    ]
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("conflicts")

    def __init__(self, store: Any, services: Any = None) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.items: list[OpenConflict] = []
        self.loaded = False
        self.editing = False
        self._reload_timer: Any = None

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("Conflicts", id="conflicts-title")
        with Horizontal(id="conflicts-body"):
            yield ConflictList(self._row, id="conflict-list")
            with Vertical(id="conflict-detail"):
                yield Static("", id="conflict-reason")
                yield VerticalScroll(id="conflict-sides")
                yield TextArea("", id="merge-editor", soft_wrap=True)
        yield DeskFooter()

    def data_changed(self) -> None:
        self._schedule_reload()

    def on_mount(self) -> None:
        self.query_one("#merge-editor", TextArea).display = False
        self.follow_changes()
        # What the desk found in the background shows at once; the worker then brings
        # it up to date (usually nothing changed, or only what a change touched).
        known = getattr(self.services, "known_conflicts", None)
        if isinstance(known, list):
            # The rows were made with the listing, in the worker (10k at 10k entries).
            self._show_items(known, getattr(self.services, "known_conflict_rows", None))
            if getattr(self.services, "conflicts_current", False):
                return  # listed from the data as it is: nothing to bring up to date
        self.reload()

    # -- loading ------------------------------------------------------------------------
    def action_reload(self) -> None:
        self.reload()

    def reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="conflicts-load")
    def _load(self) -> None:
        worker = get_current_worker()
        listing = getattr(self.services, "conflicts", None)
        if callable(listing):
            if not self.loaded and getattr(self.services, "known_conflicts", None) is None:
                # Nothing found yet (the desk has just started): the field conflicts at
                # once, the pairs when they are found.
                lock = lock_of(self.store, self.services)
                fields = list_conflicts(self.store, include_pairs=False, lock=lock)
                if not worker.is_cancelled:
                    self.app.call_from_thread(self._show_items, fields, None, True)
            # The desk's services keep the pairs between changes (only what changed is
            # looked at again) and the entries read.
            items = listing(cancelled=lambda: worker.is_cancelled)
        else:
            search = search_of(self.services)
            items = list_conflicts(self.store, search, lock=lock_of(self.store, self.services))
        if items is not None and not worker.is_cancelled:
            rows = rows_of(items)
            self.app.call_from_thread(self._show_items, items, rows)

    def _schedule_reload(self) -> None:
        if self.editing:
            return  # never yank the list away under an edit; it reloads after saving
        if self._reload_timer is not None:
            self._reload_timer.stop()
        self._reload_timer = self.set_timer(RELOAD_DELAY, self.reload)

    def _show_items(
        self, items: list[OpenConflict], rows: list[Row] | None = None, finding: bool = False
    ) -> None:
        """Show `items`; `finding`: the pairs are still being looked for."""
        option_list = self.query_one("#conflict-list", ConflictList)
        previous = self.selected
        if rows is None:
            rows = rows_of(items)
        self.items = items
        self.loaded = not finding
        index = 0
        if previous is not None:
            index = next((n for n, i in enumerate(items) if i.key == previous.key), 0)
        option_list.show(rows, index)  # rebuilds its options only when they changed
        title = self.query_one("#conflicts-title", Static)
        if finding:
            title.update(f"Conflicts · {len(items)} open so far · finding pairs…")
            if items:
                option_list.focus()
        elif items:
            title.update(f"Conflicts · {len(items)} open")
            option_list.focus()
        else:
            title.update("Conflicts · none open — nothing to resolve")
        self._show_detail()

    @staticmethod
    def _row(item: OpenConflict) -> Content:
        return Content.assemble(
            (f"{item.label:<15}", "bold $accent"),
            (" ".join(item.ids), "bold"),
            "\n",
            (item.title, STYLE_DIM),
        )

    @property
    def selected(self) -> OpenConflict | None:
        if not self.items:
            return None
        index = self.query_one("#conflict-list", ConflictList).index
        if index is None or not 0 <= index < len(self.items):
            return None
        return self.items[index]

    @on(OptionList.OptionHighlighted, "#conflict-list")
    def _highlighted(self, _: OptionList.OptionHighlighted) -> None:
        if self.editing:
            self._end_edit()
        self._show_detail()

    # -- detail -------------------------------------------------------------------------
    def _show_detail(self) -> None:
        item = self.selected
        reason = self.query_one("#conflict-reason", Static)
        sides = self.query_one("#conflict-sides", VerticalScroll)
        sides.remove_children()
        if item is None:
            reason.update("")
        elif item.conflict is not None:
            reason.update(Content.assemble((item.label, "bold $accent"), " · ", item.reason))
            sides.mount_all(self._field_rows(item))
        else:
            reason.update(Content.assemble((item.label, "bold $warning"), " · ", item.reason))
            sides.mount_all(self._pair_columns(item))
        self.refresh_bindings()

    def _field_rows(self, item: OpenConflict) -> list[Vertical]:
        conflict = item.conflict
        assert conflict is not None
        base_label, ours_label, theirs_label = SIDE_LABELS.get(
            conflict.kind, ("base", "ours", "theirs")
        )
        rows: list[Vertical] = []
        for fc in conflict.fields:
            ours_spans, theirs_spans = side_by_side(value_text(fc.ours), value_text(fc.theirs))
            sides = [
                self._side(ours_label, spans_content(ours_spans, STYLE_CHANGED_LEFT)),
                self._side(theirs_label, spans_content(theirs_spans, STYLE_CHANGED_RIGHT)),
            ]
            if conflict.base is not None:  # no common base (git markers without diff3)
                base_text = Content.styled(value_text(fc.base) or "(none)", STYLE_DIM)
                sides.insert(0, self._side(base_label, base_text))
            name = fc.name if conflict.base is not None else f"{fc.name} (no common base)"
            rows.append(
                Vertical(
                    Static(Content.styled(name, "bold"), classes="field-name"),
                    Horizontal(*sides, classes="field-sides"),
                    classes="field-row",
                )
            )
        return rows

    def _pair_columns(self, item: OpenConflict) -> list[Horizontal]:
        entries = [self.store.find(i) for i in item.ids]
        summaries = [e.summary if e else "" for e in entries]
        left, right = side_by_side(summaries[0], summaries[1])
        columns = []
        for position, (entry, spans, style) in enumerate(
            zip(entries, (left, right), (STYLE_CHANGED_LEFT, STYLE_CHANGED_RIGHT), strict=True)
        ):
            label = "left (1)" if position == 0 else "right (2)"
            if entry is None:
                columns.append(self._side(label, Content.styled("(gone)", STYLE_DIM)))
                continue
            head = Content.assemble(
                (entry.id, "bold"),
                f" · {entry.status} · {entry.kind}/{entry.scope} · {entry.confidence}\n",
            )
            facts = "".join(f"\n- {f}" for f in entry.facts)
            origin = entry.source.origin or "-"
            body = Content.assemble(
                head, spans_content(spans, style), (facts, ""), (f"\nsource: {origin}", STYLE_DIM)
            )
            columns.append(self._side(label, body))
        return [Horizontal(*columns, classes="pair-sides")]

    @staticmethod
    def _side(label: str, body: Content) -> Vertical:
        return Vertical(
            Static(Content.styled(label, STYLE_DIM), classes="side-label"),
            Static(body, classes="side-body"),
            classes="side",
        )

    # -- which keys apply ----------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        item = self.selected
        field_actions = {"take", "edit_merge"}
        pair_actions = {"keep", "merge_pair", "dismiss_pair"}
        if action == "save_merge":
            return self.editing
        if action in field_actions:
            return item is not None and item.conflict is not None and not self.editing
        if action in pair_actions:
            return item is not None and item.pair is not None and not self.editing
        return True

    # -- resolving ---------------------------------------------------------------------------
    def _apply(self, what: str, call: Any) -> None:
        try:
            with lock_of(self.store, self.services):
                call()
        except Exception as exc:  # guard refusal, a newer version on disk, a bad value...
            self.notify(str(exc), title="Not resolved", severity="error", timeout=8)
            return
        self.notify(what, title="Resolved")
        self.reload()
        pairs_changed = getattr(self.app, "pairs_changed", None)
        if pairs_changed is not None:  # in the desk: a dismissal changes the queue's flags
            pairs_changed()

    def action_take(self, side: str) -> None:
        item = self.selected
        if item is None or item.conflict is None:
            return
        self._apply(
            f"{item.ids[0]}: took {side}", lambda: take_side(self.store, item, side, actor="tui")
        )

    def action_keep(self, position: int) -> None:
        item = self.selected
        if item is None or item.pair is None:
            return
        keep, other = item.ids[position], item.ids[1 - position]
        kept = self.store.find(keep)
        # Keeping an entry confirms it (a candidate kept is approved): say so.
        approved = " (approved)" if kept and kept.status in ("candidate", "expired") else ""
        self._apply(
            f"kept {keep}{approved}; {other} superseded",
            lambda: keep_one(self.store, item, keep, actor="tui"),
        )

    def action_merge_pair(self, position: int = 0) -> None:
        item = self.selected
        if item is None or item.pair is None:
            return
        into, other = item.ids[position], item.ids[1 - position]
        self._apply(
            f"merged {other} into {into}", lambda: merge_pair(self.store, item, into, actor="tui")
        )

    def action_dismiss_pair(self) -> None:
        item = self.selected
        if item is None or item.pair is None:
            return
        self._apply(f"dismissed {' / '.join(item.ids)}", lambda: dismiss(self.store, item))

    # -- edited merge ------------------------------------------------------------------------
    def action_edit_merge(self) -> None:
        item = self.selected
        if item is None or item.conflict is None:
            return
        editor = self.query_one("#merge-editor", TextArea)
        editor.load_text(merge_edit_text(item.conflict))
        editor.border_title = f"edit the merge of {item.ids[0]} · ctrl+s saves · esc cancels"
        editor.display = True
        self.editing = True
        self.add_class("-editing")  # a narrow screen gives the list's rows to the editor
        editor.focus()
        self.refresh_bindings()

    def action_save_merge(self) -> None:
        item = self.selected
        if not self.editing or item is None or item.conflict is None:
            return
        text = self.query_one("#merge-editor", TextArea).text
        try:
            choices = parse_edit_text(item.conflict, text)
        except ConflictError as exc:
            self.notify(str(exc), title="Not saved", severity="error", timeout=8)
            return
        self._end_edit()
        self._apply(
            f"{item.ids[0]}: saved the edited merge",
            lambda: resolve_fields(self.store, item, choices, actor="tui"),
        )

    def _end_edit(self) -> None:
        self.editing = False
        self.remove_class("-editing")
        editor = self.query_one("#merge-editor", TextArea)
        editor.display = False
        self.query_one("#conflict-list", OptionList).focus()
        self.refresh_bindings()

    def action_cancel_or_close(self) -> None:
        if self.editing:
            self._end_edit()
        else:
            go_back(self)
