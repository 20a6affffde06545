"""Claude Code console copies: a terminal session pasted into a text or Markdown file.

`> ` opens what the person typed (continuation lines are indented; `> /command` is a
slash command); `⏺ ` opens the assistant's words, except `⏺ Tool(args)` lines, which
are tool calls, followed by their `⎿` output ("tool"). `✻ Thinking…` blocks and status
lines are skipped, as is the welcome box (`╭ │ ╰`). Console text is indented under its
marker; a line at the left margin is the file's own prose (a dev diary the copy sits
in) and is read as a note (role "note"), headings skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from memdesk.core.extract.formats.common import head_text, iter_lines, message
from memdesk.core.extract.messages import Message, ReadStats

NAME = "claude-console"
LINE_BASED = True
DESCRIPTION = "Claude Code console copy (> prompts, ⏺ replies)"

_REPLY = "⏺"
_TOOL_CALL = re.compile(r"^[\w.:-]+(?: \(MCP\))?\(.*\)?\s*$")
_STATUS = ("✻", "✽", "✢", "✳", "✶", "·")
_BOX = ("╭", "│", "╰", "─")


def sniff(path: Path, head: bytes) -> bool:
    lines = head_text(head).splitlines()
    replies = sum(1 for line in lines if line.startswith(_REPLY))
    prompts = sum(1 for line in lines if line.startswith("> "))
    return replies >= 1 and prompts >= 1


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    origin = ""
    block: list[str] = []
    block_line = 0

    def flush() -> Iterator[Message]:
        nonlocal block, origin
        text = "\n".join(block).strip()
        if origin and origin != "skip" and text:
            kind = "tool_use" if origin == "tool" else "text"
            role = "assistant" if origin in ("tool", "assistant") else None
            yield message(
                origin,
                text,
                session=path.stem,
                locator=f"{path}:{block_line}",
                kind=kind,
                role=role,
            )
        block, origin = [], ""

    def start(new_origin: str, number: int, text: str) -> Iterator[Message]:
        nonlocal origin, block_line
        yield from flush()
        origin, block_line = new_origin, number
        block.append(text)

    for number, raw in iter_lines(path, stats, start_offset, start_line, complete_lines_only):
        line = raw.rstrip()
        if line.startswith("> ") or line == ">":
            text = line[2:]
            yield from start("command" if text.startswith("/") else "person", number, text)
        elif line.startswith(_REPLY):
            text = line[len(_REPLY) :].strip()
            yield from start("tool" if _TOOL_CALL.match(text) else "assistant", number, text)
        elif line.lstrip().startswith("⎿"):
            if origin == "assistant" and len(block) == 1:
                origin = "tool"  # `⏺ Update Todos` and the like: a tool's title line
            elif origin != "tool":
                yield from start("tool", number, "")
            block.append(line.lstrip()[1:].strip())
        elif line.startswith(_STATUS):
            yield from start("skip", number, "")  # thinking and status lines
        elif line.startswith(_BOX) or line.strip().startswith("```"):
            stats.ignored += 1
        elif not line.strip() or line.startswith(" "):
            if origin:
                block.append(
                    line.strip() if origin == "tool" else line[2:] if line[:2] == "  " else line
                )
        else:
            # Console text is indented under its marker: a line at the margin is the
            # file's own prose (a dev diary around the copy), kept as a note.
            yield from flush()
            if line.lstrip().startswith("#"):
                stats.ignored += 1
            else:
                yield Message("note", line.strip(), path.stem, "", f"{path}:{number}")
    yield from flush()
