"""The inputs the fuzz suite generates that are not one parser's own: text and JSON
values with what breaks parsers, and transcript files in the shape of each reader's
records (fuzz_targets.py pairs them, and each parser's own inputs, with the checks).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# -- building blocks --------------------------------------------------------------------

# Text with what breaks parsers: lone surrogates, control characters, CJK, markers.
odd_text = st.lists(
    st.one_of(
        st.characters(exclude_categories=()),  # every code point, lone surrogates too
        st.sampled_from(
            ["\ud83d", "\udce9", "\r", "\n", "\x00", "<<<<<<< HEAD", "=======", ">>>>>>> b", "用户"]
        ),
    ),
    max_size=12,
).map("".join)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | odd_text
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(odd_text, inner, max_size=4),
    max_leaves=12,
)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually the right shape, sometimes any JSON value at all."""
    return st.one_of(strategy, strategy, json_values)


# Transcripts, one target per reader.
def _content_blocks() -> st.SearchStrategy[Any]:
    block = st.fixed_dictionaries(
        {"type": maybe(st.sampled_from(["text", "tool_use", "tool_result", "thinking"]))},
        optional={
            "text": maybe(odd_text),
            "content": maybe(odd_text),
            "name": maybe(odd_text),
            "input": json_values,
        },
    )
    return maybe(st.one_of(odd_text, st.lists(block, max_size=3)))


claude_records = st.fixed_dictionaries(
    {
        "type": maybe(st.sampled_from(["user", "assistant", "summary", "system"])),
        "message": maybe(
            st.fixed_dictionaries(
                {"role": maybe(st.sampled_from(["user", "assistant"]))},
                optional={"content": _content_blocks()},
            )
        ),
    },
    optional={
        "sessionId": maybe(odd_text),
        "timestamp": maybe(odd_text),
        "isSidechain": json_values,
    },
)
plain_records = st.fixed_dictionaries(
    {"role": maybe(st.sampled_from(["user", "assistant", "human", "tool", "x"]))},
    optional={"content": _content_blocks(), "timestamp": json_values, "session_id": json_values},
)
chatgpt_nodes = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    maybe(
        st.fixed_dictionaries(
            {},
            optional={
                "parent": maybe(st.sampled_from(["a", "b", "c"])),
                "message": maybe(
                    st.fixed_dictionaries(
                        {
                            "author": maybe(
                                st.fixed_dictionaries(
                                    {"role": maybe(st.sampled_from(["user", "assistant"]))}
                                )
                            )
                        },
                        optional={
                            "create_time": maybe(
                                st.one_of(st.floats(), st.integers(), st.just("2024-01-01"))
                            ),
                            "content": maybe(
                                st.fixed_dictionaries(
                                    {},
                                    optional={"parts": maybe(st.lists(json_values, max_size=3))},
                                )
                            ),
                        },
                    )
                ),
            },
        )
    ),
    max_size=3,
)
chatgpt_records = st.fixed_dictionaries(
    {"mapping": maybe(chatgpt_nodes)},
    optional={"current_node": maybe(st.sampled_from(["a", "b", "c"])), "title": json_values},
)
any_record = st.one_of(claude_records, plain_records, chatgpt_records, json_values)


def jsonl_bytes(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, default=str) + "\n" for r in records).encode(
        "utf-8", "surrogatepass"
    )


jsonl_files = st.one_of(st.lists(any_record, max_size=5).map(jsonl_bytes), st.binary(max_size=300))
json_files = st.one_of(
    st.lists(any_record, max_size=4).map(
        lambda rs: json.dumps(rs, default=str).encode("utf-8", "surrogatepass")
    ),
    chatgpt_records.map(lambda r: json.dumps(r, default=str).encode("utf-8", "surrogatepass")),
    st.binary(max_size=300),
)
markdown_files = st.one_of(
    st.lists(
        st.one_of(
            st.sampled_from(["## User", "**Assistant:**", "用户：", "```", "# 10:30", "- note"]),
            odd_text,
        ),
        max_size=8,
    ).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")),
    st.binary(max_size=300),
)
