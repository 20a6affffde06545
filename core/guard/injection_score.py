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

from memdesk.core.guard.injection_features import FEATURES

THRESHOLD = 1.0
HIDDEN_BONUS = 0.5
_WEIGHT = {feature.name: feature.weight for feature in FEATURES}
_CARRIED = frozenset(
    {"address", "authority", "override", "obey_here", "role", "persistence", "consent"}
)
# Features that name what is at stake rather than ask for anything: a decoded log line
# mentioning a token is not an instruction, so they earn no bonus for being hidden.
_OBJECTS = frozenset({"sensitive", "danger", "persistence"})
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")
_CLAUSE = re.compile(r"[,，:：、;；]\s*")
_NEGATION = re.compile(
    r"(?i)\b(?:never|not|don'?t|do\s+not|must\s+not|shouldn'?t|can'?t|cannot|avoid|no)\b|"
    r"不要|别|禁止|不得|切勿|不能|不可"
)
_MAX_SENTENCE = 600  # characters of one sentence looked at: bounds the work on a blob


@dataclass(frozen=True)
class Score:
    value: float
    features: tuple[str, ...]


def _features_of(sentence: str) -> set[str]:
    found: set[str] = set()
    clauses: list[tuple[int, str]] | None = None
    for feature in FEATURES:
        if not feature.negatable:
            if feature.pattern.search(sentence):
                found.add(feature.name)
            continue
        if clauses is None:
            clauses, at = [], 0
            for clause in _CLAUSE.split(sentence):
                clauses.append((at, clause))
                at += len(clause)
        for _, clause in clauses:
            match = feature.pattern.search(clause)
            if match and not _NEGATION.search(clause[: match.start()]):
                found.add(feature.name)
                break
    return found


def score(text: str, hidden: bool = False) -> Score:
    """The highest-scoring sentence (with what it carries over) of one reading."""
    best = Score(0.0, ())
    carried: set[str] = set()
    for sentence in _SENTENCE_END.split(text):
        if not sentence or not sentence.strip():
            continue
        own = _features_of(sentence[:_MAX_SENTENCE])
        together = own | carried
        value = sum(_WEIGHT[name] for name in together)
        if hidden and together - _OBJECTS:
            value += HIDDEN_BONUS
        if value > best.value:
            best = Score(round(value, 2), tuple(sorted(together)))
        carried = own & _CARRIED
    return best
