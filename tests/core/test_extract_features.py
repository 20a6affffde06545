"""The learned scorer's context features: where a sentence sits in its transcript."""

from __future__ import annotations

from memdesk.core.extract.features import FEATURES, Context, features, person_named
from memdesk.core.extract.heuristic import eligible_sentences, in_transcript
from memdesk.core.extract.messages import Message


def value(name: str, vector: list[float]) -> float:
    return vector[FEATURES.index(name)]


def test_the_share_of_names_the_person_wrote_too_counts_for_assistant_sentences() -> None:
    texts = [
        "Deploys go through `bin/deploy` on the render.yaml blueprint.",
        "The blueprint lives in render.yaml and `bin/deploy` reads it; so does src/api.ts.",
        "The person's own words name render.yaml.",
    ]
    shares = person_named(texts, ["person", "assistant", "person"])
    assert shares[0] == 0.0 and shares[2] == 0.0  # only assistant sentences get a share
    assert shares[1] == round(2 / 3, 2)  # bin/deploy and render.yaml of three names


def test_context_reaches_the_feature_vector() -> None:
    context = Context(message_sentences=12, opening=True, accepted=True, person_named=0.5)
    vector = features("The API lives in src/api.ts.", "assistant", "pair", 0.0, context)
    assert value("message_size", vector) == 1.0
    assert value("opening", vector) == 1.0 and value("accepted", vector) == 1.0
    assert value("person_named", vector) == 0.5 and value("block_pair", vector) == 1.0
    question = features("When I run tools/run_dev.py, where is the client?", "person")
    assert value("question", question) == 1.0 and value("opening", question) == 0.0


def test_eligible_sentences_know_their_message_and_the_turns_acceptance() -> None:
    messages = [
        Message("user", "The app uses FastAPI. Its tests live in backend/tests.", origin="person"),
        Message("assistant", "The API lives in backend/api.py.", origin="assistant"),
        Message("user", "yes", origin="person"),
    ]
    items = list(eligible_sentences(messages))
    _, contexts = in_transcript(items)
    by_text = dict(zip([i.text for i in items], contexts, strict=True))
    assert by_text["Its tests live in backend/tests"].opening
    assert by_text["Its tests live in backend/tests"].message_sentences == 2
    assistant = by_text["The API lives in backend/api.py"]
    assert assistant.accepted and not assistant.opening
