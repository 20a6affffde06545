"""Field-by-field 3-way merge of entries (seed 001's versioned write).

`base` is the version a writer started from, `ours` what that writer wants, `theirs`
what is on disk now. Disjoint changes merge; list fields merge their additions and
removals when both sides edited them; a scalar field changed differently on both sides
is a true conflict, returned for a person to resolve, never silently overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memdesk.core.entry import EDITABLE_FIELDS, Entry

LIST_FIELDS = frozenset({"facts", "tags", "related", "supersedes"})


@dataclass
class FieldConflict:
    name: str
    base: Any
    ours: Any
    theirs: Any


@dataclass
class Conflict:
    """An unresolved 3-way merge of one entry; resolved by choosing per field."""

    entry_id: str
    base: dict[str, Any] | None
    ours: dict[str, Any]
    theirs: dict[str, Any]
    fields: list[FieldConflict]
    merged: dict[str, Any]  # everything that merged cleanly, conflicting fields = theirs
    kind: str = "concurrent-edit"  # or "conflict-markers"
    path: str = ""
    created: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id,
            "kind": self.kind,
            "path": self.path,
            "created": self.created,
            "base": self.base,
            "ours": self.ours,
            "theirs": self.theirs,
            "merged": self.merged,
            "fields": [
                {"name": f.name, "base": f.base, "ours": f.ours, "theirs": f.theirs}
                for f in self.fields
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Conflict:
        return cls(
            entry_id=data["entry_id"],
            base=data.get("base"),
            ours=data["ours"],
            theirs=data["theirs"],
            merged=data["merged"],
            fields=[FieldConflict(**f) for f in data.get("fields", [])],
            kind=data.get("kind", "concurrent-edit"),
            path=data.get("path", ""),
            created=data.get("created", ""),
        )

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]


def redacted_conflict(conflict: Conflict) -> Conflict:
    """The conflict with every secret in it redacted: `ours` is what a writer wanted,
    before the guard saw it, and a saved conflict is a file on disk."""
    from memdesk.core.guard import redact_data

    data, _ = redact_data(conflict.to_json())
    return Conflict.from_json(data)


class MergeConflict(Exception):
    """Raised by a write whose changes overlap a newer version on disk."""

    def __init__(self, conflict: Conflict) -> None:
        self.conflict = conflict
        names = ", ".join(conflict.field_names)
        super().__init__(
            f"entry {conflict.entry_id} changed on disk meanwhile; conflicting field(s): {names}"
        )


@dataclass
class MergeResult:
    merged: dict[str, Any]
    conflicts: list[FieldConflict] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.conflicts


def _merge_list(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any] | None:
    """Apply both sides' additions and removals; None when they cannot be combined."""
    removed_ours = [x for x in base if x not in ours]
    removed_theirs = [x for x in base if x not in theirs]
    added_ours = [x for x in ours if x not in base]
    # An item one side removed and the other re-added in a new form is not a list merge.
    if any(x in added_ours for x in removed_theirs):
        return None
    merged = [x for x in theirs if x not in removed_ours]
    merged.extend(x for x in added_ours if x not in merged)
    return merged


def merge_entry_dicts(
    base: dict[str, Any] | None, ours: dict[str, Any], theirs: dict[str, Any]
) -> MergeResult:
    """Merge entry JSON dicts (Entry.to_json form) field by field."""
    base = base or {}
    merged = dict(theirs)
    conflicts: list[FieldConflict] = []
    for name in EDITABLE_FIELDS:
        b, o, t = base.get(name), ours.get(name), theirs.get(name)
        if o in (t, b):
            continue  # same change, or only theirs changed: keep theirs
        if t == b:
            merged[name] = o  # only ours changed
            continue
        if name in LIST_FIELDS and isinstance(o, list) and isinstance(t, list):
            combined = _merge_list(b or [], o, t)
            if combined is not None:
                merged[name] = combined
                continue
        if name == "source" and isinstance(o, dict) and isinstance(t, dict):
            sub = {k: o.get(k) if t.get(k) == (b or {}).get(k) else t.get(k) for k in {*o, *t}}
            clashing = [
                k
                for k in sub
                if o.get(k) != t.get(k)
                and o.get(k) != (b or {}).get(k)
                and t.get(k) != (b or {}).get(k)
            ]
            if not clashing:
                merged[name] = sub
                continue
        conflicts.append(FieldConflict(name, b, o, t))
    return MergeResult(merged, conflicts)


def merge_entries(base: Entry | None, ours: Entry, theirs: Entry) -> MergeResult:
    return merge_entry_dicts(base.to_json() if base else None, ours.to_json(), theirs.to_json())


def resolve(conflict: Conflict, choices: dict[str, Any]) -> dict[str, Any]:
    """Build the resolved entry dict: for each conflicting field, `choices[name]` is
    "ours", "theirs", "both" (lists: union; text: both joined) or an explicit value."""
    result = dict(conflict.merged)
    for fc in conflict.fields:
        choice = choices.get(fc.name, "theirs")
        if choice == "ours":
            result[fc.name] = fc.ours
        elif choice == "theirs":
            result[fc.name] = fc.theirs
        elif choice == "both":
            result[fc.name] = _both(fc.ours, fc.theirs)
        else:
            result[fc.name] = choice
    return result


def _both(ours: Any, theirs: Any) -> Any:
    if isinstance(ours, list) and isinstance(theirs, list):
        return [*theirs, *[x for x in ours if x not in theirs]]
    if isinstance(ours, str) and isinstance(theirs, str):
        return theirs if ours in theirs else f"{theirs}; {ours}" if theirs else ours
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {**ours, **theirs}
    return theirs
