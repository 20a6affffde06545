"""Which messages speak for the person: their own words, and what they agreed to.

The person's own words are messages with `Message.is_person` (never a sub-agent prompt,
a compaction summary, an injected file, a command wrapper or a tool result). An
assistant statement speaks for the person only when the person agreed to it:

- the assistant's turn is every assistant text message between two messages of the
  person (tool calls and results in between do not end it);
- the turn is agreed when the person's next message accepts or approves it ("yes",
  "great", "lgtm", "好", "可以", "對") or goes on without objecting (the next step, a
  new instruction): its first sentence holds no "no", "don't", "wrong", "instead",
  "actually", "why", "retry", "不对", "不是", "別", "为什么", no interrupt marker, and
  it is not a question that doubts or challenges the turn ("why 3000?", "is that
  right?", "what about the seeds?", "didn't you…?"). A question that goes on from the
  turn ("what would be the next step?", "how do I run it end to end?", "can you show me
  an example?", "great! shall we run the migration now?") agrees;
- a turn with no reply of the person after it (the end of the transcript) is not agreed:
  nobody confirmed it.

Lines of a notes file (role "note") are already statements someone wrote down.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from memdesk.core.extract.messages import Message

PERSON = "person"
AGREED = "assistant"  # an assistant statement the person agreed to
NOTE = "note"

_ACCEPT = re.compile(
    r"^\W*(?:yes|yep|yeah|yup|y|ok|okay|k|sure|great|perfect|good|nice|cool|awesome|excellent|"
    r"lgtm|looks good|sounds good|agreed|agree|approved?|correct|exactly|right|fine|"
    r"thanks|thank you|ty|go ahead|do it|ship it|that works|works for me|👍|✅|"
    r"好(?!吧)|好的|好啊|可以|行|对|對|没问题|沒問題|同意|就这样|就這樣|不错|不錯|很好|太好了|讚|赞|"
    r"继续|繼續|下一步|接着|接著|嗯)(?:\W|$)",
    re.IGNORECASE,
)
# (Not "好吧": "oh well, fine" gives in, it does not approve: "好吧，那算了" after a refusal.
# Such a reply still goes on from the turn; it only does not accept it outright.)
# Only how the reply opens counts: "add it to the readme and do not commit yet" goes on
# from the turn; "no, that's wrong" objects to it.
_FIRST_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n")
# A question doubting or challenging the turn; other questions go on from it.
_CHALLENGE = re.compile(
    r"^\W*(?:so\s+)?(?:why|how come|what about|what if|is (?:that|this|it)|are (?:you|we) sure|"
    r"(?:is|are|was|were|did|does|do|should|would|could|have|has)n['’]?t|did you|have you|"
    r"should (?:this|that|it|we not)|really|sure)\b|"
    r"^\W*(?:为什么|為什麼|为何|為何|怎么会|怎麼會|是不是|确定|確定|真的)|"
    r"\b(?:right|correct|sure|really)\s*[?？]\s*$|对吗|對嗎|对吧|對吧",
    re.IGNORECASE,
)
# An objection: the reply opens with a negation or a challenge, or names a fault.
_OBJECTION = re.compile(
    r"^\W*(?:no|nope|not|don['’]?t|do not|never|stop|wait|hold on|hmm+|actually|why|but|revert|"
    r"undo)(?:\W|$)|^\W*(?:不|別|别|为什么|為什麼|停|等等|等一下)|"
    r"\b(?:wrong|incorrect|instead|revert|undo|isn['’]t right|doesn['’]t work|not what|broken|"
    r"fail(?:s|ed)?|still|retry|try again)\b|request interrupted|不对|不對|错|錯|撤销|撤銷|回滚|回滾|"
    r"不行|重试|重試|再试|再試",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def reply_agrees(text: str) -> bool:
    """Does the person's reply accept, approve or continue, without objecting?"""
    head = _FIRST_SENTENCE.split(text.strip(), maxsplit=1)[0][:160]
    if not head or _OBJECTION.search(head):
        return False
    if _ACCEPT.match(head):
        return True
    return not _CHALLENGE.search(head)


def _speaks(message: Message) -> bool:
    return message.kind == "text" and message.role in ("user", "assistant", "note")


def sources(messages: Iterable[Message]) -> Iterator[tuple[Message, str]]:
    """(message, who) for every message that may hold a candidate, in order: who is
    PERSON, AGREED (an assistant turn the person's next message agreed to) or NOTE."""
    for message, who, _ in sources_and_replies(messages):
        yield message, who


def sources_and_replies(messages: Iterable[Message]) -> Iterator[tuple[Message, str, bool]]:
    """As `sources`, with whether an agreed turn was accepted outright ("yes", "great",
    "好") rather than only gone on from (False for the person's words and notes)."""
    turn: list[Message] = []
    for message in messages:
        if not _speaks(message):
            continue
        if message.role == "note":
            yield message, NOTE, False
        elif message.is_person:
            if turn and reply_agrees(message.text):
                accepted = reply_accepts(message.text)
                for said in turn:
                    yield said, AGREED, accepted
            turn = []
            yield message, PERSON, False
        elif message.role == "assistant" and message.origin in ("", "assistant"):
            turn.append(message)


@lru_cache(maxsize=4096)
def reply_accepts(text: str) -> bool:
    """Does the reply open with an acceptance ("yes", "great", "lgtm", "好的")?"""
    return bool(_ACCEPT.match(text.strip()[:160]))


def agreed_turns(messages: Sequence[Message]) -> list[Message]:
    """The assistant messages the person agreed to (for tests and reports)."""
    return [m for m, who in sources(messages) if who == AGREED]
