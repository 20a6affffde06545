"""The consolidation screen: the plan as a checklist, apply the ticked part, undo it.

Thin over `memdesk.core.consolidate`: building the plan and applying it run in worker
threads (a 10k-entry store takes seconds), the screen only shows and collects choices.
With the desk's `services`, store calls hold `services.lock` (the watcher and index
workers use the store too) and a plan is made afresh whenever the screen is shown.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from memdesk.core.consolidate import ApplyResult, Plan, Proposal, apply, build_plan, undo_apply
from memdesk.tui.actions import bindings_for
from memdesk.tui.widgets import DeskFooter
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

# One cell wide each: an emoji-width glyph (such as an hourglass) shifts the columns and
# is missing from many terminal fonts.
_ICON = {"add": "+", "merge": "⇉", "supersede": "↻", "expire": "◷", "delete": "✗"}


def proposal_label(p: Proposal) -> str:
    safe = " [safe]" if p.safe else ""
    return f"{_ICON[p.action]} {p.action:<9} {' '.join(p.entry_ids)}{safe} — {p.reason}"


class ConsolidationScreen(Screen):
    """Review a consolidation plan: tick proposals, apply them as one batch, undo."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("consolidation")
    DEFAULT_CSS = """
    ConsolidationScreen { background: $background; }
    ConsolidationScreen #consolidation-summary {
        height: auto; padding: 0 1; background: $panel; color: $text;
    }
    ConsolidationScreen #consolidation-body { height: 1fr; }
    ConsolidationScreen #consolidation-list { width: 3fr; border: round $primary; }
    ConsolidationScreen #consolidation-side { width: 2fr; }
    ConsolidationScreen #consolidation-detail {
        height: 1fr; border: round $secondary; padding: 0 1; color: $text;
    }
    ConsolidationScreen #consolidation-sessions {
        height: auto; max-height: 12; border: round $accent; padding: 0 1; color: $text-muted;
    }
    ConsolidationScreen #consolidation-status {
        height: 1; padding: 0 1; background: $boost; color: $text-muted;
    }
    ConsolidationScreen .-error { color: $error; }
    """

    def __init__(self, store: Any, services: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = store
        self.services = services
        self.plan: Plan | None = None
        self.last_result: ApplyResult | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        yield Static("Planning…", id="consolidation-summary")
        with Horizontal(id="consolidation-body"):
            yield SelectionList[str](id="consolidation-list")
            with Vertical(id="consolidation-side"):
                with VerticalScroll(id="consolidation-detail"):
                    yield Static("", id="consolidation-evidence")
                yield Static("", id="consolidation-sessions")
        yield Static("", id="consolidation-status")
        yield DeskFooter()

    def _locked(self) -> Any:
        lock = getattr(self.services, "lock", None)
        return lock if lock is not None else contextlib.nullcontext()

    def on_screen_resume(self) -> None:
        if self.plan is not None:  # shown again (a desk mode): the store may have changed
            self.action_refresh_plan()

    def on_mount(self) -> None:
        self.query_one("#consolidation-list", SelectionList).border_title = "Proposals"
        self.query_one("#consolidation-detail").border_title = "Reason and evidence"
        self.query_one("#consolidation-sessions", Static).border_title = "Recent sessions"
        self.action_refresh_plan()

    # -- planning ---------------------------------------------------------------------
    def action_refresh_plan(self) -> None:
        if self.busy:
            return
        self.busy = True
        self._status("Planning…")
        self._plan_worker()

    @work(thread=True, exclusive=True, group="consolidation")
    def _plan_worker(self) -> None:
        try:
            with self._locked():
                plan = build_plan(self.store, self.services, explicit=True)
        except Exception as exc:  # a bad setting: show it, keep the screen usable
            self.app.call_from_thread(self._failed, f"cannot plan: {exc}")
            return
        self.app.call_from_thread(self._show_plan, plan)

    def _show_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.busy = False
        listing = self.query_one("#consolidation-list", SelectionList)
        listing.clear_options()
        listing.add_options(
            [
                Selection(proposal_label(p), p.id, False, id=f"proposal-{p.id}")
                for p in plan.proposals
            ]
        )
        counts = ", ".join(f"{n} {a}" for a, n in plan.counts().items() if n)
        notes = " · ".join(plan.notes)
        topics = ", ".join(plan.orientation.get("topics", [])) or "-"
        self.query_one("#consolidation-summary", Static).update(
            f"{len(plan.proposals)} proposal(s): {counts or 'nothing to do'}\n"
            f"scope {plan.orientation.get('scope', '?')} · topics: {topics}\n{notes}"
        )
        sessions = plan.orientation.get("sessions", [])
        self.query_one("#consolidation-sessions", Static).update(
            "\n".join(
                f"{s['when'][:16]}  {s['session_id'][:18]}  {s['user_input']}" for s in sessions
            )
            or "no sessions recorded yet"
        )
        self._show_detail(plan.proposals[0] if plan.proposals else None)
        self._status("space: tick/untick · a: apply ticked · e: tick safe expiries · u: undo")
        if plan.proposals:
            listing.focus()

    # -- selection ----------------------------------------------------------------------
    @property
    def ticked(self) -> list[str]:
        return list(self.query_one("#consolidation-list", SelectionList).selected)

    @on(SelectionList.SelectionHighlighted, "#consolidation-list")
    def _highlighted(self, event: SelectionList.SelectionHighlighted) -> None:
        if self.plan is not None:
            self._show_detail(self.plan.by_id(event.selection.value))

    def _show_detail(self, proposal: Proposal | None) -> None:
        evidence = self.query_one("#consolidation-evidence", Static)
        if proposal is None:
            evidence.update("Nothing to consolidate.")
            return
        lines = [f"{proposal.action} {' '.join(proposal.entry_ids)}", "", proposal.reason, ""]
        lines += [f"• {line}" for line in proposal.evidence]
        evidence.update("\n".join(lines))

    def action_tick_safe(self) -> None:
        listing = self.query_one("#consolidation-list", SelectionList)
        for p in self.plan.safe if self.plan else []:
            listing.select(p.id)

    def action_tick_all(self) -> None:
        self.query_one("#consolidation-list", SelectionList).select_all()

    def action_tick_none(self) -> None:
        self.query_one("#consolidation-list", SelectionList).deselect_all()

    # -- applying -----------------------------------------------------------------------
    def action_apply(self) -> None:
        if self.busy or self.plan is None:
            return
        ids = self.ticked
        if not ids:
            self.notify(
                "Tick proposals first (space), or e for the safe expiries.", severity="warning"
            )
            return
        self.busy = True
        self._status(f"Applying {len(ids)} proposal(s)…")
        self._apply_worker(self.plan, ids)

    @work(thread=True, exclusive=True, group="consolidation")
    def _apply_worker(self, plan: Plan, ids: list[str]) -> None:
        try:
            with self._locked():
                result = apply(self.store, plan, ids, actor="tui")
        except Exception as exc:
            warning = getattr(exc, "warning", "")
            self.app.call_from_thread(self._failed, f"{exc} {warning}".strip())
            return
        self.app.call_from_thread(self._applied, result)

    def _applied(self, result: ApplyResult) -> None:
        self.last_result = result
        m = result.metrics
        self.notify(
            f"Applied {len(result.applied)}: {m.merged} merged, {m.superseded} superseded, "
            f"{m.expired} expired, {m.deleted} deleted, {m.added} added (u undoes)"
        )
        self.busy = False
        self.action_refresh_plan()

    def action_undo(self) -> None:
        if self.busy or self.last_result is None:
            if self.last_result is None:
                self.notify("Nothing applied here to undo.", severity="warning")
            return
        self.busy = True
        self._status("Undoing…")
        self._undo_worker(self.last_result)

    @work(thread=True, exclusive=True, group="consolidation")
    def _undo_worker(self, result: ApplyResult) -> None:
        try:
            with self._locked():
                undo_apply(self.store, result, actor="tui")
        except Exception as exc:
            self.app.call_from_thread(self._failed, f"cannot undo: {exc}")
            return
        self.app.call_from_thread(self._undone)

    def _undone(self) -> None:
        self.last_result = None
        self.notify("Consolidation undone.")
        self.busy = False
        self.action_refresh_plan()

    def _failed(self, message: str) -> None:
        self.busy = False
        self._status(message, error=True)
        self.notify(message, severity="error")

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#consolidation-status", Static)
        status.update(text)
        status.set_class(error, "-error")

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
