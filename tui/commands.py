"""The command palette: every action of tui/actions.py that has a palette title."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from memdesk.tui.actions import DeskAction, palette_actions
from textual.app import App
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider, SearchIcon

if TYPE_CHECKING:
    from memdesk.tui.app import MemdeskApp

PALETTE_ICON = ">"


def open_palette(app: App[int]) -> None:
    """Textual's palette, with a search mark every terminal font has (its 🔎 is a box
    in many)."""
    if app.use_command_palette and not CommandPalette.is_open(app):
        palette = CommandPalette(id="--command-palette")
        app.push_screen(palette)
        palette.call_after_refresh(
            lambda: setattr(palette.query_one(SearchIcon), "icon", PALETTE_ICON)
        )


class DeskCommands(Provider):
    """Command palette entries for every desk action."""

    @property
    def desk(self) -> MemdeskApp:
        return self.app  # type: ignore[return-value]

    def _run(self, action: DeskAction) -> partial[object]:
        return partial(self.desk.run_desk_action, action)

    async def discover(self) -> Hits:
        for action in palette_actions():
            yield DiscoveryHit(action.palette, self._run(action), help=action.palette_help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for action in palette_actions():
            score = matcher.match(action.palette)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(action.palette),
                    self._run(action),
                    help=action.palette_help,
                )
