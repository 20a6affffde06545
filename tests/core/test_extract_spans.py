"""Pairs of neighbouring sentences and soft rejects: offered to the learned scorer only."""

from __future__ import annotations

from memdesk.core.extract.features import NO_CONTEXT, Context
from memdesk.core.extract.heuristic import extract_candidates, message_statements
from memdesk.core.extract.messages import Message
from memdesk.core.extract.rejects import reject_reason
from memdesk.core.extract.sentences import Sentence, split_sentences
from memdesk.core.extract.spans import is_soft, pairs

BRIEF = (
    "Create a plan to turn this command line app into a webservice using FastAPI. "
    "Put the webservice project inside the backend folder."
)


def pair_texts(text: str, role: str = "person") -> list[str]:
    sentences = split_sentences(text)
    reasons = [reject_reason(s, role) for s in sentences]
    return [pair.text for _, pair in pairs(sentences, reasons, role)]


class KeepsFastApiAndBackend:
    """A scorer that rates only text naming both FastAPI and the backend folder."""

    def score(
        self,
        text: str,
        role: str,
        block: str = "text",
        repeated: float = 0.0,
        context: Context = NO_CONTEXT,
    ) -> float:
        return 0.9 if "FastAPI" in text and "backend" in text else 0.1


def test_two_neighbouring_sentences_are_offered_as_one_pair() -> None:
    assert pair_texts(BRIEF) == [BRIEF]


def test_a_pair_is_kept_only_by_the_model_and_carries_the_fact_of_both_sentences() -> None:
    message = Message("user", BRIEF, origin="person", locator="t:1")
    _, kept = message_statements(BRIEF, "person")
    assert [(block, model_only) for _, _, block, _, model_only in kept if block == "pair"] == [
        ("pair", True)
    ]
    assert extract_candidates([message], {"scorer": "rules"}) == []  # the hand rules never
    [entry] = extract_candidates([message], {"scorer": KeepsFastApiAndBackend()})
    assert "FastAPI" in entry.summary and "backend folder" in entry.summary


def test_a_bold_run_in_label_or_two_fragments_are_not_joined() -> None:
    assert pair_texts("The config lives in app/config.yml. **Backward compatibility** none.") == []
    assert pair_texts("Ports and hosts. Then the rest.") == []


def test_pairs_stay_short() -> None:
    long = "The worker reads jobs from the queue in src/queue.ts and " + "x " * 150 + "ends."
    assert pair_texts(f"{long} The API lives in src/api.ts.") == []


def test_a_question_of_the_person_is_a_soft_reject_but_a_polite_request_is_not() -> None:
    question = "When I run python tools/run_dev.py, how do I reach the web client?"
    assert reject_reason(Sentence(question), "person") == "question"
    assert is_soft("question", "person", question)
    assert not is_soft("question", "assistant", question)
    assert not is_soft("question", "person", "can you check why CI is red?")
    assert not is_soft("request", "person", "please fix the login page")
    _, kept = message_statements(question, "person")
    assert [(text, model_only) for _, text, _, _, model_only in kept] == [
        ("When I run python tools/run_dev.py, how do I reach the web client?", True)
    ]


def test_a_polite_request_is_never_half_of_a_pair() -> None:
    text = "Can you add the linter to CI? The linter config lives in ruff.toml."
    assert pair_texts(text) == []
