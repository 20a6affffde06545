"""History: old versions of an entry, and undo / redo, all read from the journal.

A group of journal records is one commit. Undoing a group commits its reversal (an
`undo` group naming it as its target); redoing reverses that undo. Only a person's
groups are undone by default, so pressing undo never eats an agent's fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memdesk.core.entry import Entry, now
from memdesk.core.journal import Journal, JournalRecord
from memdesk.core.safepath import UnsafePath, check_entry_id
from memdesk.core.storage.changes import Op, content, no_nulls
from memdesk.core.storage.errors import StoreError

# Actors whose actions `undo` reverses by default: a person at the CLI or in the TUI.
# Automatic writers (MEMORY.md ingestion, agent flushes, watchers) are not undone by
# a person's undo, so pressing undo never eats an agent's fact.
HUMAN_ACTORS: frozenset[str] = frozenset({"cli", "tui", "user"})

# (logical group, the group whose records last realised it)
GroupPair = tuple[str, str]


@dataclass
class UndoResult:
    group: str
    op: str
    ids: list[str]


def undo_state(
    records: Iterable[JournalRecord], actors: frozenset[str] | None
) -> tuple[list[GroupPair], list[GroupPair]]:
    """Groups that can be undone and redone, oldest first, as (logical group, the
    group whose records last realised it): a redone group is undone by reversing
    the redo, an undone group is redone by reversing the undo."""
    applied: list[GroupPair] = []
    redo_stack: list[GroupPair] = []
    for record in records:
        if actors is not None and record.actor not in actors:
            continue
        if record.op in ("undo", "redo"):
            target = record.target_group
            if record.op == "undo" and any(t == target for t, _ in applied):
                applied = [item for item in applied if item[0] != target]
                redo_stack.append((target, record.group))
            elif record.op == "redo" and any(t == target for t, _ in redo_stack):
                redo_stack = [item for item in redo_stack if item[0] != target]
                applied.append((target, record.group))
        elif record.entry_id and not any(g == record.group for g, _ in applied):
            applied.append((record.group, record.group))
            redo_stack.clear()
    return applied, redo_stack


def reversal(
    journal: Journal, group: str, op: str, find: Callable[[str], Entry | None]
) -> list[Op]:
    """The operations that put every entry of `group` back as it was before it;
    StoreError when an entry changed since (a person resolves that by hand)."""
    records = [r for r in journal.records() if r.group == group and r.entry_id]
    for record in records:
        check = f"{journal.path.name}: a record of group {group}"
        try:
            check_entry_id(record.entry_id, check)
        except UnsafePath as exc:
            raise StoreError(f"cannot {op}: {exc}") from exc
    ops: list[Op] = []
    state: dict[str, Entry | None] = {}
    for record in reversed(records):
        entry_id = record.entry_id
        current = state[entry_id] if entry_id in state else find(entry_id)
        current_version = current.version if current else None
        if content(current.to_json() if current else None) != content(record.after):
            raise StoreError(
                f"cannot {op}: entry {entry_id} was changed since (now version "
                f"{current_version}); edit it by hand or resolve first"
            )
        restored: Entry | None = None
        if record.before is not None:
            restored = Entry.from_dict(no_nulls(record.before))
            history = journal.for_entry(entry_id)
            restored.version = max(current_version or 0, max_version(history, entry_id)) + 1
            restored.updated = now()
        ops.append(Op(op, entry_id, current, restored))
        state[entry_id] = restored
    return ops


def first_op(journal: Journal, group: str, default: str) -> str:
    """What the group did (its first record's op)."""
    first = next((r for r in journal.records() if r.group == group), None)
    return first.op if first else default


def version_of(
    journal: Journal, entry_id: str, version: int, find: Callable[[str], Entry | None]
) -> Entry | None:
    """Rebuild any old version of an entry from the journal."""
    for record in reversed(journal.for_entry(entry_id)):
        for state in (record.after, record.before):
            if state and state.get("version") == version:
                return Entry.from_dict(no_nulls(state))
    current = find(entry_id)
    if current and current.version == version:
        return current
    return None


def max_version(records: list[JournalRecord], entry_id: str) -> int:
    versions = [
        v
        for r in records
        if r.entry_id == entry_id
        for v in (r.version_before, r.version_after)
        if v is not None
    ]
    return max(versions, default=0)
