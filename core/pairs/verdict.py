"""One verdict for two entries and their similarity: exact, near, contradiction or none.

Every finder asks this function, so a pair is called the same thing on the queue, the
conflict screen, `memdesk duplicates` and in a consolidation plan. The rules, in order:
1. the same normalised text: exact;
2. linked by a supersede already: settled, no pair;
3. same kind and scope, about the same subject, each side naming values the other does
   not, and change wording on either side ("switched to", "not", 改用) above
   `contradiction`, or a differing number on each side above `number_contradiction`:
   contradiction;
4. `duplicate` or more: near;
5. same kind and scope, same subject, nothing changed (no change wording, no differing
   number, not each side naming a thing the other does not), `rephrase` or more: near
   (a rephrasing).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from memdesk.core.entry import Entry, linked
from memdesk.core.pairs.features import (
    as_written,
    has_change_cue,
    has_number,
    identifiers,
    value_tokens,
)
from memdesk.core.pairs.thresholds import SAME_SUBJECT_SHARE, PairThresholds


@dataclass(frozen=True)
class Verdict:
    type: str  # "exact" | "near" | "contradiction"
    reason: str


@dataclass(frozen=True)
class Statement:
    """What the verdict reads of one entry, computed once per entry by finders that
    compare it many times."""

    values: frozenset[str]
    change: bool
    names: frozenset[str]  # identifiers: CamelCase, paths, snake_case, words with digits

    @classmethod
    def of(cls, entry: Entry) -> Statement:
        return _statement_of(entry.search_text())


@functools.lru_cache(maxsize=1 << 15)
def _statement_of(text: str) -> Statement:
    """Memoised (a Statement is immutable): the desk finds the pairs of every entry once
    and each entry sits in several pairs; an unchanged text is read once."""
    return Statement(frozenset(value_tokens(text)), has_change_cue(text), identifiers(text))


def verdict(
    a: Entry,
    b: Entry,
    similarity: float,
    thresholds: PairThresholds,
    *,
    statements: tuple[Statement, Statement] | None = None,
    label: str = "similarity",
) -> Verdict | None:
    """The verdict on a pair; `label` names the similarity in the reason ("similarity",
    "word overlap")."""
    if a.text_hash == b.text_hash:
        return Verdict("exact", "same normalised text")
    if linked(a, b):
        return None
    sa, sb = statements or (Statement.of(a), Statement.of(b))
    if (b.created, b.id) < (a.created, a.id):  # the reason reads older first, as the pair
        a, b, sa, sb = b, a, sb, sa
    shared = sa.values & sb.values
    only_a, only_b = sa.values - sb.values, sb.values - sa.values
    same_slot = a.kind == b.kind and a.scope == b.scope
    same_subject = (
        bool(shared) and len(shared) / min(len(sa.values), len(sb.values)) >= SAME_SUBJECT_SHARE
    )
    change = sa.change or sb.change
    numbers = has_number(only_a) and has_number(only_b)
    if same_slot and same_subject and only_a and only_b:
        why = ""
        if change and similarity >= thresholds.contradiction:
            why = "change wording"
        elif numbers and similarity >= thresholds.number_contradiction:
            why = "different numbers"
        if why:
            shown_a = as_written(sorted(only_a)[:3], a.search_text())
            shown_b = as_written(sorted(only_b)[:3], b.search_text())
            return Verdict(
                "contradiction",
                f"same {a.kind}/{a.scope}, different values {shown_a} vs "
                f"{shown_b} ({why}, {label} {similarity:.2f})",
            )
    if similarity >= thresholds.duplicate:
        return Verdict("near", f"{label} {similarity:.2f}")
    # Each side naming a thing the other does not ("AFrogCharacter has ..." / "AHazardBase
    # has ..."): two facts written from one template, not one fact said twice.
    two_things = bool(sa.names - sb.names) and bool(sb.names - sa.names)
    if (
        same_slot
        and same_subject
        and not change
        and not two_things
        and not has_number(only_a | only_b)
        and similarity >= thresholds.rephrase
    ):
        return Verdict("near", f"rephrased: {label} {similarity:.2f}")
    return None
