"""Who speaks for the person: their own words, and assistant turns they agreed to."""

from __future__ import annotations

import pytest
from memdesk.core.extract.agreement import (
    agreed_turns,
    reply_accepts,
    reply_agrees,
    sources,
    sources_and_replies,
)
from memdesk.core.extract.heuristic import extract_candidates
from memdesk.core.extract.messages import Message

CLAIM = "The dev server runs on port 3000 via `npm run dev`, not 3001."


def turn(reply: str) -> list[Message]:
    return [
        Message("user", "set up the app", origin="person"),
        Message("assistant", "Let me check package.json first.", origin="assistant"),
        Message("tool", "{ scripts: { dev: 'next dev' } }", kind="tool_result", origin="tool"),
        Message("assistant", CLAIM, origin="assistant", locator="s.jsonl:4"),
        Message("user", reply, origin="person", locator="s.jsonl:5"),
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "yes",
        "great!",
        "lgtm",
        "ok, continue with phase 2",
        "好的",
        "可以",
        "對",
        "繼續",
        "add it to the readme and do not commit yet",  # goes on; objects to nothing
        "great! shall we run the migration now?",
        # a question that goes on from the turn
        "what would be the next step?",
        "how can I test this end to end?",
        "so where are we at?",
    ],
)
def test_acceptance_approval_or_continuation_agrees(reply: str) -> None:
    assert reply_agrees(reply)
    assert [m.text for m in agreed_turns(turn(reply))] == [
        "Let me check package.json first.",
        CLAIM,
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "no, it's 3001",
        "that's wrong",
        "actually use 3001",
        "why 3000?",
        "is that right?",
        "don't touch the port",
        "不对，是 3001",
        "不是這樣",
        "[Request interrupted by user]",
        # a question that doubts or challenges the turn, or asks to do it again
        "what about the seeds?",
        "didn't you commit the conversation?",
        "are you sure?",
        "为什么是 3000？",
        "can you retry",
    ],
)
def test_objection_question_or_interruption_does_not_agree(reply: str) -> None:
    assert not reply_agrees(reply)
    assert agreed_turns(turn(reply)) == []


def test_a_turn_nobody_answered_is_not_agreed() -> None:
    messages = turn("yes")[:-1]
    assert agreed_turns(messages) == []


@pytest.mark.parametrize("origin", ["subagent", "compaction", "injected", "command", "tool"])
def test_words_the_person_never_wrote_are_never_sources(origin: str) -> None:
    messages = [
        Message("user", "Always deploy with `make release` from the main branch.", origin=origin),
        Message("user", "yes", origin="person"),
    ]
    assert [(m.text, who) for m, who in sources(messages)] == [("yes", "person")]
    assert extract_candidates(messages, {}) == []


def test_agreed_statement_is_a_candidate_with_its_role_and_record() -> None:
    rules = {"scorer": "rules"}  # the hand rules alone: a fixed value for this statement
    [entry] = extract_candidates(turn("great, thanks"), rules)
    assert entry.summary == CLAIM.rstrip(".")
    assert (entry.source.role, entry.source.locator) == ("assistant", "s.jsonl:4")
    assert entry.confidence in ("low", "medium")  # the person agreed; they did not say it
    assert extract_candidates(turn("no, it's 3001"), rules) == []


def test_the_persons_own_words_record_role_person() -> None:
    message = Message(
        "user", "Always use pnpm instead of npm in this repo.", origin="person", locator="s:9"
    )
    [entry] = extract_candidates([message], {})
    assert (entry.source.role, entry.source.locator) == ("person", "s:9")


def test_an_outright_acceptance_is_told_apart_from_going_on() -> None:
    assert reply_accepts("yes, go ahead") and reply_accepts("好的")
    assert not reply_accepts("add it to the readme and do not commit yet")
    accepted = [
        (m.text, ok) for m, who, ok in sources_and_replies(turn("great!")) if who != "person"
    ]
    went_on = [
        (m.text, ok) for m, who, ok in sources_and_replies(turn("now the tests")) if who != "person"
    ]
    assert accepted == [("Let me check package.json first.", True), (CLAIM, True)]
    assert went_on == [("Let me check package.json first.", False), (CLAIM, False)]
