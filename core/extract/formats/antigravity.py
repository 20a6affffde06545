"""Google Antigravity trajectories exported as JSONL (one step a line).

A step: `{step_index, source, type, status, created_at, content, thinking,
tool_calls}`. `USER_INPUT` steps from `USER_EXPLICIT` are the person: the words inside
`<USER_REQUEST>`; `<ADDITIONAL_METADATA>` and other blocks around them are added by
the IDE ("injected"). `PLANNER_RESPONSE` is the assistant (`content`; its `tool_calls`
are tool calls; `thinking` is skipped). Other model steps (CODE_ACTION, VIEW_FILE,
RUN_COMMAND ...) are tool activity; SYSTEM steps (EPHEMERAL_MESSAGE,
CONVERSATION_HISTORY ...) are injected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from memdesk.core.extract.formats.common import (
    head_lines,
    iter_records,
    message,
    render_tool_call,
    split_tagged,
    text_of,
)
from memdesk.core.extract.messages import Message, ReadStats

NAME = "antigravity"
LINE_BASED = True
DESCRIPTION = "Google Antigravity trajectory JSONL"

_STEP = re.compile(rb'^\{[^\n]{0,200}"step_index"\s*:')
_REQUEST = re.compile(r"<USER_REQUEST>(.*?)(?:</USER_REQUEST>|\Z)", re.S)


def sniff(path: Path, head: bytes) -> bool:
    lines = head_lines(head, 2)
    return bool(lines) and _STEP.match(lines[0]) is not None and b'"source"' in lines[0][:4096]


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    session = path.stem
    for number, step in iter_records(path, stats, start_offset, start_line, complete_lines_only):
        if not isinstance(step, dict):
            stats.ignored += 1
            continue
        where = {
            "session": session,
            "stamp": str(step.get("created_at") or ""),
            "locator": f"{path}:{number}",
        }
        kind = str(step.get("type") or "")
        source = str(step.get("source") or "")
        text = text_of(step.get("content"))
        found: list[Message] = []
        if kind == "USER_INPUT":
            origin = "person" if source in ("USER_EXPLICIT", "") else "injected"
            found = [message(o, t, **where) for o, t in _user_pieces(text, origin)]
        elif source == "MODEL":
            if text.strip():
                if kind == "PLANNER_RESPONSE":
                    found.append(message("assistant", text, **where))
                else:
                    found.append(message("tool", text, kind="tool_result", **where))
            for call in step.get("tool_calls") or []:
                if isinstance(call, dict):
                    line = render_tool_call(str(call.get("name") or "tool"), call.get("args"))
                    found.append(message("tool", line, kind="tool_use", role="assistant", **where))
        elif text.strip():
            found.append(message("injected", text, **where))
        if not found:
            stats.ignored += 1
        for one in found:
            one.record = kind
            yield one


def _user_pieces(text: str, origin: str) -> list[tuple[str, str]]:
    request = _REQUEST.search(text)
    if request is None:
        return split_tagged(text, {"additional_metadata": "injected"}, origin)
    pieces = [(origin, request.group(1).strip())]
    rest = (text[: request.start()] + text[request.end() :]).strip()
    if rest:
        pieces.append(("injected", rest))
    return [(o, t) for o, t in pieces if t]
