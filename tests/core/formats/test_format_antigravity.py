"""Google Antigravity trajectory JSONL."""

from __future__ import annotations

from pathlib import Path

from format_helpers import read_all, said, write_jsonl


def step(i: int, source: str, kind: str, **extra: object) -> dict[str, object]:
    return {
        "step_index": i,
        "source": source,
        "type": kind,
        "status": "DONE",
        "created_at": "2026-05-20T15:45:49Z",
        **extra,
    }


def test_steps(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "transcript.jsonl",
        [
            step(
                0,
                "USER_EXPLICIT",
                "USER_INPUT",
                content="<USER_REQUEST>\nUse vanilla CSS, no Tailwind.\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nlocal time 21:15\n</ADDITIONAL_METADATA>",
            ),
            step(1, "SYSTEM", "CONVERSATION_HISTORY"),
            step(
                2,
                "SYSTEM",
                "EPHEMERAL_MESSAGE",
                content="The following is an <EPHEMERAL_MESSAGE> not actually sent by the user.",
            ),
            step(
                3,
                "MODEL",
                "PLANNER_RESPONSE",
                content="Plan ready.",
                thinking="hidden",
                tool_calls=[
                    {"name": "write_to_file", "args": {"TargetFile": "plan.md", "CodeContent": "x"}}
                ],
            ),
            step(4, "MODEL", "CODE_ACTION", content="Created file plan.md"),
        ],
    )
    fmt, messages, stats = read_all(path)
    assert fmt == "antigravity"
    assert said(messages, "person") == ["Use vanilla CSS, no Tailwind."]
    assert said(messages, "injected")[0].startswith("<ADDITIONAL_METADATA>")
    assert said(messages, "injected")[1].startswith("The following is an <EPHEMERAL_MESSAGE>")
    assert said(messages, "assistant") == ["Plan ready."]
    assert said(messages, "tool") == ["[write_to_file] plan.md", "Created file plan.md"]
    assert not any("hidden" in m.text for m in messages)
    assert stats.ignored == 1
