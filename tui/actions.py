"""Every action of the desk, declared once.

One row per (binding id, screen): the key(s) it starts on, what it calls, what the footer
and the help screen say, and, for the actions a person may look for by name, the command
palette's title and help line. The app's and the screens' `BINDINGS`
(`bindings_for(scope)`), the command palette (tui/commands.py), the help screen
(tui/screens/help.py) and the `[keys]` remapping (tui/keymap.py) all read this table, so
adding an action, or changing its key or its words, is one edit here.

`scope` says where a binding lives: "app" (everywhere on the desk), or the screen that
owns it ("queue", "browser", "conflicts", ...). A palette entry runs its action on the
app, or switches to its screen's mode first. Rows of one scope keep their order: it is
the footer's and the help screen's order.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class DeskAction:
    id: str  # binding id: what `[keys]` in settings.toml remaps
    scope: str  # "app" or the screen the binding belongs to
    keys: str  # default keys, comma separated; "" = palette only
    action: str  # action name on the app (scope "app") or on the screen
    description: str  # footer and help text
    show: bool = True  # shown in the footer
    priority: bool = False
    palette: str = ""  # command palette title; "" = not in the palette
    palette_help: str = ""

    @property
    def target(self) -> str:
        """Where the palette runs it: "app", or the mode whose screen runs it."""
        return self.scope

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.action,
            self.description,
            show=self.show,
            priority=self.priority,
            id=self.id,
        )


A = DeskAction

ACTIONS: tuple[DeskAction, ...] = (
    # -- the desk: every screen -----------------------------------------------------------
    A("quit", "app", "q", "quit", "Quit", palette="Quit", palette_help="Leave memdesk"),
    A("help", "app", "question_mark,f1", "help", "Help", palette="Help",
      palette_help="List every key binding"),
    A("show_queue", "app", "v", "show_queue", "Queue", show=False, palette="Review queue",
      palette_help="Show the candidates waiting for review"),
    A("show_browser", "app", "b", "show_browser", "Browser", palette="Memory browser",
      palette_help="Browse and search all entries"),
    A("show_conflicts", "app", "c", "show_conflicts", "Conflicts", palette="Conflicts",
      palette_help="Resolve concurrent edits, markers, contradictions"),
    A("show_context", "app", "p", "show_context", "Context", show=False,
      palette="Context preview", palette_help="The block an agent would receive"),
    A("show_stats", "app", "s", "show_stats", "Stats", show=False, palette="Stats",
      palette_help="Store size, latencies, index health"),
    A("show_files", "app", "f", "show_files", "Memory files", show=False,
      palette="Memory files", palette_help="Managed agent memory files and what their agents load"),
    A("show_consolidation", "app", "o", "show_consolidation", "Consolidate", show=False,
      palette="Consolidate",
      palette_help="Plan merges, supersedes and expiries; apply what you tick"),
    A("undo", "app", "u,ctrl+z", "undo", "Undo", palette="Undo",
      palette_help="Undo the last change made by a person"),
    A("redo", "app", "ctrl+y", "redo", "Redo", show=False, palette="Redo",
      palette_help="Redo the last undone change"),
    A("build_index", "app", "", "build_index", "Build search index",
      palette="Build search index", palette_help="Load the model and index the entries now"),
    # -- the review queue ---------------------------------------------------------------
    A("approve", "queue", "a", "approve", "Approve", palette="Approve",
      palette_help="Approve the selected candidates"),
    A("reject", "queue", "r", "reject", "Reject", palette="Reject",
      palette_help="Reject the selected candidates"),
    A("edit", "queue", "e", "edit", "Edit", palette="Edit",
      palette_help="Edit the candidate under the cursor"),
    A("supersede", "queue", "S", "supersede", "Supersede", palette="Supersede",
      palette_help="The candidate replaces an existing entry"),
    A("merge", "queue", "m", "merge", "Merge into", palette="Merge into",
      palette_help="Fold the candidate into an existing entry"),
    A("expire", "queue", "x", "expire", "Expire", palette="Expire",
      palette_help="Expire the selected entries"),
    A("toggle_select", "queue", "space", "toggle_select", "Select", palette="Toggle selection",
      palette_help="Select or unselect the row under the cursor"),
    A("select_all", "queue", "A", "select_all", "Select all", show=False, palette="Select all",
      palette_help="Select every candidate (again: none)"),
    A("clear_flag", "queue", "", "clear_flag", "Clear guard flag", palette="Clear guard flag",
      palette_help="You read the flagged candidate and trust it: it may reach the context"),
    # -- the memory browser -------------------------------------------------------------
    A("focus_search", "browser", "slash", "focus_search", "Search", palette="Search memory",
      palette_help="Focus the browser's search box"),
    A("approve", "browser", "a", "approve", "Approve"),
    A("edit", "browser", "e", "edit", "Edit"),
    A("expire", "browser", "x", "expire", "Expire"),
    A("focus_table", "browser", "escape", "focus_table", "List", show=False),
    # -- conflicts ----------------------------------------------------------------------
    A("conflicts.take_ours", "conflicts", "o", "take('ours')", "Take ours"),
    A("conflicts.take_theirs", "conflicts", "t", "take('theirs')", "Take theirs"),
    A("conflicts.take_both", "conflicts", "b", "take('both')", "Both"),
    A("conflicts.edit_merge", "conflicts", "e", "edit_merge", "Edit merge"),
    A("conflicts.save_merge", "conflicts", "ctrl+s", "save_merge", "Save merge", priority=True),
    A("conflicts.back", "conflicts", "escape", "cancel_or_close", "Back"),
    A("conflicts.keep_left", "conflicts", "1", "keep(0)", "Keep left"),
    A("conflicts.keep_right", "conflicts", "2", "keep(1)", "Keep right"),
    A("conflicts.merge_into_left", "conflicts", "m", "merge_pair(0)", "Merge into left"),
    A("conflicts.merge_into_right", "conflicts", "M", "merge_pair(1)", "Merge into right"),
    A("conflicts.dismiss", "conflicts", "d", "dismiss_pair", "Dismiss"),
    A("conflicts.reload", "conflicts", "r", "reload", "Reload"),
    # -- context preview ----------------------------------------------------------------
    A("preview.budget_up", "context", "plus,equals_sign", "budget(1)", "Budget +100"),
    A("preview.budget_down", "context", "minus,underscore", "budget(-1)", "Budget −100"),
    A("preview.next_purpose", "context", "p", "next_purpose", "Purpose"),
    A("preview.focus_query", "context", "slash", "focus_query", "Query"),
    A("preview.toggle_candidates", "context", "i", "toggle_candidates", "Candidates"),
    A("preview.toggle_metadata", "context", "m", "toggle_metadata", "Metadata"),
    A("preview.refresh", "context", "r", "refresh_preview", "Refresh"),
    A("preview.back", "context", "escape", "close", "Back"),
    # -- stats ----------------------------------------------------------------------------
    A("stats.recompute", "stats", "r", "recompute", "Measure again"),
    A("stats.back", "stats", "escape", "close", "Back"),
    # -- memory files ---------------------------------------------------------------------
    A("files.order", "files", "O", "order", "Order above the cut"),
    A("files.reload", "files", "r", "reload", "Refresh"),
    A("files.back", "files", "escape", "close", "Back"),
    # -- consolidation --------------------------------------------------------------------
    A("consolidation_apply", "consolidation", "a", "apply", "Apply ticked"),
    A("consolidation_undo", "consolidation", "u", "undo", "Undo apply"),
    A("consolidation_tick_safe", "consolidation", "e", "tick_safe", "Tick safe expiries"),
    A("consolidation_tick_all", "consolidation", "t", "tick_all", "Tick all"),
    A("consolidation_tick_none", "consolidation", "n", "tick_none", "Tick none"),
    A("consolidation_refresh", "consolidation", "r", "refresh_plan", "Re-plan"),
    A("consolidation_close", "consolidation", "escape", "close", "Back", show=False),
    # -- dialogs --------------------------------------------------------------------------
    A("help_close", "help", "escape,q,question_mark,f1", "dismiss", "Close"),
    A("error_close", "error", "escape,enter,q", "dismiss", "Close"),
    A("edit_cancel", "edit_form", "escape", "cancel", "Cancel"),
    A("edit_save", "edit_form", "ctrl+s", "save", "Save"),
    A("pick_cancel", "pick", "escape", "cancel", "Cancel"),
)  # fmt: skip

del A


def bindings_for(scope: str) -> list[BindingType]:
    """The `BINDINGS` of the app ("app") or of one screen, in table order."""
    return [a.binding() for a in ACTIONS if a.scope == scope and a.keys]


def binding_ids() -> set[str]:
    """Every binding id (what `[keys]` may name)."""
    return {a.id for a in ACTIONS if a.keys}


def app_actions() -> frozenset[str]:
    """The action names the app itself runs (off while a dialog is open)."""
    return frozenset(a.action for a in ACTIONS if a.scope == "app")


def palette_actions() -> list[DeskAction]:
    """The command palette's entries: where to go first, then what to do with the review
    queue, then the rest (each group in table order)."""
    listed = [a for a in ACTIONS if a.palette]

    def group(a: DeskAction) -> int:
        if a.action.startswith("show_"):
            return 0
        if a.scope == "queue":
            return 1
        return 3 if a.id in ("help", "quit") else 2

    return sorted(listed, key=group)


def description_of(binding_id: str) -> str:
    """What the help screen says an id does ("" for a binding not in the table)."""
    return next((a.description for a in ACTIONS if a.id == binding_id), "")
