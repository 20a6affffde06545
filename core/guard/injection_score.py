"""Injections worded in ways no single pattern knows: weighted features that co-occur.

Each sentence of a reading gets the features of `injection_features.py` it shows
(negatable ones only when no negation precedes them in their clause), plus the ones
that set up who speaks and for how long (an address, a claim of authority, a voided
rulebook, a role, "from now on") carried from the sentence before. The weights of the
distinct features add up; a sentence at `THRESHOLD` or above flags the text. A reading
that was hidden from a person (decoded, in an HTML comment, letters disguised) adds
`HIDDEN_BONUS` once it asks for something: hiding an instruction is itself a move.

Ordinary project rules carry one feature, or two weak ones ("Always run pytest" is
persistence; "curl ... | sh" is danger): they stay below the threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdesk.core.guard.injection_features import FEATURES, Feature

THRESHOLD = 1.0
HIDDEN_BONUS = 0.5
_WEIGHT = {feature.name: feature.weight for feature in FEATURES}
_CARRIED = frozenset(
    {"address", "authority", "override", "obey_here", "role", "persistence", "consent"}
)
# Features that name what is at stake rather than ask for anything: a decoded log line
# mentioning a token is not an instruction, so they earn no bonus for being hidden.
_OBJECTS = frozenset({"sensitive", "danger", "persistence", "into_replies"})
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")
# A comma or colon inside a URL or a number does not end a clause (NFKC has made
# Chinese commas ASCII: next to a Han character they still do).
_CLAUSE = re.compile(
    r"[,:;]\s+|(?<=[\u3400-\u9fff])[,:;]\s*|[,:;](?=[\u3400-\u9fff])|[，：、；]\s*"
)
# "No need to ask" and "you don't have to confirm" waive a step; they do not forbid one.
_NEGATION = re.compile(
    r"(?i)\b(?:never|not(?!\s+(?:required|needed|necessary))|(?:don'?t|do\s+not)(?!\s+(?:need|have)\s+to)|"
    r"must\s+not|shouldn'?t|can'?t|cannot|avoid|no(?!\s+(?:need|longer|reason|problem)))\b|"
    r"不要|别|禁止|不得|切勿|不能|不可"
)
_MAX_SENTENCE = 600  # characters of one sentence looked at: bounds the work on a blob


@dataclass(frozen=True)
class Score:
    value: float
    features: tuple[str, ...]


def _features_of(sentence: str, present: list[Feature]) -> set[str]:
    found: set[str] = set()
    clauses: list[str] | None = None
    for feature in present:
        if not feature.negatable:
            if feature.pattern.search(sentence):
                found.add(feature.name)
            continue
        if clauses is None:
            clauses = _CLAUSE.split(sentence)
        for clause in clauses:
            match = feature.pattern.search(clause)
            if match and not _NEGATION.search(clause[: match.start()]):
                found.add(feature.name)
                break
    return found


def features_present(text: str) -> frozenset[str]:
    """The features found anywhere in `text`, negated or not (a cheap upper bound)."""
    return frozenset(feature.name for feature in FEATURES if feature.pattern.search(text))


def score(
    text: str,
    hidden: bool = False,
    visible: frozenset[str] = frozenset(),
    *,
    below_threshold: bool = False,
) -> Score:
    """The highest-scoring sentence (with what it carries over) of one reading.

    `below_threshold`: score sentences even when the reading cannot reach `THRESHOLD`
    (the meaning stage asks whether any move is made at all); otherwise such a reading
    scores 0 without being split.

    `hidden` readings earn the bonus only for features not already `visible` in the
    text as a person sees it: a reading that merely repeats the visible words with
    digits as letters or an escape decoded reveals nothing new.
    """
    best = Score(0.0, ())
    # Features found anywhere in the reading: if all of them together cannot reach the
    # threshold, no sentence can (most text stops here, after one pass per feature).
    present = [feature for feature in FEATURES if feature.pattern.search(text)]
    revealing = {feature.name for feature in present} - _OBJECTS - visible
    bonus = HIDDEN_BONUS if hidden and revealing else 0.0
    if not present or (
        not below_threshold and sum(feature.weight for feature in present) + bonus < THRESHOLD
    ):
        return best
    carried: set[str] = set()
    for sentence in _SENTENCE_END.split(text):
        if not sentence or not sentence.strip():
            continue
        own = _features_of(sentence[:_MAX_SENTENCE], present)
        together = own | carried
        value = sum(_WEIGHT[name] for name in together)
        if together & revealing:
            value += bonus
        if value > best.value:
            best = Score(round(value, 2), tuple(sorted(together)))
        carried = own & _CARRIED
    return best
