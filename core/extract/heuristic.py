"""Offline extractors: seed 000's `default_extract` exactly, and the default extractor.

`default_extract(messages, opts)` is seed 000's heuristic, rule for rule: user messages
only, split by line, keep non-empty lines that start with a cue prefix
(记住|remember|注意|约定|以后) or contain a cue word (必须|一定|always|never|must), and are
20-200 characters long. It returns plain strings, like the seed.

`extract_candidates(messages, opts)` is the default extractor (docs/extraction.md):

1. sources (agreement.py): the person's own words (`Message.is_person`), assistant
   statements the person agreed to, lines of notes files; never a sub-agent prompt, a
   compaction summary, an injected file, a command wrapper or a tool result; recalled
   `<agent_memory>` blocks are cut out first;
2. sentences (sentences.py): English, Chinese in both scripts, Markdown lists; code
   fences dropped; hard-wrapped lines joined; nothing glued without a space;
3. rejections (rejects.py): fragments, headings, table rows, log lines, tracebacks,
   code, narration, interrupt markers, questions, one-task requests, secrets;
   pairs of neighbouring sentences and the person's soft rejects (a question, a bare
   request) are offered too, for the learned scorer alone (spans.py);
4. scores (scoring.py and the learned scorer, on seed 001's scale) above `threshold`
   (0.6) are kept;
5. near and quoted duplicates collapse into one candidate with both sources
   (collapse.py); the rest is ranked best first. The per-transcript cap
   (`[extractor] max_per_transcript`) is applied by whoever reads a whole transcript
   (transcript.py, the inbox), which counts and reports what it leaves out.

Each candidate keeps its source: session id, timestamp, files and commands mentioned,
the record (`locator`) and the role (`person`, `assistant`, `note`) it came from, and an
excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from memdesk.core.entry import Entry, Source
from memdesk.core.extract.agreement import AGREED, sources_and_replies
from memdesk.core.extract.collapse import Found, collapse
from memdesk.core.extract.features import NO_CONTEXT, Context, person_named, repetition
from memdesk.core.extract.learned import shipped_scorer
from memdesk.core.extract.messages import Message
from memdesk.core.extract.provenance import excerpt_of, mentioned_commands, mentioned_files
from memdesk.core.extract.rejects import INTERRUPTION, has_secret, reject_reason
from memdesk.core.extract.scoring import assistant_score, person_score
from memdesk.core.extract.sentences import split_sentences
from memdesk.core.extract.signals import (
    EXPLICIT,
    THRESHOLD,
    classify,
    confidence_label,
    cue,
    quick_score,
    score,
    signals_of,
)
from memdesk.core.extract.spans import is_soft, pairs
from memdesk.core.guard import is_chitchat


class Scorer(Protocol):
    def score(
        self,
        text: str,
        role: str,
        block: str = "text",
        repeated: float = 0.0,
        context: Context = NO_CONTEXT,
    ) -> float: ...


__all__ = [
    "THRESHOLD",
    "confidence_label",
    "default_extract",
    "extract_candidates",
    "mentioned_commands",
    "mentioned_files",
    "quick_score",
    "score",
    "split_statements",
]

# -- seed 000 ---------------------------------------------------------------------------

SEED_PREFIX = re.compile(r"^(?:记住|remember|注意|约定|以后)", re.IGNORECASE)
SEED_WORDS = re.compile(r"必须|一定|always|never|must", re.IGNORECASE)
SEED_MIN_CHARS = 20
SEED_MAX_CHARS = 200


def default_extract(
    messages: Iterable[Message], opts: Mapping[str, Any] | None = None
) -> list[str]:
    """Seed 000's `default_extract/2`: cue lines of user messages, 20-200 characters."""
    opts = opts or {}
    low = int(opts.get("min_chars", SEED_MIN_CHARS))
    high = int(opts.get("max_chars", SEED_MAX_CHARS))
    facts: list[str] = []
    for message in messages:
        if message.role != "user":
            continue
        for raw in message.text.split("\n"):
            line = raw.strip()
            if not line:
                continue
            if not (SEED_PREFIX.match(line) or SEED_WORDS.search(line)):
                continue
            if low <= len(line) <= high:
                facts.append(line)
    return facts


