"""What `memdesk files`, the queue and the desk show about managed files."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from memdesk.core.entry import Entry
from memdesk.core.memfiles.confine import manifest_refusal
from memdesk.core.memfiles.entries import display_path
from memdesk.core.memfiles.limits import Cut, cut_of, format_of, pushed_past
from memdesk.core.memfiles.manifest import Manifest, all_manifests
from memdesk.core.memfiles.render import render_file
from memdesk.core.memfiles.sync import file_stat, gate_of
from memdesk.core.store import Store


@dataclass
class FileStatus:
    path: str
    shown_path: str
    format: str
    agent: str
    entries: int  # confirmed entries written in the file
    candidates: list[str]  # ids of candidates from this file waiting for review
    lines: int  # as the file is on disk now
    bytes: int
    limit: str  # what the agent loads, said for a person
    cut: Cut  # of the file as memdesk renders it
    pushes: dict[str, list[str]] = field(default_factory=dict)  # candidate -> pushed out
    missing: bool = False  # someone removed the file
    refused: str = ""  # why the file is not read here (a path a cloned repository named)

    @property
    def warning(self) -> str:
        """One line for a person, "" when all is loaded and no approval changes that."""
        parts: list[str] = []
        if self.refused:
            return self.refused
        if self.missing:
            return "the file is missing; memdesk does not write it again by itself"
        if self.cut.over:
            parts.append(
                f"{len(self.cut.past)} entr{'y' if len(self.cut.past) == 1 else 'ies'} past "
                f"the {self.limit} {self.agent} loads"
            )
        pushing = sum(1 for ids in self.pushes.values() if ids)
        if pushing:
            parts.append(f"approving {pushing} waiting candidate(s) would push entries past it")
        return "; ".join(parts)

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "format": self.format,
            "agent": self.agent,
            "entries": self.entries,
            "candidates": len(self.candidates),
            "lines": self.lines,
            "bytes": self.bytes,
            "load_limit": self.limit,
            **self.cut.to_json(),
            "approval_pushes_past_cut": {k: v for k, v in self.pushes.items() if v},
            "missing": self.missing,
            "refused": self.refused,
            "warning": self.warning,
        }


def file_status(
    store: Store, manifest: Manifest, entries: dict[str, Entry], gate: str
) -> FileStatus:
    fmt = format_of(manifest)
    view = manifest.copy()
    rendered = render_file(view, entries, gate)
    ids = manifest.entry_ids()
    waiting = [i for i in ids if i in entries and entries[i].status == "candidate"]
    refused = manifest_refusal(manifest.path, store.root) or ""
    # A refused path is not even looked at (its size says something of someone's file).
    lines, size = (0, 0) if refused else file_stat(manifest.file)
    cut = cut_of(view, rendered)
    return FileStatus(
        path=manifest.path,
        shown_path=display_path(manifest.file, store.root),
        format=fmt.name,
        agent=fmt.agent,
        entries=sum(1 for i in rendered.shown if entries[i].status == "confirmed"),
        candidates=waiting,
        lines=lines,
        bytes=size,
        limit=fmt.limit_text(),
        cut=cut,
        pushes={i: pushed_past(manifest, entries, gate, i, cut) for i in waiting},
        missing=not refused and not manifest.file.exists(),
        refused=refused,
    )


def file_statuses(store: Store, entries: Iterable[Entry] | None = None) -> list[FileStatus]:
    """Every managed file's status; `entries` when the caller has them at hand (reading
    them again from the store costs a stat per entry file)."""
    manifests = all_manifests(store.meta_dir)
    if not manifests:
        return []
    by_id = {e.id: e for e in (store.entries() if entries is None else entries)}
    gate = gate_of(store)
    return [file_status(store, m, by_id, gate) for m in manifests]


def approval_warnings(store: Store, entries: Iterable[Entry] | None = None) -> dict[str, str]:
    """Candidate id -> what approving it would push past its file's load cut."""
    out: dict[str, str] = {}
    for status in file_statuses(store, entries):
        for candidate, pushed in status.pushes.items():
            if not pushed:
                continue
            others = [i for i in pushed if i != candidate]
            if candidate in pushed and not others:
                out[candidate] = (
                    f"lands past the {status.limit} {status.agent} loads of {status.shown_path}"
                )
            else:
                out[candidate] = (
                    f"pushes {len(others)} entr{'y' if len(others) == 1 else 'ies'} past the "
                    f"{status.limit} {status.agent} loads of {status.shown_path}"
                )
    return out


def load_cut_note(store: Store, entries: Iterable[Entry] | None = None) -> str:
    """One line on the managed files whose agents do not see everything (or would not
    after an approval); "" when there is nothing to say."""
    return "; ".join(
        f"{status.shown_path}: {status.warning}"
        for status in file_statuses(store, entries)
        if status.warning
    )
