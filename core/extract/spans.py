"""Candidates longer than one sentence, and forms only the learned scorer may keep.

A fact is often said across two sentences: a request and the convention it sets ("Create
a plan to make this app a webservice using FastAPI. Put the webservice project inside
the backend folder"), a lead-in and its point, a question and the fact it assumes. So
two neighbouring sentences of one message (of the person, or of an assistant turn the
person agreed to) are also offered as one candidate, a *pair*, when each of them is a
statement or a form the model may weigh (see below) and together they stay short. A
bold run-in label ("**Backward compatibility**") or an explicit cue and its colon
("remember:", "记住：") starts a new point: it is not joined to what precedes it. A whole
short utterance ("Great!", "修吧。", "那算了。") and the agent's short narration ("I'll
write x.sh.") are not halves of a pair: they add a remark, not a fact, to their
neighbour. (Sentences keep which block they sit in, `Sentence.part`; joining only
within one paragraph or list item lost more facts than it saved, measured on the dev
set: facts are often a lead-in and its list, or two list items.) A pair that holds a kept sentence collapses
with it into one candidate (collapse.py: a quoted copy), the better scored one kept.

Some sentences of the person are turned away by the hand rules although they often
carry a fact: a question ("when I run tools/run_dev.py, how do I reach the web
client?") or a bare imperative ("put the webservice project inside the backend
folder"). They are *soft* rejects: the learned scorer sees them, with features saying
what form they have, and keeps them only when it rates them above the threshold; the
hand rules alone never keep them. A request asked politely ("can you…", "please…",
"帮我…") stays rejected, alone or in a pair: it asks for one task.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from memdesk.core.extract.rejects import is_narration, is_polite_request
from memdesk.core.extract.sentences import Sentence

# Rejection reasons (rejects.py) the learned scorer may overrule, for the person's words.
SOFT_REASONS = frozenset({"question", "request"})
# Reasons a sentence may have and still be half of a pair: a fragment or a lead-in
# ending in ":" says something together with its neighbour. (The agent's questions too:
# "What if a session name could look like a task ID? (e.g. …)" states a design point;
# leaving them out lost dev facts.)
JOINABLE_REASONS = SOFT_REASONS | {"", "fragment", "heading"}
PAIR_ROLES = frozenset({"person", "assistant"})
PAIR_MAX_CHARS = 300
_NOT_JOINED_BLOCKS = frozenset({"heading", "table", "group"})
# What opens a new point: a bold run-in label, or an explicit cue with its colon
# ("remember: …", "记住：…", "约定：…"); the sentence before it is another matter.
_NEW_POINT = re.compile(
    r"^(?:\*\*|(?:remember|note|nb|记住|請記住|请记住|記住|注意|约定|約定)\s*[:：])", re.IGNORECASE
)
# A fragment ending a sentence is a whole short utterance ("Great!", "修吧。", "那算了。"):
# an acknowledgement or a one-word reply, not the lead-in of its neighbour.
_UTTERANCE_END = ("。", "！", "!", "~", "～", "…")


def joinable(reason: str, text: str, role: str) -> bool:
    """May a sentence rejected for `reason` ("" when it was not) be half of a pair?"""
    if reason == "fragment":
        # a short "I'll write x.sh." is narration before it is a fragment
        narration = role != "person" and is_narration(text)
        return not narration and not text.rstrip().endswith(_UTTERANCE_END)
    return reason in JOINABLE_REASONS


def is_soft(reason: str, role: str, text: str) -> bool:
    """May the learned scorer keep this sentence, rejected for `reason`?"""
    return role == "person" and reason in SOFT_REASONS and not is_polite_request(text)


def pairs(
    sentences: Sequence[Sentence], reasons: Sequence[str], role: str
) -> Iterator[tuple[int, Sentence]]:
    """(index of the first sentence, the pair) for each two neighbours that may be read
    together. The caller runs the rejection rules on the pair itself."""
    if role not in PAIR_ROLES:
        return
    for index in range(len(sentences) - 1):
        first, second = sentences[index], sentences[index + 1]
        if first.block in _NOT_JOINED_BLOCKS or second.block in _NOT_JOINED_BLOCKS:
            continue
        if not (
            joinable(reasons[index], first.text, role)
            and joinable(reasons[index + 1], second.text, role)
        ):
            continue
        if reasons[index] == reasons[index + 1] == "fragment":
            continue  # two half sentences are still not a statement
        if _NEW_POINT.match(second.text):
            continue
        if any(
            reasons[i] in SOFT_REASONS and is_polite_request(sentences[i].text)
            for i in (index, index + 1)
        ):
            continue
        text = f"{first.text} {second.text}"
        if len(text) <= PAIR_MAX_CHARS:
            yield index, Sentence(text, "pair")
