"""An entry as readers outside the store see it: its fields, the journal's history of
it, and the entries it is linked to (shared by `memdesk show --json` and the MCP `get`
tool, so both describe an entry the same way)."""

from __future__ import annotations

from typing import Any, Protocol

from memdesk.core.entry import Entry
from memdesk.core.journal import JournalRecord


class _Reader(Protocol):
    def find(self, entry_id: str) -> Entry | None: ...

    def history(self, entry_id: str) -> list[JournalRecord]: ...


def history_json(records: list[JournalRecord]) -> list[dict[str, Any]]:
    return [
        {
            "time": r.time,
            "actor": r.actor,
            "op": r.op,
            "version_before": r.version_before,
            "version_after": r.version_after,
            "changes": r.changes,
        }
        for r in records
    ]


def links_json(store: _Reader, entry: Entry) -> list[dict[str, Any]]:
    """The entries this one points at (supersedes, superseded_by, related), with their
    summary and status; a link to an entry that is gone says so (`status: null`)."""
    pairs = [("supersedes", i) for i in entry.supersedes]
    if entry.superseded_by:
        pairs.append(("superseded_by", entry.superseded_by))
    pairs += [("related", i) for i in entry.related]
    out: list[dict[str, Any]] = []
    for relation, other_id in pairs:
        other = store.find(other_id)
        out.append(
            {
                "relation": relation,
                "id": other_id,
                "summary": other.summary if other else None,
                "status": other.status if other else None,
            }
        )
    return out


def describe(store: _Reader, entry: Entry) -> dict[str, Any]:
    """Every field, then `history` (oldest first) and `links`."""
    return {
        **entry.to_json(),
        "history": history_json(store.history(entry.id)),
        "links": links_json(store, entry),
    }
