"""Every open conflict in one list, and the ways to resolve each.

Four kinds of trouble need a person (design brief, "conflict resolution"):
- `concurrent-edit`: two writers changed the same entry (saved by the store's 3-way merge),
- `conflict-markers`: a `git pull` left `<<<<<<<` markers in an entry file,
- `contradiction`: two live entries about the same thing that say different things,
- `near-duplicate` / `exact-duplicate`: two live entries that say the same thing.

The first two come from `Store.open_conflicts()` and are resolved field by field
(ours / theirs / both / an edited value). Pairs come from `memdesk.core.pairs` (the one
pair finder: the search model's verdicts, word overlap where there is no model). Pairs
are resolved by keeping one and superseding
the other, merging one into the other, or dismissing the pair; dismissals are kept in
`.memdesk/dismissed.json` so a dismissed pair does not come back (unless either text
changes: then it is a new question).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import tomli_w
from memdesk.core.entry import Entry
from memdesk.core.merge import Conflict, resolve
from memdesk.core.pairs import (
    Dismissals,
    Pair,
    find_pairs,
    pair_key,
)
from memdesk.core.toml_errors import loads_toml

FIELD_KINDS: tuple[str, ...] = ("concurrent-edit", "conflict-markers")
PAIR_KINDS: tuple[str, ...] = ("contradiction", "near-duplicate", "exact-duplicate")
KIND_LABELS: dict[str, str] = {
    "concurrent-edit": "edited twice",
    "conflict-markers": "git markers",
    "contradiction": "contradiction",
    "near-duplicate": "near-duplicate",
    "exact-duplicate": "duplicate",
}
_PAIR_KIND = {
    "exact": "exact-duplicate",
    "near": "near-duplicate",
    "contradiction": "contradiction",
}
# Fields holding one choice or one id: "both" cannot join them, so it keeps theirs.
SINGLE_VALUE_FIELDS = frozenset(
    {"kind", "scope", "status", "confidence", "superseded_by", "valid_until"}
)


class ConflictError(ValueError):
    """A resolution that cannot be applied; the message says why, for a person."""


@dataclass
class OpenConflict:
    """One row of the conflict screen."""

    kind: str  # one of FIELD_KINDS + PAIR_KINDS
    key: str  # stable identity (selection in a UI, dismissals)
    ids: list[str]
    title: str
    reason: str
    conflict: Conflict | None = None
    pair: Pair | None = None
    hashes: list[str] = field(default_factory=list)  # text hashes of a pair, for dismissals

    @property
    def is_pair(self) -> bool:
        return self.pair is not None

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "key": self.key,
            "ids": self.ids,
            "title": self.title,
            "reason": self.reason,
        }
        if self.conflict is not None:
            out["fields"] = self.conflict.field_names
            out["path"] = self.conflict.path
        if self.pair is not None:
            out["pair"] = self.pair.to_json()
        return out


# -- listing ---------------------------------------------------------------------------
def list_conflicts(
    store: Any,
    search: Any = None,
    *,
    include_pairs: bool = True,
    lock: AbstractContextManager[Any] | None = None,
    pairs: Sequence[Pair] | None = None,
    entries: Sequence[Entry] | None = None,
) -> list[OpenConflict]:
    """Field conflicts first (they block a clean store), then contradictions, then
    duplicates; dismissed pairs are left out. `lock` is held while reading the store
    only, not while pairs are compared (that can take seconds at 10k entries).
    `pairs` and `entries`: found and read already (the desk keeps both current between
    changes, see `QueuePairs`); found and read here when None."""
    with lock if lock is not None else nullcontext():
        open_conflicts = store.open_conflicts()
        if not include_pairs:
            all_entries: Sequence[Entry] = []
        else:
            all_entries = entries if entries is not None else store.entries()
    items: list[OpenConflict] = []
    for conflict in open_conflicts:
        side = conflict.theirs or conflict.ours or {}
        items.append(
            OpenConflict(
                kind=conflict.kind,
                key=f"{conflict.kind}:{conflict.entry_id}",
                ids=[conflict.entry_id],
                title=_one_line(side.get("summary", "")),
                reason=_field_reason(conflict),
                conflict=conflict,
            )
        )
    if not include_pairs:
        return items
    by_id = {e.id: e for e in all_entries}
    dismissed = Dismissals(store.meta_dir)
    marked = {i.ids[0] for i in items}  # an entry in a field conflict waits for that first
    found = pairs if pairs is not None else find_pairs(list(by_id.values()), search)
    for pair in found:
        a, b = by_id.get(pair.a), by_id.get(pair.b)
        if a is None or b is None or a.id in marked or b.id in marked:
            continue
        key = pair_key(a.id, b.id)
        hashes = [a.text_hash, b.text_hash]
        if dismissed.contains(key, hashes):
            continue
        items.append(
            OpenConflict(
                kind=_PAIR_KIND[pair.type],
                key=key,
                ids=[a.id, b.id],
                title=_one_line(b.summary),
                reason=pair.reason,
                pair=pair,
                hashes=hashes,
            )
        )
    order = {k: i for i, k in enumerate((*FIELD_KINDS, *PAIR_KINDS))}
    items.sort(key=lambda i: (order.get(i.kind, 99), i.key))
    return items


def _one_line(text: str, width: int = 80) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _field_reason(conflict: Conflict) -> str:
    names = ", ".join(conflict.field_names) or "no field"
    if conflict.kind == "conflict-markers":
        return f"git conflict markers in {conflict.path}; differing: {names}"
    return f"changed on disk while being edited; conflicting: {names}"


# -- resolving field conflicts -----------------------------------------------------------
def resolve_fields(
    store: Any, item: OpenConflict, choices: dict[str, Any], actor: str = "user"
) -> Entry:
    """Apply per-field choices ("ours" / "theirs" / "both" / a value) and write the
    result atomically through the store; the conflict disappears from the list."""
    if item.conflict is None:
        raise ConflictError(f"{item.key} is not a field conflict")
    return store.resolve_conflict(item.conflict, resolve(item.conflict, choices), actor=actor)


def take_side(store: Any, item: OpenConflict, side: str, actor: str = "user") -> Entry:
    """Resolve every conflicting field the same way: "ours", "theirs" or "both"."""
    if side not in ("ours", "theirs", "both"):
        raise ConflictError(f"unknown side {side!r}; allowed: ours, theirs, both")
    if item.conflict is None:
        raise ConflictError(f"{item.key} is not a field conflict")
    return resolve_fields(store, item, side_choices(item.conflict, side), actor)


def side_choices(conflict: Conflict, side: str) -> dict[str, Any]:
    """The same side for every conflicting field ("both" keeps theirs where it cannot join)."""
    return {
        n: "theirs" if side == "both" and n in SINGLE_VALUE_FIELDS else side
        for n in conflict.field_names
    }


def merge_edit_text(conflict: Conflict, choices: dict[str, Any] | None = None) -> str:
    """The conflicting fields as TOML, prefilled with the merged values (`both` unless a
    choice says otherwise), for a person to edit into the final version."""
    resolved = resolve(conflict, side_choices(conflict, "both") | (choices or {}))
    table = {name: _tomlable(resolved.get(name)) for name in conflict.field_names}
    return tomli_w.dumps(table)


def parse_edit_text(conflict: Conflict, text: str) -> dict[str, Any]:
    """Choices for `resolve_fields` from the edited TOML; a missing field keeps "theirs"."""
    try:
        data = loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConflictError(f"the edited merge is not valid TOML: {exc}") from exc
    unknown = sorted(set(data) - set(conflict.field_names))
    if unknown:
        raise ConflictError(
            f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(conflict.field_names)}"
        )
    choices: dict[str, Any] = {}
    for name in conflict.field_names:
        if name in data:
            value = data[name]
            choices[name] = None if value == "" and name == "valid_until" else _jsonable(value)
    return choices


def _tomlable(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dict):
        return {k: _tomlable(v) for k, v in value.items() if v is not None}
    return value


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# -- resolving pairs ------------------------------------------------------------------------
def keep_one(store: Any, item: OpenConflict, keep_id: str, actor: str = "user") -> Entry:
    """Keep `keep_id` and supersede the other entry of the pair with it."""
    other = _other(item, keep_id)
    _, kept = store.supersede(other, keep_id, actor=actor)
    return kept


def merge_pair(store: Any, item: OpenConflict, into_id: str, actor: str = "user") -> Entry:
    """Fold the other entry of the pair into `into_id` (its text becomes a fact)."""
    return store.merge_into(_other(item, into_id), into_id, actor=actor)


def dismiss(store: Any, item: OpenConflict) -> None:
    """Not a problem: remember it so the pair stays out of the list."""
    if item.pair is None:
        raise ConflictError("only contradictions and duplicates can be dismissed")
    Dismissals(store.meta_dir).add(item.key, item.hashes, item.kind)


def _other(item: OpenConflict, chosen: str) -> str:
    if item.pair is None or chosen not in item.ids:
        raise ConflictError(f"{chosen} is not one of {', '.join(item.ids)}")
    return item.ids[1] if item.ids[0] == chosen else item.ids[0]
