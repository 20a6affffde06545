"""Finding the pairs the desk shows: the search model's verdicts where there is one,
word overlap for what it misses (and for everything without a model), dismissals left
out. The queue flags, the conflict screen and `memdesk conflicts` all list these."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry
from memdesk.core.pairs.dense import find_duplicates
from memdesk.core.pairs.dismissals import Dismissals
from memdesk.core.pairs.lexical import lexical_pairs
from memdesk.core.pairs.pair import Pair, ordered, sorted_key

LIVE_STATUSES: tuple[str, ...] = ("candidate", "confirmed")


def open_pairs(
    entries: Sequence[Entry],
    meta_dir: Path,
    search: Any = None,
    focus: set[str] | None = None,
) -> list[Pair]:
    """The pairs the conflict screen lists (dismissed ones left out): also what the
    review queue flags, so the two never disagree. `focus`: only pairs touching these
    ids (the queue needs the candidates' pairs, not all of them; `QueuePairs` keeps
    that list current between changes)."""
    by_id = {e.id: e for e in entries}
    dismissed = Dismissals(meta_dir)
    out: list[Pair] = []
    for pair in find_pairs(entries, search, focus=focus):
        a, b = by_id.get(pair.a), by_id.get(pair.b)
        if a is None or b is None:
            continue
        if dismissed.contains_pair(a, b):
            continue
        out.append(pair)
    return out


def find_pairs(
    entries: Sequence[Entry], search: Any = None, focus: set[str] | None = None
) -> list[Pair]:
    """Contradicting and duplicate pairs among live entries.

    The search service's finder (embeddings) when it is there, exact hashes otherwise;
    plus the lexical stand-in for pairs neither found."""
    live = [e for e in entries if e.status in LIVE_STATUSES]
    pairs = {sorted_key(p.a, p.b): p for p in finder_pairs(live, search, focus)}
    # Word overlap catches rewordings a model scores below its near-duplicate cut
    # (and everything when there is no model); the model's verdict wins where it has one.
    for p in lexical_pairs(live, focus=focus):
        pairs.setdefault(sorted_key(p.a, p.b), p)
    return ordered(pairs.values())


def finder_pairs(live: Sequence[Entry], search: Any, focus: set[str] | None) -> list[Pair]:
    """The search service's pairs among `live` (exact hashes only without it, or when it
    fails); with `focus`, only those touching it."""
    found: list[Any] = []
    if search is not None and getattr(search, "duplicates", None) is not None:
        try:
            found = list(search_duplicates(search, live, focus))
        except Exception:  # a broken index must not hide the field conflicts
            found = []
    if not found:
        found = find_duplicates(live, focus=focus)  # no vectors: exact hashes only
    out = []
    for p in found:
        if focus is not None and p.a not in focus and p.b not in focus:
            continue
        method = "hash" if p.type == "exact" else "semantic"
        out.append(Pair(p.a, p.b, p.type, float(p.score), p.reason, method))
    return out


def search_duplicates(search: Any, live: Sequence[Entry], focus: set[str] | None) -> Any:
    """`search.duplicates(live, focus=…)`; a finder without `focus` gets the whole list
    (the caller filters)."""
    if focus is not None:
        with contextlib.suppress(TypeError, ValueError):
            if "focus" in inspect.signature(search.duplicates).parameters:
                return search.duplicates(live, focus=focus)
    return search.duplicates(live)
