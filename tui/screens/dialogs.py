"""Modal dialogs: the error dialog, the edit form and the entry picker."""

from __future__ import annotations

import datetime as dt
import traceback
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

from memdesk.core.entry import CONFIDENCES, KINDS, SCOPES, Entry
from memdesk.core.errors import describe_error
from memdesk.core.store import StoreError
from memdesk.tui.actions import bindings_for
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

ResultType = TypeVar("ResultType")


def show_error(app: App[Any], error: BaseException | None, where: str = "") -> None:
    """What a person can fix (a broken settings file, a store that cannot be written)
    is one line; a bug is a dialog with the details to copy."""
    if isinstance(error, StoreError | ValueError | OSError):
        app.notify(describe_error(error), title=where or "error", severity="error", timeout=10)
        return
    app.push_screen(ErrorDialog(error, where))


class Dialog(ModalScreen[ResultType]):
    """A modal that fits small terminals: the screen has the class `-narrow` below 100
    columns and `-short` below 32 rows, and app.tcss lets the dialog use the whole
    screen then, with its list or fields scrolling and its buttons always in view."""

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [
        (0, "-narrow"),
        (100, "-roomy"),
    ]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [(0, "-short"), (32, "-tall")]


class ErrorDialog(Dialog[None]):
    """What went wrong in background work, readable, with details to copy."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("error")

    def __init__(self, error: BaseException | None, where: str = "") -> None:
        super().__init__()
        self.error = error
        self.where = where

    def compose(self) -> ComposeResult:
        kind = type(self.error).__name__ if self.error else "Error"
        message = str(self.error) if self.error else "unknown error"
        details = "".join(traceback.format_exception(self.error))[-3000:] if self.error else ""
        with Vertical(id="error-box", classes="dialog"):
            yield Static(
                Content.from_markup("[b $error]$k[/] in $w", k=kind, w=self.where or "worker"),
                id="error-title",
            )
            yield Static(Content(message), id="error-message")
            with VerticalScroll(id="error-details"):
                yield Static(Content(details))
            yield Button("Close", id="error-ok", variant="error")

    @on(Button.Pressed, "#error-ok")
    def _close(self) -> None:
        self.dismiss(None)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


def _date_or_none(text: str) -> dt.date | None:
    """The valid-until date typed; a ValueError that names the field otherwise."""
    from memdesk.core.entry import parse_date

    return parse_date(text.strip(), "valid_until")


class EditScreen(Dialog[dict[str, Any] | None]):
    """Edit summary, facts, kind, scope, confidence, valid_until, tags.

    Returns only the fields that changed; the caller writes them with the version it
    opened (`entry.version`) as base, so a change made meanwhile is merged, or becomes a
    conflict, never overwritten."""

    AUTO_FOCUS = "#edit-summary"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("edit_form")

    def __init__(self, entry: Entry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        e = self.entry
        with Vertical(id="edit-box", classes="dialog"):
            yield Static(
                Content.from_markup("[b]Edit $id[/b] (version $v)", id=e.id, v=str(e.version)),
                id="edit-title",
            )
            # The fields scroll on a short terminal; the error and the buttons stay.
            with VerticalScroll(id="edit-fields"):
                yield Label("summary")
                yield Input(e.summary, id="edit-summary")
                yield Label("facts (one per line)")
                yield TextArea("\n".join(e.facts), id="edit-facts", soft_wrap=True)
                yield Label("kind · scope · confidence")
                with Horizontal(classes="edit-row"):
                    yield Select(
                        [(k, k) for k in KINDS], value=e.kind, id="edit-kind", allow_blank=False
                    )
                    yield Select(
                        [(s, s) for s in SCOPES], value=e.scope, id="edit-scope", allow_blank=False
                    )
                    yield Select(
                        [(c, c) for c in CONFIDENCES],
                        value=e.confidence,
                        id="edit-confidence",
                        allow_blank=False,
                    )
                yield Label("valid until · tags")
                with Horizontal(classes="edit-row"):
                    yield Input(
                        e.valid_until.isoformat() if e.valid_until else "",
                        placeholder="valid until YYYY-MM-DD",
                        id="edit-valid-until",
                    )
                    yield Input(
                        ", ".join(e.tags), placeholder="tags, comma separated", id="edit-tags"
                    )
            yield Static("", id="edit-error")
            with Horizontal(id="edit-buttons"):
                yield Button("Save (ctrl+s)", id="edit-save", variant="primary")
                yield Button("Cancel (esc)", id="edit-cancel")

    def on_mount(self) -> None:
        summary = self.query_one("#edit-summary", Input)
        summary.cursor_position = 0  # show the start of a long summary

    def changes(self) -> dict[str, Any]:
        e = self.entry
        wanted: dict[str, Any] = {
            "summary": self.query_one("#edit-summary", Input).value.strip(),
            "facts": [
                line.strip()
                for line in self.query_one("#edit-facts", TextArea).text.splitlines()
                if line.strip()
            ],
            "kind": self.query_one("#edit-kind", Select).value,
            "scope": self.query_one("#edit-scope", Select).value,
            "confidence": self.query_one("#edit-confidence", Select).value,
            "valid_until": _date_or_none(self.query_one("#edit-valid-until", Input).value),
            "tags": [
                t.strip() for t in self.query_one("#edit-tags", Input).value.split(",") if t.strip()
            ],
        }
        if not wanted["summary"]:
            raise ValueError("summary: must not be empty")
        return {k: v for k, v in wanted.items() if getattr(e, k) != v}

    @on(Button.Pressed, "#edit-save")
    def action_save(self) -> None:
        try:
            changes = self.changes()
        except ValueError as exc:
            self.query_one("#edit-error", Static).update(Content(f"⚠ {exc}"))
            return
        self.dismiss(changes)

    @on(Button.Pressed, "#edit-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class PickEntryScreen(Dialog[str | None]):
    """Pick an entry (for supersede / merge); suggestions come ranked by similarity."""

    AUTO_FOCUS = "#pick-list"  # the suggestions; typing a filter is one tab away

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("pick")

    def __init__(self, title: str, suggestions: Sequence[Entry]) -> None:
        super().__init__()
        self.title_text = title
        self.suggestions = list(suggestions)

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-box", classes="dialog"):
            yield Static(Content.from_markup("[b]$t[/b]", t=self.title_text), id="pick-title")
            yield Input(placeholder="filter by id or text", id="pick-filter")
            yield OptionList(id="pick-list")

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, text: str) -> None:
        from memdesk.core.entry import normalise_text

        needle = normalise_text(text)
        options = [
            Option(
                Content.from_markup(
                    "[b]$id[/b] [$text-muted]$st[/] $s", id=e.id, st=e.status, s=e.summary[:90]
                ),
                id=e.id,
            )
            for e in self.suggestions
            if not needle or needle in normalise_text(e.id + " " + e.summary)
        ]
        option_list = self.query_one(OptionList)
        option_list.clear_options()
        option_list.add_options(options)
        if options:
            option_list.highlighted = 0

    def on_key(self, event: events.Key) -> None:
        """Typing anywhere in the picker filters it."""
        box = self.query_one("#pick-filter", Input)
        if event.is_printable and event.character and not box.has_focus:
            box.focus()
            box.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    @on(Input.Changed, "#pick-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#pick-filter")
    def _submit_filter(self) -> None:
        option_list = self.query_one(OptionList)
        if option_list.option_count:
            self.dismiss(option_list.get_option_at_index(option_list.highlighted or 0).id)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
