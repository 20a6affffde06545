"""The command palette: every action of tui/actions.py that has a palette title."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from memdesk.tui.actions import DeskAction, palette_actions
from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from memdesk.tui.app import MemdeskApp


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
