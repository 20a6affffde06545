"""Prompt-injection detection: does a text try to instruct the agent that will read it?

Every reading of the text (`normalise.readings`: Unicode folded, invisible characters
removed, look-alike letters made Latin, spaced letters joined, URL escapes, base64, hex,
rot13, tag characters and HTML comments decoded, Traditional Chinese made Simplified)
is matched against `INJECTION_RULES`, phrases that are an attack on their own, then
scored by `injection_score`, weighted intent features that add up per sentence, then
read for meaning (`meaning.py`: a classifier over sentence embeddings, where its model
loads). The strongest finding wins: `suspicious` (kept out of context until a person
clears it) over `review` (shown to the reviewer, injected once approved).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memdesk.core.guard.decoders import decoded_base64
from memdesk.core.guard.injection_rules import INJECTION_RULES, NEGATION, SUSPICIOUS
from memdesk.core.guard.injection_score import THRESHOLD, features_present, score
from memdesk.core.guard.meaning import MIN_CHARS, STAGE
from memdesk.core.guard.normalise import readings

# The move scorer's weakest single move: with one, the meaning stage's lower cut-off
# applies (meaning and moves agree); without any, only its own cut-off.
MOVES_FLOOR = 0.4


@dataclass(frozen=True)
class Finding:
    reason: str
    severity: str  # "suspicious" | "review"

    @property
    def suspicious(self) -> bool:
        return self.severity == SUSPICIOUS


def _negated(text: str, start: int) -> bool:
    """A negation earlier in the same sentence ("Never run X without telling the user")."""
    window = text[max(0, start - 80) : start]
    for end_mark in ("\n", ". ", "! ", "? ", "。", "；", "; "):
        cut = window.rfind(end_mark)
        if cut >= 0:
            window = window[cut + len(end_mark) :]
    return bool(NEGATION.search(window))


def _find_in(text: str) -> Finding | None:
    lowered = text.lower()
    ascii_only = text.isascii()
    weaker: Finding | None = None
    for rule in INJECTION_RULES:
        if weaker is not None and rule.severity != SUSPICIOUS:
            continue
        if rule.needles is None:
            if ascii_only:
                continue
        elif not any(n in lowered for n in rule.needles):
            continue
        for match in rule.pattern.finditer(text):
            if rule.negatable and _negated(text, match.start()):
                continue
            finding = Finding(rule.reason, rule.severity)
            if finding.suspicious:
                return finding
            weaker = weaker or finding
            break
    return weaker


# One word of path or id characters (a locator, a file name, a session id): nothing to
# read as an instruction unless a base64 segment in it decodes to text.
_PLAIN_TOKEN = re.compile(r"[\w.:/@#~+=,-]{1,80}")


def find_injection(text: str) -> Finding | None:
    """The strongest injection finding in any reading of `text`, or None."""
    if not text:
        return None
    if _plain_token(text):
        return None
    weaker: Finding | None = None
    seen = readings(text)
    for reading in seen:
        finding = _find_in(reading.text)
        if finding is None:
            continue
        if finding.suspicious:
            return finding
        weaker = weaker or finding
    visible = features_present(text) if any(r.hidden for r in seen) else frozenset()
    strongest = 0.0
    # Without the meaning stage, no one asks how strong a score below the threshold is.
    below = STAGE.available
    for reading in seen:
        found = score(reading.text, reading.hidden, visible, below_threshold=below)
        if found.value >= THRESHOLD:
            moves = ", ".join(found.features) + (" (hidden)" if reading.hidden else "")
            return Finding(f"combines moves of an injection: {moves}", SUSPICIOUS)
        strongest = max(strongest, found.value)
    meaning = _by_meaning(text, [reading.text for reading in seen], strongest)
    return meaning or weaker


def prepare_meaning(texts: Iterable[str]) -> None:
    """Embed at once what `find_injection` will ask the meaning stage about these texts
    (cached by text there): screening many texts in a row then costs one model call
    instead of one per text. Changes no finding; does nothing without the model."""
    if not STAGE.available:
        return
    STAGE.prefetch(
        [reading.text for reading in readings(text)]
        for text in texts
        if len(text) >= MIN_CHARS and not _plain_token(text)
    )


def _plain_token(text: str) -> bool:
    return bool(text.isascii() and _PLAIN_TOKEN.fullmatch(text) and not decoded_base64(text))


def _by_meaning(text: str, texts: list[str], moves: float) -> Finding | None:
    """The meaning stage's finding (meaning.py), when its model is loaded here."""
    if len(text) < MIN_CHARS:
        return None
    found = STAGE.scores(texts)
    if found is None:
        return None
    whole, sentence = found
    weights = STAGE.weights
    assert weights is not None
    if whole >= weights.threshold or (
        moves >= MOVES_FLOOR and whole >= weights.threshold_with_moves
    ):
        return Finding(f"reads like an injection (meaning model, p={whole:.2f})", SUSPICIOUS)
    if sentence >= weights.sentence_cut_off:
        return Finding(
            f"a sentence reads like an injection (meaning model, p={sentence:.2f})", SUSPICIOUS
        )
    return None


def detect_injection(text: str) -> str | None:
    """The reason `text` looks like a prompt injection (any severity), or None."""
    finding = find_injection(text)
    return finding.reason if finding else None