# -- text helpers -----------------------------------------------------------------------

_RECALLED_BLOCK = re.compile(
    r"<\s*(agent_memory|agent-memory|recalled_memory|memory_context)\b[^>]*>.*?(?:<\s*/\s*\1\s*>|\Z)",
    re.IGNORECASE | re.DOTALL,
)
_FILLER = re.compile(
    r"^(?:(?:记住|请记住|记一下|注意|约定|remember(?: that)?|note(?: that)?|keep in mind(?: that)?|"
    r"说正事|顺便说一下|顺便说下|顺便|另外|还有|对了|哦对|哦|嗯|好吧|原来如此|那就这样修|谢谢|多谢|ok|okay|thanks|also|oh and|"
    r"and|btw|by the way|ah right|fyi|plus)(?![A-Za-z])\s*[:：,，.。!！~～]?\s*)+",
    re.IGNORECASE,
)
# Trailing particles and punctuation dropped from a statement ("...吧", "... lol", "。").
_TRAILING_WORDS: tuple[str, ...] = ("哈", "吧", "呀", "啦", "lol", "btw", "haha")
_TRAILING_PUNCT = "。.!！~～ \t"

_MIN_CHARS = 6


def strip_recalled_blocks(text: str) -> str:
    """Cut `<agent_memory>...</agent_memory>` (memory the agent was given) out of text."""
    if "<" not in text:
        return text
    return _RECALLED_BLOCK.sub(" ", text)


def split_statements(text: str) -> list[str]:
    """Every sentence of a text (sentences.py), flattened."""
    return [sentence.text for sentence in split_sentences(text)]


_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)、])\s+(?:\[[ xX]\]\s+)?")


def clean_statement(text: str) -> str:
    text = _BULLET.sub("", text.strip())
    filler = _FILLER.match(text)
    if filler:
        text = text[filler.end() :]
    return _strip_trailer(text).strip(" ,，:：")


def _strip_trailer(text: str) -> str:
    """Drop trailing punctuation and particles (plain string work: this runs per sentence)."""
    while True:
        trimmed = text.rstrip(_TRAILING_PUNCT)
        lowered = trimmed.lower()
        for word in _TRAILING_WORDS:
            if lowered.endswith(word):
                trimmed = trimmed[: -len(word)]
                break
        if trimmed == text:
            return text
        text = trimmed
    return text.strip(" ,，:：")


# -- the default extractor ----------------------------------------------------------------

# An agreed assistant statement the hand rules rate this high (a named root cause and
# fix) is kept whatever the model says.
STRONG = 0.8

_ROLE_OF = {"person": "person", AGREED: "assistant", "note": "note"}


@dataclass
class Eligible:
    """A sentence that passed the rejection rules, with where it came from."""

    text: str
    role: str  # person | assistant | note
    block: str
    message: Message
    order: int
    raw: str = ""  # the sentence as written, cue words ("remember:") included
    model_only: bool = False  # a soft reject or a pair (spans.py): only the model keeps it
    context: Context = NO_CONTEXT


def eligible_sentences(messages: Iterable[Message]) -> Iterator[Eligible]:
    """Sentences from the sources that may speak for the person, minus the rejected."""
    order = 0
    opening = True
    for message, who, accepted in sources_and_replies(messages):
        role = _ROLE_OF[who]
        count, kept = message_statements(message.text, role)
        context = Context(count, opening and role == "person", accepted)
        for index, statement, block, raw, model_only in kept:
            # a soft reject (not a pair): the hand rules turned it away, the model weighs it
            mine = context._replace(rejected=True) if model_only and block != "pair" else context
            yield Eligible(statement, role, block, message, order + index, raw, model_only, mine)
        order += count
        if role == "person" and count:
            opening = False


