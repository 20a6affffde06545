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


def test_sentences_the_hand_rules_turned_away_are_marked_for_the_model() -> None:
    """A question or a one-task request of the person is kept for the model to weigh (a
    soft reject), marked `rejected`: it is less often a fact than what the person states.
    Statements and pairs are not marked. In both languages."""
    messages = [
        Message(
            "user",
            "When I run tools/run_dev.py, where is the client?\n\n"
            "The client lives in frontend/app.\n\n"
            "部署脚本是放在 scripts/deploy.sh 吗？\n\n"
            "测试都放在 backend/tests 目录下面。",
            origin="person",
        ),
    ]
    items = list(eligible_sentences(messages))
    marked = {i.text: i.context.rejected for i in items if i.block != "pair"}
    assert marked["When I run tools/run_dev.py, where is the client?"]
    assert not marked["The client lives in frontend/app"]
    assert any(rejected for text, rejected in marked.items() if "deploy.sh" in text)
    assert not any(rejected for text, rejected in marked.items() if "backend/tests" in text)
    assert not any(i.context.rejected for i in items if i.block == "pair")
    rejected = next(i for i in items if i.context.rejected)
    vector = features(rejected.text, rejected.role, rejected.block, 0.0, rejected.context)
    assert value("rejected", vector) == 1.0
    assert value("rejected", features("The client lives in frontend/app.", "person")) == 0.0
