"""Aider chat history (`.aider.chat.history.md` in the project folder).

Markdown appended as the chat goes: `# aider chat started at <time>` opens a session;
`#### ` lines are what the person typed (a multi-line prompt is several `#### ` lines;
`#### /command ...` lines are aider commands, and for `/ask`, `/code`, `/architect`
aider writes the prompt again on its own `#### ` line, which is the one read as the
person's); `> ` lines are aider's own output (tool output: file adds, commits, token
counts, warnings); every other line is the assistant's reply. In architect mode aider
hands the architect's reply to the editor model as `#### ` lines: a prompt that repeats
the reply before it is that hand-over ("subagent"), not the person.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from memdesk.core.extract.formats.common import head_text, iter_lines, message
from memdesk.core.extract.messages import Message, ReadStats

NAME = "aider"
LINE_BASED = True
DESCRIPTION = "Aider chat history (.aider.chat.history.md)"

_STARTED = re.compile(r"^# aider chat started at (?P<when>.+?)\s*$")
_PROMPT = re.compile(r"^####(?: (?P<text>.*)|\s*)$")
_OUTPUT = re.compile(r"^>(?: (?P<text>.*)|\s*)$")


def sniff(path: Path, head: bytes) -> bool:
    if path.name.endswith(".aider.chat.history.md"):
        return True
    return any(_STARTED.match(line) for line in head_text(head).splitlines()[:20])


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    where = str(path)
    session, stamp = path.name, ""
    block: list[str] = []
    block_origin = ""
    block_line = 0
    last_reply = ""  # first line of the assistant's last reply

    def flush() -> Iterator[Message]:
        nonlocal block, block_origin, last_reply
        text = "\n".join(block).strip()
        origin = block_origin
        if origin and text:
            first = text.splitlines()[0].strip()
            if origin == "assistant":
                last_reply = first
            elif origin == "person" and first == last_reply:
                origin = "subagent"  # the architect's reply handed to the editor model
            kind = "tool_result" if origin == "tool" else "text"
            yield message(
                origin,
                text,
                session=session,
                stamp=stamp,
                locator=f"{where}:{block_line}",
                kind=kind,
            )
        block, block_origin = [], ""

    for number, raw in iter_lines(path, stats, start_offset, start_line, complete_lines_only):
        line = raw.rstrip()
        started = _STARTED.match(line)
        if started:
            yield from flush()
            stamp = started.group("when")
            session = f"{path.name}@{stamp}"
            continue
        prompt = _PROMPT.match(line)
        output = None if prompt else _OUTPUT.match(line)
        if prompt:
            text = prompt.group("text") or ""
            origin = "command" if text.lstrip().startswith("/") else "person"
        elif output:
            text, origin = output.group("text") or "", "tool"
        elif not line.strip():
            if block_origin == "person":
                yield from flush()  # the prompt was sent: a later one is a new message
            elif block_origin == "assistant":
                block.append("")
            continue
        else:
            text, origin = raw.rstrip("\r\n"), "assistant"
        if origin != block_origin or origin == "command":
            yield from flush()
            block_origin, block_line = origin, number
        block.append(text)
    yield from flush()
