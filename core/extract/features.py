"""Cue features of one sentence, the input of the learned scorer (learned.py).

Every feature is a number in [0, 1], named so a weights file can be read by a person.
They are the same cues the hand rules use (scoring.py, signals.py): who said it, what
kind of block it sits in, the concrete identifiers it names, directive / reason / lesson
words, seed 001's signals, and what makes a sentence worth less (talking to the person,
reporting what was just done, step labels, requests, one-off time words, hedges).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from memdesk.core.extract import rejects, scoring
from memdesk.core.extract import signals as sig
from memdesk.core.extract.units import units

_KINDS: dict[str, re.Pattern[str]] = {
    "id_path": re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.@+-]+|\b[\w.-]+/[\w.*-]+"),
    "id_file": re.compile(r"\b[\w-]+\.(?:[a-z]{1,5})\b(?![\w(])"),
    "id_version": re.compile(r"\b\d+\.\d+(?:\.\d+)*\b"),
    "id_camel": re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b"),
    "id_snake": re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"),
    "id_code": re.compile(r"`[^`]{2,}`"),
    "id_flag": re.compile(r"(?<!\w)--?[a-z][\w-]+"),
    "id_url": re.compile(r"\b[a-z][a-z0-9+.-]*://\S+"),
}
# A character each kind's pattern cannot match without: most sentences name no path,
# flag or URL, and a substring test is far cheaper than a failed search.
_NEEDS: dict[str, tuple[str, ...]] = {
    "id_path": ("/",),
    "id_file": (".",),
    "id_version": (".",),
    "id_snake": ("_",),
    "id_code": ("`",),
    "id_flag": ("-",),
    "id_url": ("://",),
}
_BOLD_LABEL = re.compile(r"^\*\*[^*]{1,60}\*\*")
_FIRST_PERSON = re.compile(r"^(?:i|we|my|our)\b|^我", re.IGNORECASE)
_IMPERATIVE = re.compile(
    r"^(?:use|run|add|keep|make|put|avoid|do|don['’]t|never|always|prefer|write|call|store|"
    r"create|ensure|set|check|let['’]?s)\b|"
    r"^(?:用|使用|改用|不要|别|別|永远|永遠|总是|總是|优先|優先|避免|保持|确保|確保|记得|記得|务必|務必|"
    r"一律|统一|統一|禁止|只用)",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|no|never|don['’]t|doesn['’]t|isn['’]t|without)\b|不|沒|没|別|别")
_EMPHASIS = re.compile(
    r"\b(?:always|never|must|every|all)\b|必须|必須|一律|永远|永遠|每次|总是|總是|所有|务必|務必|"
    r"绝不|絕不|从不|從不",
    re.I,
)
_DIGITS = re.compile(r"\d+")
_STATUS_MARK = re.compile(r"[\u2600-\u27bf\u2b50\u2b55\U0001f300-\U0001faff]")
_ARROW = re.compile(r"→|->|=>")
_SIGNALS = ("explicit", "rule", "milestone", "lesson", "decision", "preference", "stated")

FEATURES: tuple[str, ...] = (
    "bias",
    "role_person",
    "role_assistant",
    "role_note",
    "block_list",
    "block_quote",
    "block_group",
    "block_pair",
    "identifiers",
    *_KINDS,
    "directive",
    "reason",
    *[f"sig_{name}" for name in _SIGNALS],
    "to_person",
    "report",
    "step_label",
    "request",
    "one_off",
    "hedge",
    "bold_label",
    "first_person",
    "imperative",
    "negation",
    "emphasis",
    "numbers",
    "arrow",
    "words",
    "repeated",
    "question",
    "ask",
    "message_size",
    "opening",
    "status_mark",
    "assistant_group",
    "assistant_list",
    "accepted",
    "person_named",
    "rejected",
)
MESSAGE_SIZE_FULL = 12  # a message of this many sentences counts fully as long


class Context(NamedTuple):
    """Where a sentence sits: the message around it says what kind of words these are.

    A long message of the person is usually a brief (the project, its stack, its rules);
    their first message of a session sets the task; one line is usually a reply. (A
    named tuple: it is part of the key sentences are judged under, hashed per sentence.)"""

    message_sentences: int = 1  # sentences in the message the sentence comes from
    opening: bool = False  # from the person's first message of the transcript
    accepted: bool = False  # an assistant turn the person accepted outright ("yes", "great")
    person_named: float = 0.0  # share of its names the person wrote too (assistant only)
    rejected: bool = False  # a soft reject of the hand rules (a question, a request…)


NO_CONTEXT = Context()
REPEATS_FULL = 4  # a name in this many messages of the transcript counts fully as repeated


def repetition(texts: list[str], message_keys: list[int]) -> list[float]:
    """For each sentence, how often the transcript comes back to the names it holds: the
    number of other messages naming its most repeated identifier, scaled to [0, 1].
    Durable facts are talked about again; one-off details are not."""
    tokens = [scoring.identifier_tokens(text) for text in texts]
    seen: dict[str, set[int]] = {}
    for names, key in zip(tokens, message_keys, strict=True):
        for name in names:
            seen.setdefault(name, set()).add(key)
    out: list[float] = []
    known: dict[frozenset[str], float] = {}  # sentences repeat: each name set once
    for names in tokens:
        value = known.get(names)
        if value is None:
            best = max((len(seen[name]) - 1 for name in names), default=0)
            value = known[names] = min(best, REPEATS_FULL) / REPEATS_FULL
        out.append(value)
    return out


def person_named(texts: list[str], roles: list[str]) -> list[float]:
    """For each assistant sentence, the share of its concrete names the person wrote too,
    anywhere in the transcript: what the person talks about is what they keep."""
    said: set[str] = set()
    for text, role in zip(texts, roles, strict=True):
        if role == "person":
            said |= scoring.identifier_tokens(text)
    out: list[float] = []
    for text, role in zip(texts, roles, strict=True):
        names = scoring.identifier_tokens(text) if role == "assistant" else frozenset()
        out.append(round(len(names & said) / len(names), 2) if names else 0.0)
    return out


def features(
    text: str,
    role: str,
    block: str = "text",
    repeated: float = 0.0,
    context: Context = NO_CONTEXT,
) -> list[float]:
    """The feature vector of a sentence, in FEATURES order. role: person|assistant|note."""
    lowered = text.lower()
    found = sig.signals_of(text, "user")
    count = scoring.identifiers(text)
    cues = scoring.shape(text)
    words = units(text)
    values: dict[str, float] = {
        "bias": 1.0,
        "role_person": float(role == "person"),
        "role_assistant": float(role == "assistant"),
        "role_note": float(role == "note"),
        "block_list": float(block == "list"),
        "block_quote": float(block == "quote"),
        "block_group": float(block == "group"),
        "block_pair": float(block == "pair"),
        "identifiers": min(count, 4) / 4,
        "directive": float(cues.directive),
        "reason": float(cues.reason),
        "to_person": float(cues.to_person),
        "report": float(cues.report),
        "step_label": float(cues.step_label),
        "request": float(sig.cue("request", sig.REQUEST, text, lowered)),
        "one_off": float(sig.cue("one_off", sig.ONE_OFF, text, lowered)),
        "hedge": float(sig.cue("hedge", sig.HEDGE, text, lowered)),
        "bold_label": float(bool(_BOLD_LABEL.match(text))),
        "first_person": float(bool(_FIRST_PERSON.match(text))),
        "imperative": float(bool(_IMPERATIVE.match(text))),
        "negation": float(bool(_NEGATION.search(text))),
        "emphasis": float(bool(_EMPHASIS.search(text))),
        "numbers": min(len(_DIGITS.findall(text)), 4) / 4,
        "arrow": float(("→" in text or ">" in text) and bool(_ARROW.search(text))),
        "words": min(words, 60) / 60,
        "repeated": repeated,
        # Forms the person's rules would have turned away (a question, a one-task
        # request): the model weighs them instead; they may still state a fact
        # ("when I run tools/run_dev.py, ...").
        "question": float(rejects.is_question(text)),
        "ask": float(role == "person" and rejects.is_request(text)),
        "message_size": min(context.message_sentences, MESSAGE_SIZE_FULL) / MESSAGE_SIZE_FULL,
        "opening": float(context.opening),
        # ✅ / ❌ / 🚀 lines are a progress report's, not a fact's
        "status_mark": float(not text.isascii() and bool(_STATUS_MARK.search(text))),
        # the agent's plans and summaries come as lists and grouped lists
        "assistant_group": float(role == "assistant" and block == "group"),
        "assistant_list": float(role == "assistant" and block == "list"),
        "accepted": float(context.accepted),
        "person_named": context.person_named,
        "rejected": float(context.rejected),
    }
    for name, pattern in _KINDS.items():
        needs = _NEEDS.get(name)
        if needs is not None and not any(needle in text for needle in needs):
            values[name] = 0.0
        else:
            values[name] = float(bool(pattern.search(text)))
    for name in _SIGNALS:
        values[f"sig_{name}"] = float(name in found)
    return [values[name] for name in FEATURES]