# (position in the message, statement, block, sentence as written, model only) of each
# kept sentence or pair.
Statement = tuple[int, str, str, str, bool]


@lru_cache(maxsize=2048)
def message_statements(text: str, role: str) -> tuple[int, tuple[Statement, ...]]:
    """How many sentences a message's text has, and those that pass the rejection rules
    (with the soft rejects and pairs of spans.py, marked "model only").

    A pure function of the text and the role, cached: agents and people repeat
    themselves (pasted instructions, re-sent prompts, restated rules), and splitting and
    rejecting is most of the extractor's time."""
    kept: list[Statement] = []
    sentences = split_sentences(INTERRUPTION.sub("\n", strip_recalled_blocks(text)))
    # secrets are checked on what is kept (the costlier check)
    reasons = [reject_reason(sentence, role, secrets=False) for sentence in sentences]
    for index, (sentence, reason) in enumerate(zip(sentences, reasons, strict=True)):
        if reason and not is_soft(reason, role, sentence.text):
            continue
        _keep(kept, index + 1, sentence.text, sentence.block, bool(reason))
    for index, pair in pairs(sentences, reasons, role):
        reason = reject_reason(pair, role, secrets=False)
        if not reason or is_soft(reason, role, pair.text):
            _keep(kept, index + 1, pair.text, pair.block, True)
    return len(sentences), tuple(kept)


def _keep(kept: list[Statement], index: int, raw: str, block: str, model_only: bool) -> None:
    statement = clean_statement(raw)
    if len(statement) >= _MIN_CHARS and not is_chitchat(statement):
        kept.append((index, statement, block, raw, model_only))


def repeated_names(items: list[Eligible]) -> list[float]:
    """features.repetition over the messages the sentences sit in."""
    keys = {id(item.message): index for index, item in enumerate(items)}
    return repetition([i.text for i in items], [keys[id(i.message)] for i in items])


def in_transcript(items: list[Eligible]) -> tuple[list[float], list[Context]]:
    """What the whole transcript says about each sentence: how often it comes back to
    its names (repeated_names), and its context with the share of its names the person
    wrote (features.person_named)."""
    shares = person_named([i.text for i in items], [i.role for i in items])
    contexts = [
        i.context._replace(person_named=share) if share else i.context
        for i, share in zip(items, shares, strict=True)
    ]
    return repeated_names(items), contexts


# What a sentence's verdict depends on: its words as written, role, block, repeat count,
# whether only the model may keep it, and the message around it.
JudgeKey = tuple[str, str, str, float, bool, Context]


def rule_score(item: Eligible) -> float:
    if item.role == "assistant":
        return assistant_score(item.text)
    return person_score(item.raw or item.text, "note" if item.role == "note" else "user")


def scored_sentences(
    messages: Iterable[Message], threshold: float = THRESHOLD, scorer: Scorer | None = None
) -> tuple[list[Found], list[Message]]:
    """Every eligible sentence scoring above the threshold, and the messages they are in."""
    found: list[Found] = []
    kept: list[Message] = []
    items = list(eligible_sentences(messages))
    if scorer is not None:
        repeats, contexts = in_transcript(items)
    else:
        repeats, contexts = [0.0] * len(items), [item.context for item in items]
    # Per judged key: the verdict, and the candidate of its first copy with the sources
    # listed so far (None while no copy was kept).
    judged: dict[JudgeKey, tuple[bool, float, str]] = {}
    first: dict[JudgeKey, tuple[Found, set[tuple[str, str]]]] = {}
    for item, repeated, context in zip(items, repeats, contexts, strict=True):
        # The same words again (a restated rule, a quoted line) are judged once: they
        # collapse into one candidate anyway.
        key = (item.raw, item.role, item.block, repeated, item.model_only, context)
        verdict = judged.get(key)
        if verdict is None:
            verdict = judged[key] = judge(item, repeated, threshold, scorer, context)
        elif not verdict[0]:
            continue
        keep, value, confidence = verdict
        if not keep:
            continue
        source = (item.role, item.message.locator)
        copy_of = first.get(key)
        if copy_of is not None:
            # The same words scored the same: one more source of the first copy, which
            # collapse() then handles once instead of once per copy.
            winner, listed = copy_of
            if source not in listed:
                listed.add(source)
                winner.also.append(source)
            continue
        winner = Found(item.text, value, item.role, source[1], item.order, len(kept), confidence)
        first[key] = (winner, {source})
        found.append(winner)
        kept.append(item.message)
    return found, kept


