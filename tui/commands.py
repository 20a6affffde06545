"""Every action of the desk, for the command palette (one table, one provider)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from memdesk.tui.app import MemdeskApp


@dataclass(frozen=True)
class DeskCommand:
    title: str
    help: str
    action: str  # an action name on the target
    target: str  # "app", or the mode whose screen runs it ("queue", "browser")


DESK_COMMANDS: tuple[DeskCommand, ...] = (
    DeskCommand("Review queue", "Show the candidates waiting for review", "show_queue", "app"),
    DeskCommand("Memory browser", "Browse and search all entries", "show_browser", "app"),
    DeskCommand(
        "Conflicts", "Resolve concurrent edits, markers, contradictions", "show_conflicts", "app"
    ),
    DeskCommand("Context preview", "The block an agent would receive", "show_context", "app"),
    DeskCommand("Stats", "Store size, latencies, index health", "show_stats", "app"),
    DeskCommand(
        "Memory files",
        "Managed agent memory files and what their agents load",
        "show_files",
        "app",
    ),
    DeskCommand(
        "Consolidate",
        "Plan merges, supersedes and expiries; apply what you tick",
        "show_consolidation",
        "app",
    ),
    DeskCommand("Approve", "Approve the selected candidates", "approve", "queue"),
    DeskCommand("Reject", "Reject the selected candidates", "reject", "queue"),
    DeskCommand("Edit", "Edit the candidate under the cursor", "edit", "queue"),
    DeskCommand("Supersede", "The candidate replaces an existing entry", "supersede", "queue"),
    DeskCommand("Merge into", "Fold the candidate into an existing entry", "merge", "queue"),
    DeskCommand("Expire", "Expire the selected entries", "expire", "queue"),
    DeskCommand(
        "Toggle selection", "Select or unselect the row under the cursor", "toggle_select", "queue"
    ),
    DeskCommand("Select all", "Select every candidate (again: none)", "select_all", "queue"),
    DeskCommand("Undo", "Undo the last change made by a person", "undo", "app"),
    DeskCommand("Redo", "Redo the last undone change", "redo", "app"),
    DeskCommand("Search memory", "Focus the browser's search box", "focus_search", "browser"),
    DeskCommand(
        "Build search index", "Load the model and index the entries now", "build_index", "app"
    ),
    DeskCommand("Help", "List every key binding", "help", "app"),
    DeskCommand("Quit", "Leave memdesk", "quit", "app"),
)


class DeskCommands(Provider):
    """Command palette entries for every desk action."""

    @property
    def desk(self) -> MemdeskApp:
        return self.app  # type: ignore[return-value]

    async def discover(self) -> Hits:
        for cmd in DESK_COMMANDS:
            yield DiscoveryHit(cmd.title, partial(self.desk.run_desk_command, cmd), help=cmd.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd in DESK_COMMANDS:
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(cmd.title),
                    partial(self.desk.run_desk_command, cmd),
                    help=cmd.help,
                )
