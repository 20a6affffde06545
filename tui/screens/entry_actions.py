"""Entry actions shared by the queue and the browser (one way to edit, one way to set
a status), all through `app.write`: the writer thread, actor "tui", common errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memdesk.core.entry import Entry
from textual.screen import Screen

ACTOR = "tui"


def set_status(
    screen: Screen,
    ids: Sequence[str],
    label: str,
    method: str,
    then: Callable[[Any], None] | None = None,
) -> None:
    """approve / reject / expire `ids` in one journaled group; notify when done."""
    ids = list(ids)
    store = screen.app.store  # type: ignore[attr-defined]

    def done(result: Any) -> None:
        if then is not None:
            then(result)
        if result is not None:
            shown = ", ".join(ids[:3]) + (f" +{len(ids) - 3}" if len(ids) > 3 else "")
            screen.notify(f"{label}: {shown}  (u to undo)")

    # The write is named by its verb: a refusal reads "approve: not done".
    screen.app.write(method, lambda: getattr(store, method)(ids, actor=ACTOR), done)  # type: ignore[attr-defined]


def clear_flag(screen: Screen, entry: Entry | None) -> None:
    """The person has read a flagged entry and vouches for it (journaled, undoable):
    the guard's flag goes until the flagged words change."""
    from memdesk.core.guard import FLAG_NAMES

    flag = next((name for name in FLAG_NAMES if entry is not None and name in entry.flags), None)
    if entry is None or flag is None:
        screen.notify("no guard flag on this entry", severity="warning")
        return
    store = screen.app.store  # type: ignore[attr-defined]

    def done(result: Any) -> None:
        if result is not None:
            screen.notify(f"cleared {flag}: {entry.id}  (u to undo)")

    screen.app.write(  # type: ignore[attr-defined]
        "clear flag", lambda: store.clear_flag(entry.id, flag, actor=ACTOR), done
    )


def edit_entry(screen: Screen, entry: Entry) -> None:
    """Open the edit form; save with the version shown as base, so a change made on
    disk meanwhile is merged field by field or becomes a saved conflict."""
    from memdesk.tui.screens.dialogs import EditScreen

    store = screen.app.store  # type: ignore[attr-defined]
    base_version = entry.version

    def save(changes: dict[str, Any] | None) -> None:
        if not changes:
            return

        def done(result: Any) -> None:
            if result is not None:
                screen.notify(f"saved {entry.id} (version {result.version})")

        screen.app.write(  # type: ignore[attr-defined]
            "edit",
            lambda: store.edit(entry.id, changes, base_version=base_version, actor=ACTOR),
            done,
        )

    screen.app.push_screen(EditScreen(entry), save)
