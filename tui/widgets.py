"""Widgets shared by the screens: the desk header and footer, and the entry detail pane."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Footer, ProgressBar, Static

# Keys a person must always be able to find, whatever the width: shown first.
ESSENTIAL_ACTIONS = ("help", "quit")
COMPACT_FOOTER_BELOW = 120  # columns: less space between keys on narrower terminals


class DeskHeader(Horizontal):
    """Directory and counts (candidates waiting, conflicts, due to expire), plus the
    progress of long work. Reads `app.header_text` and `app.progress`."""

    def compose(self) -> ComposeResult:
        yield Static(id="desk-title")
        yield Static(id="desk-progress-label")
        yield ProgressBar(id="desk-progress", show_eta=False)

    def on_mount(self) -> None:
        self.watch(self.app, "header_text", self._show_text)
        self.watch(self.app, "progress", self._show_progress)
        self.watch(self.app, "progress_label", self._show_label)

    def _show_label(self, label: str) -> None:
        widget = self.query_one("#desk-progress-label", Static)
        widget.update(label)
        widget.display = bool(label)

    def _show_text(self, text: Content) -> None:
        self.query_one("#desk-title", Static).update(text)

    def _show_progress(self, progress: tuple[int, int] | None) -> None:
        bar = self.query_one("#desk-progress", ProgressBar)
        bar.display = progress is not None
        if progress is not None:
            done, total = progress
            # A stage without counts (loading the model) shows as an indeterminate bar.
            bar.update(total=total if total > 1 else None, progress=done)


class DeskFooter(Footer):
    """The key bar. A narrow terminal cuts its right end, so help and quit come first
    (the screen's own keys follow, then the app's); below 120 columns the keys sit
    closer together."""

    def compose(self) -> ComposeResult:
        # Footer yields one key widget per binding (memdesk defines no binding groups,
        # the one case where it nests them).
        keys: list[Widget] = list(super().compose())
        first = [k for k in keys if getattr(k, "action", None) in ESSENTIAL_ACTIONS]
        yield from first
        yield from (k for k in keys if k not in first)

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_FOOTER_BELOW


def display_dir(root: Path) -> str:
    """The working directory as the header shows it (`~/...` under the home folder)."""
    home = Path.home()
    with contextlib.suppress(ValueError):
        return "~/" + root.relative_to(home).as_posix()
    return str(root)


def header_content(directory: str, counts: dict[str, int], status: str = "") -> Content:
    parts = [
        Content.from_markup("[b]memdesk[/b] $dir", dir=directory),
        Content.from_markup(
            "[$warning]$n[/] waiting" if counts.get("candidates") else "$n waiting",
            n=str(counts.get("candidates", 0)),
        ),
        Content.from_markup(
            "[$error]$n[/] $w" if counts.get("conflicts") else "$n $w",
            n=str(counts.get("conflicts", 0)),
            w="conflict" if counts.get("conflicts") == 1 else "conflicts",
        ),
        Content.from_markup("$n due to expire", n=str(counts.get("due", 0))),
        Content.from_markup(
            "$n $w",
            n=str(counts.get("entries", 0)),
            w="entry" if counts.get("entries") == 1 else "entries",
        ),
    ]
    if status:
        parts.append(Content.from_markup("[$text-muted]$s[/]", s=status))
    return Content("  ·  ").join(parts)


def entry_detail(
    entry: Entry | None,
    *,
    flags: Sequence[str] = (),
    history: Sequence[Any] = (),
    links: Sequence[tuple[str, str]] = (),
) -> Content:
    """The full text of an entry, its facts, source excerpt and provenance."""
    if entry is None:
        return Content.from_markup("[$text-muted]nothing selected[/]")
    lines: list[Content] = [
        Content.from_markup(
            "[b]$id[/b]  v$v  [$accent]$status[/]  $kind / $scope  confidence $conf",
            id=entry.id,
            v=str(entry.version),
            status=entry.status,
            kind=entry.kind,
            scope=entry.scope,
            conf=entry.confidence,
        ),
        Content(""),
        Content.from_markup("[b]$s[/b]", s=entry.summary),
    ]
    if entry.facts:
        lines.append(Content(""))
        lines.append(Content.from_markup("[$text-muted]facts[/]"))
        lines.extend(Content.from_markup("  • $f", f=f) for f in entry.facts)
    for flag in flags:
        lines.append(Content.from_markup("[$warning]⚑ $f[/]", f=flag))
    for name, reason in sorted(entry.flags.items()):
        lines.append(Content.from_markup("[$error]⚠ $n: $r[/]", n=name, r=reason))
    meta = []
    if entry.tags:
        meta.append("tags " + ", ".join(entry.tags))
    if entry.valid_until:
        meta.append(f"valid until {entry.valid_until.isoformat()}")
    meta.append(f"created {entry.created:%Y-%m-%d %H:%M}")
    lines.append(Content(""))
    lines.append(Content.from_markup("[$text-muted]$m[/]", m="  ·  ".join(meta)))
    src = entry.source
    prov = [p for p in (src.origin, src.session_id, src.locator, src.timestamp) if p]
    if prov or src.excerpt:
        lines.append(Content(""))
        lines.append(Content.from_markup("[$text-muted]source[/] $p", p="  ".join(prov)))
        if src.files:
            lines.append(Content.from_markup("  files: $f", f=", ".join(src.files)))
        if src.commands:
            lines.append(Content.from_markup("  commands: $c", c=" ; ".join(src.commands)))
        if src.excerpt:
            for line in src.excerpt.splitlines() or [""]:
                lines.append(Content.from_markup("  [$text-muted]│[/] [i]$l[/i]", l=line))
    for label, target in links:
        lines.append(Content.from_markup("[$accent]$l[/] $t", l=label, t=target))
    if history:
        lines.append(Content(""))
        lines.append(Content.from_markup("[$text-muted]history[/]"))
        for record in history:
            changed = ", ".join(sorted(record.changes)) if record.changes else ""
            lines.append(
                Content.from_markup(
                    "  $t  $op by $actor  v$a  $c",
                    t=(record.time or "")[:16].replace("T", " "),
                    op=record.op,
                    actor=record.actor or "?",
                    a=str(record.version_after if record.version_after is not None else "–"),
                    c=changed,
                )
            )
    return Content("\n").join(lines)