def judge(
    item: Eligible,
    repeated: float,
    threshold: float,
    scorer: Scorer | None,
    context: Context | None = None,
) -> tuple[bool, float, str]:
    """(keep, ranking value, confidence label) of one sentence."""
    rules = rule_score(item)
    value = rules
    keep = rules > threshold and not item.model_only
    if scorer is not None:
        # Either judge may keep a sentence: the hand rules carry the product's rules
        # (preferences and explicit "remember" count), the model what the dev gold says
        # people keep. Agreed assistant statements need the model, or hand rules rating
        # them strong (a named root cause and fix). The model ranks everything for the
        # per-transcript cap.
        value = scorer.score(item.text, item.role, item.block, repeated, context or item.context)
        if item.model_only:
            keep = value > threshold  # a soft reject or a pair: the hand rules never judged it
        elif item.role == "assistant":
            keep = value > threshold or rules >= STRONG
        else:
            keep = keep or value > threshold
            if is_explicit(item.raw):
                value = max(value, rules)  # "remember: ..." is never outranked
    if not keep or has_secret(item.raw):
        return False, value, ""  # a secret is never kept, even when asked to remember it
    confidence = confidence_label(rules) if rules > threshold else "low"
    if item.role == "assistant" and confidence == "high":
        confidence = "medium"  # the person agreed; they did not say it
    return True, value, confidence


def pick_scorer(opts: Mapping[str, Any]) -> Scorer | None:
    """`opts["scorer"]`: "rules", "learned" (the default, when its weights load) or a
    scorer object (benches pass models trained on part of the data)."""
    choice = opts.get("scorer", "learned")
    if choice == "rules":
        return None
    if isinstance(choice, str):
        return shipped_scorer()
    return choice


def extract_candidates(
    messages: Iterable[Message], opts: Mapping[str, Any] | None = None
) -> list[Entry]:
    """Candidates (status=candidate, origin=transcript), best first, with provenance."""
    opts = opts or {}
    threshold = float(opts.get("threshold", THRESHOLD))
    found, origin = scored_sentences(messages, threshold, pick_scorer(opts))
    limit = opts.get("max_candidates")
    kept = collapse(found)
    out: list[Entry] = []
    for item in kept[: int(limit)] if limit is not None else kept:
        message = origin[item.message_index]
        role = item.role
        signal_role = "assistant" if role == "assistant" else "user"
        kind, scope = classify(item.text, signals_of(item.text, signal_role), signal_role)
        confidence = item.confidence
        locators = [item.locator, *[loc for _, loc in item.also]]
        roles = [role, *[r for r, _ in item.also]]
        out.append(
            Entry(
                summary=item.text,
                kind=kind,
                scope=scope,
                confidence=confidence,
                source=Source(
                    origin="transcript",
                    session_id=message.session_id,
                    timestamp=message.timestamp,
                    files=mentioned_files(item.text),
                    commands=mentioned_commands(item.text),
                    locator="; ".join(dict.fromkeys(loc for loc in locators if loc)),
                    role="; ".join(dict.fromkeys(roles)),
                    excerpt=excerpt_of(strip_recalled_blocks(message.text), item.text),
                ),
            )
        )
    return out


def is_explicit(text: str) -> bool:
    return cue("explicit", EXPLICIT, text, text.lower())
