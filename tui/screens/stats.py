"""The stats screen: seed 001's metrics, computed by core/stats.py in a worker."""

from __future__ import annotations

from typing import Any, ClassVar

from memdesk.core.stats import Stats, compute_stats, flatten
from memdesk.tui.actions import bindings_for
from memdesk.tui.screens.live import (
    LiveScreen,
    go_back,
    lock_of,
    search_of,
    today_of,
)
from memdesk.tui.widgets import DeskFooter
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Grid
from textual.content import Content
from textual.widgets import Static
from textual.worker import get_current_worker

BAR_WIDTH = 14


def bars(counts: dict[str, int], width: int = BAR_WIDTH) -> Content:
    """One line per name: count and a bar scaled to the largest count."""
    top = max(counts.values(), default=0) or 1
    name_width = max((len(k) for k in counts), default=0)
    parts: list[str | tuple[str, str]] = []
    for index, (name, count) in enumerate(counts.items()):
        filled = round(width * count / top)
        if count and not filled:
            filled = 1
        parts.extend(
            [
                "\n" if index else "",
                f"{name:<{name_width}} {count:>5} ",
                ("█" * filled, "$accent"),
                ("░" * (width - filled), "$foreground 15%"),
            ]
        )
    return Content.assemble(*parts) if parts else Content.styled("(none)", "$text-muted")


def _kib(n: int) -> str:
    return f"{n / 1024:,.1f} KiB"


def _ms(value: float | None) -> str:
    return "not measured" if value is None else f"{value:.2f} ms"


class StatsScreen(LiveScreen):
    """Store size and composition, expiry, latencies, index and model health."""

    CSS_PATH = "../stats.tcss"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("stats")

    def __init__(self, store: Any, services: Any = None, *, measure: bool = True) -> None:
        super().__init__()
        self.store = store
        self.services = services
        self.measure = measure
        self.stats: Stats | None = None
        self._own_search: Any = None

    def compose(self) -> ComposeResult:
        yield Static("Stats · measuring…", id="stats-title")
        with Grid(id="stats-grid"):
            for panel in (
                "store",
                "status",
                "kind",
                "scope",
                "confidence",
                "expired",
                "latency",
                "index",
                "extra",
            ):
                yield Static("", id=f"stats-{panel}", classes="stats-panel")
        yield DeskFooter()

    def data_changed(self) -> None:
        self._compute_counts()

    def on_mount(self) -> None:
        titles = {
            "store": "Store",
            "status": "By status",
            "kind": "By kind",
            "scope": "By scope",
            "confidence": "Confidence (live)",
            "expired": "Expired per day",
            "latency": "Latency (warm median)",
            "index": "Index & model",
            "extra": "More",
        }
        for name, title in titles.items():
            self.query_one(f"#stats-{name}", Static).border_title = title
        self.follow_changes()
        self.action_recompute()

    def action_recompute(self) -> None:
        self.query_one("#stats-grid").loading = True
        self._compute()

    def action_close(self) -> None:
        go_back(self)

    def _search(self) -> Any:
        """The app's search service; without an app bundle, one opened here (once)."""
        if self.services is not None:
            return search_of(self.services)
        if self._own_search is None:
            try:
                from memdesk.core.search import SearchService

                self._own_search = SearchService.for_store(self.store)
            except Exception:
                self._own_search = False
        return self._own_search or None

    @work(thread=True, exclusive=True, group="stats")
    def _compute(self) -> None:
        search = self._search()
        with lock_of(self.store, self.services):
            stats = compute_stats(
                self.store, search, measure=self.measure, today=today_of(self.services)
            )
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, stats)

    @work(thread=True, exclusive=True, group="stats")
    def _compute_counts(self) -> None:
        """After a store change: counts again, latencies kept from the last measurement."""
        previous = self.stats
        search = self._search()
        with lock_of(self.store, self.services):
            stats = compute_stats(self.store, search, measure=False, today=today_of(self.services))
        if previous is not None:
            stats.search_latency_ms = previous.search_latency_ms
            stats.assembly_latency_ms = previous.assembly_latency_ms
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, stats)

    def _show(self, stats: Stats) -> None:
        self.stats = stats
        self.query_one("#stats-grid").loading = False
        self.query_one("#stats-title", Static).update(
            f"Stats · {getattr(self.app, 'display_dir', stats.root)} · {stats.entries} entries"
        )
        avg = "-" if stats.average_confidence is None else f"{stats.average_confidence:.2f}"
        self._set(
            "store",
            Content.assemble(
                ("entries  ", "$text-muted"),
                f"{stats.entries}\n",
                ("store    ", "$text-muted"),
                f"{_kib(stats.store_bytes)}\n",
                ("files    ", "$text-muted"),
                f"{_kib(stats.entry_bytes)}\n",
                ("journal  ", "$text-muted"),
                f"{_kib(stats.journal_bytes)} · {stats.journal_records} records\n",
                ("index    ", "$text-muted"),
                f"{_kib(stats.index_bytes)}\n",
                ("problems ", "$text-muted"),
                f"{stats.problems} unreadable · {stats.open_conflicts} conflict(s)",
            ),
        )
        self._set("status", bars(stats.by_status))
        self._set("kind", bars(stats.by_kind))
        self._set("scope", bars(stats.by_scope))
        self._set(
            "confidence",
            Content.assemble(bars(stats.by_confidence), ("\naverage ", "$text-muted"), avg),
        )
        expired = (
            bars(dict(list(stats.expired_per_day.items())[-6:]))
            if stats.expired_per_day
            else Content.styled("none in the journal", "$text-muted")
        )
        self._set(
            "expired",
            Content.assemble(expired, ("\ndue now ", "$text-muted"), str(stats.due_to_expire)),
        )
        self._set(
            "latency",
            Content.assemble(
                ("search   ", "$text-muted"),
                _ms(stats.search_latency_ms),
                ("\nassembly ", "$text-muted"),
                _ms(stats.assembly_latency_ms),
            ),
        )
        idx = stats.index
        state_style = "$text-success" if idx.state == "ok" else "$text-warning"
        self._set(
            "index",
            Content.assemble(
                (idx.state, f"bold {state_style}"),
                f" · {idx.documents}/{idx.entries} docs · {idx.vectors} vectors",
                ("\n" + idx.detail if idx.detail else "", "$text-muted"),
                *_model_line(
                    idx.model
                    or str(getattr(self.services, "search_status", ""))
                    or "search not opened"
                ),
            ),
        )
        extra = self.query_one("#stats-extra", Static)
        extra.display = bool(stats.sections)
        if stats.sections:
            lines: list[str] = []
            several = len(stats.sections) > 1
            for name, section in stats.sections.items():
                if several:
                    lines.append(name)
                lines.extend(
                    f"{'  ' if several else ''}{key} {value}"
                    for key, value in flatten(section)
                    if not key.startswith("last.")  # the whole last run: too much here
                )
            extra.update(Content("\n".join(lines)))
            extra.border_title = ", ".join(stats.sections)

    def _set(self, name: str, content: Content) -> None:
        self.query_one(f"#stats-{name}", Static).update(content)


def _model_line(status: str) -> tuple[tuple[str, str], str]:
    """`model <status>`, without saying "model" twice when the status starts with it."""
    if status.startswith("model "):
        return ("\nmodel ", "$text-muted"), status[len("model ") :]
    return ("\nmodel ", "$text-muted"), status
