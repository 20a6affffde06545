"""Help: every key binding of the screen it was opened from, with what it does."""

from __future__ import annotations

from typing import ClassVar

from memdesk.tui.actions import bindings_for, description_of
from memdesk.tui.screens.dialogs import Dialog
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

HELP_TEXT = (
    "Keys can be remapped in .memdesk/settings.toml, e.g.\n"
    '[keys]\napprove = "A"   # binding id = key\n'
    "ctrl+p opens the command palette with every action."
)


def help_rows(app: App[object]) -> list[tuple[str, str, str, str]]:
    """(key, what it does, binding id, tooltip) for every binding active on the current
    screen (the app's and the screen's, with remapped keys); words from tui/actions.py."""
    rows = []
    for key, active in app.screen.active_bindings.items():
        binding = active.binding
        description = description_of(binding.id or "") or binding.description or binding.action
        rows.append(
            (
                app.get_key_display(binding) or key,
                description,
                binding.id or "",
                binding.tooltip or "",
            )
        )
    return rows


class HelpScreen(Dialog[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("help")

    def __init__(self, rows: list[tuple[str, str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static("[b]Keys[/b]", id="help-title")
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield Static(HELP_TEXT, id="help-note", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action", "binding id")
        # One row per action, all its keys together; the desk's own bindings (with
        # ids, remappable) first, then widget navigation.
        keys: dict[tuple[str, str], list[str]] = {}
        for key, description, binding_id, _tooltip in self.rows:
            shown = keys.setdefault((description, binding_id), [])
            if key not in shown:
                shown.append(key)
        for (description, binding_id), shown in sorted(keys.items(), key=lambda kv: not kv[0][1]):
            table.add_row(", ".join(shown), description, binding_id)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
