"""Readers: agent artefacts on disk -> a stream of `Message`s.

Formats (detected from the file name, then from the first bytes):

- JSONL, one record a line: generic `{role, content}` (content a string or a list of
  parts), Claude Code session lines (`type` user/assistant with `message.content` blocks:
  text, tool_use, tool_result), or OpenAI-style conversation objects.
- JSON: an array (or one object) of the same records, or an OpenAI chat export
  (`conversations.json`: conversations with a `mapping` tree, or with `messages`).
- Markdown: chat logs with speaker markers (`## User`, `**Assistant:**`, `用户：`), and
  daily logs (`memory/YYYY-MM-DD.md`, OpenClaw style) whose lines are notes.

Everything streams: JSONL and Markdown line by line, JSON arrays element by element, so a
1 GB file is never loaded whole. Malformed or unknown lines are skipped and counted in
`ReadStats` with a warning naming file and line.
"""

from __future__ import annotations

import codecs
import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from memdesk.core.extract.messages import Message, ReadStats, content_text, normalise_role

FORMATS: tuple[str, ...] = ("jsonl", "json", "markdown")
# Claude Code / agent log records that carry no conversation: skipped without a warning.
_IGNORED_TYPES = frozenset(
    {"summary", "system", "file-history-snapshot", "queue-operation", "progress", "result"}
)
_DAILY_LOG = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[-_ ].*)?\.(?:md|markdown)$", re.IGNORECASE)
_CHUNK = 1 << 20


def detect_format(path: Path) -> str:
    """jsonl, json or markdown: by suffix, else by the first non-blank byte."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".md", ".markdown", ".txt"):
        return "markdown"
    first = b""
    with path.open("rb") as handle:
        while chunk := handle.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                first = stripped[:1]
                break
    if first == b"[":
        return "json"
    if first == b"{":
        if suffix == ".json":
            return "json"
        return "jsonl"
    return "markdown"


def read_messages(
    path: Path | str,
    *,
    stats: ReadStats | None = None,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
    fmt: str | None = None,
) -> Iterator[Message]:
    """Stream the messages of one file.

    `start_offset`/`start_line` resume an earlier read (JSONL and Markdown; whole-JSON
    files are always read from the start). With `complete_lines_only` a last line without
    its newline is left for later (the writer may still be appending to it).
    `stats.end_offset`/`end_line` tell where to resume next time.
    """
    path = Path(path)
    stats = stats if stats is not None else ReadStats(str(path))
    fmt = fmt or detect_format(path)
    if fmt == "jsonl":
        yield from _read_jsonl(path, stats, start_offset, start_line, complete_lines_only)
    elif fmt == "json":
        yield from _read_json(path, stats)
    elif fmt == "markdown":
        yield from _read_markdown(path, stats, start_offset, start_line, complete_lines_only)
    else:
        raise ValueError(f"unknown transcript format {fmt!r}; allowed: {', '.join(FORMATS)}")


def _lines(
    handle: IO[bytes], stats: ReadStats, start_offset: int, start_line: int, complete_only: bool
) -> Iterator[tuple[int, str]]:
    """(line number, text) from a binary handle, keeping stats.end_offset/end_line exact."""
    handle.seek(start_offset)
    offset, number = start_offset, start_line
    stats.end_offset, stats.end_line = offset, number
    for raw in handle:
        if complete_only and not raw.endswith(b"\n"):
            break
        offset += len(raw)
        number += 1
        yield number, raw.decode("utf-8", errors="replace")
        stats.end_offset, stats.end_line = offset, number


# -- JSONL ------------------------------------------------------------------------------


def _read_jsonl(
    path: Path, stats: ReadStats, start_offset: int, start_line: int, complete_only: bool
) -> Iterator[Message]:
    # The hot loop of every large transcript: bytes go straight to json.loads (no decode
    # step), and plain `{role, content: "text"}` records skip the general dispatcher.
    where = f"{path}:"
    loads = json.loads
    with path.open("rb") as handle:
        handle.seek(start_offset)
        offset, number = start_offset, start_line
        stats.end_offset, stats.end_line = offset, number
        for raw in handle:
            if complete_only and not raw.endswith(b"\n"):
                break
            offset += len(raw)
            number += 1
            if raw.strip():
                try:
                    record = loads(raw)
                except ValueError as exc:
                    stats.warn(number, f"malformed JSON ({getattr(exc, 'msg', exc)})")
                    record = None
                if record is not None:
                    messages = _plain_message(record, where, number)
                    if messages is None:
                        messages = record_messages(record, f"{where}{number}", stats)
                    if messages is None:
                        stats.warn(
                            number, "not a message record (no role/content, type or mapping)"
                        )
                    else:
                        for message in messages:
                            stats.messages += 1
                            yield message
            stats.end_offset, stats.end_line = offset, number


def _plain_message(record: Any, where: str, number: int) -> list[Message] | None:
    """Fast path for the common generic record; None sends it to `record_messages`."""
    if type(record) is not dict:
        return None
    content = record.get("content")
    if type(content) is not str or "summary" in record or "type" in record:
        return None
    role = normalise_role(record.get("role"))
    if role is None:
        return None
    session = record.get("session_id") or record.get("sessionId") or ""
    stamp = record.get("timestamp") or record.get("time") or record.get("created_at") or ""
    return [
        Message(
            role,
            content,
            session if type(session) is str else str(session),
            stamp if type(stamp) is str else str(stamp),
            f"{where}{number}",
            record.get("kind") or "text",
        )
    ]


def record_messages(record: Any, locator: str, stats: ReadStats) -> list[Message] | None:
    """Messages in one decoded record; [] for known metadata, None when unrecognised.
    A record of a known kind with values of the wrong shape is skipped with a warning:
    one odd line never stops a transcript (or the inbox files after it)."""
    try:
        return _record_messages(record, locator, stats)
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError, RecursionError) as exc:
        stats.warn(locator.rpartition(":")[2] or locator, f"unreadable record ({exc!r:.80})")
        return []


def _record_messages(record: Any, locator: str, stats: ReadStats) -> list[Message] | None:
    if not isinstance(record, dict):
        return None
    kind = record.get("type")
    if isinstance(kind, str) and isinstance(record.get("message"), dict):
        return _claude_code(record, locator)
    if isinstance(kind, str) and kind in _IGNORED_TYPES:
        stats.ignored += 1
        return []
    if isinstance(record.get("mapping"), dict):
        return list(_openai_conversation(record, locator))
    if isinstance(record.get("messages"), list):
        return list(_conversation_messages(record, locator, stats))
    if isinstance(record.get("summary"), str) and "role" not in record:
        # A ready-made candidate in the entry format (e.g. dropped into the inbox).
        text = json.dumps(record, ensure_ascii=False, default=str)
        return [
            Message("note", text, str(record.get("session_id") or ""), "", locator, "candidate")
        ]
    message = Message.from_obj(record, locator=locator)
    return None if message is None else [message]


def _claude_code(record: dict[str, Any], locator: str) -> list[Message]:
    """One Claude Code session line: `type` user/assistant, `message.content` blocks."""
    body = record["message"]
    role = normalise_role(body.get("role") or record.get("type"))
    if role is None:
        return []
    if record.get("isMeta"):
        role = "system"  # harness-injected caveats and command echoes, not the person
    session = str(record.get("sessionId") or record.get("session_id") or "")
    stamp = str(record.get("timestamp") or "")
    content = body.get("content")
    if isinstance(content, str):
        return [Message(role, content, session, stamp, locator)]
    out: list[Message] = []
    texts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        block_type = block.get("type")
        if block_type == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block_type == "tool_use":
            out.append(
                Message("assistant", render_tool_use(block), session, stamp, locator, "tool_use")
            )
        elif block_type == "tool_result":
            text = content_text(block.get("content")) or ""
            out.append(Message("tool", text, session, stamp, locator, "tool_result"))
        # "thinking" blocks are the model's own guesses: never a source of memory.
    if texts:
        out.insert(0, Message(role, "\n".join(texts), session, stamp, locator))
    return out


def render_tool_use(block: dict[str, Any]) -> str:
    """A readable line for a tool call: the shell command itself for Bash-like tools."""
    name = str(block.get("name") or "tool")
    data = block.get("input")
    if isinstance(data, dict):
        for key in ("command", "cmd", "script"):
            if isinstance(data.get(key), str):
                return f"$ {data[key]}"
        for key in ("file_path", "path", "pattern", "url"):
            if isinstance(data.get(key), str):
                return f"[{name}] {data[key]}"
    return f"[{name}] {json.dumps(data, ensure_ascii=False)[:500]}"


def _conversation_messages(
    record: dict[str, Any], locator: str, stats: ReadStats
) -> Iterator[Message]:
    session = str(
        record.get("session_id")
        or record.get("conversation_id")
        or record.get("id")
        or record.get("title")
        or ""
    )
    for index, item in enumerate(record["messages"]):
        where = f"{locator}#{index}"
        found = record_messages(item, where, stats) if isinstance(item, dict) else None
        if found is None:
            stats.warn(where.rsplit(":", 1)[-1], "message without role/content")
            continue
        for message in found:
            message.session_id = message.session_id or session
            yield message


def _openai_conversation(record: dict[str, Any], locator: str) -> Iterator[Message]:
    """An OpenAI (ChatGPT) export conversation: walk the `mapping` tree along the thread."""
    mapping: dict[str, Any] = record["mapping"]
    session = str(record.get("conversation_id") or record.get("id") or record.get("title") or "")
    thread: list[dict[str, Any]] = []
    node_id = record.get("current_node")
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id] or {}
        if isinstance(node.get("message"), dict):
            thread.append(node["message"])
        node_id = node.get("parent")
    if thread:
        thread.reverse()
    else:  # no current_node: every message, in time order
        thread = [
            n["message"]
            for n in mapping.values()
            if isinstance(n, dict) and isinstance(n.get("message"), dict)
        ]
        thread.sort(key=lambda m: _time_key(m.get("create_time")))
    for index, message in enumerate(thread):
        author = message.get("author") or {}
        role = normalise_role(author.get("role") if isinstance(author, dict) else author)
        if role is None:
            continue
        content = message.get("content") or {}
        if isinstance(content, dict):
            parts = content.get("parts")
            text = content_text(parts) if parts is not None else content.get("text", "")
        else:
            text = content_text(content)
        if not text:
            continue
        yield Message(
            role,
            text,
            session,
            _epoch_iso(message.get("create_time")),
            f"{locator}#{index}",
            "tool_result" if role == "tool" else "text",
        )


def _time_key(value: Any) -> float:
    """Sort key for an export's `create_time`: numbers in order, anything else first."""
    return float(value) if isinstance(value, int | float) and value == value else 0.0


def _epoch_iso(value: Any) -> str:
    if isinstance(value, int | float) and value > 0:
        try:
            return dt.datetime.fromtimestamp(value, dt.UTC).replace(microsecond=0).isoformat()
        except (OverflowError, OSError, ValueError):  # 1e300: not a time anyone lived
            return ""
    return str(value or "")


# -- JSON -------------------------------------------------------------------------------


def _read_json(path: Path, stats: ReadStats) -> Iterator[Message]:
    with path.open("rb") as handle:
        for index, element in _iter_json_values(handle, stats):
            messages = record_messages(element, f"{path}#{index}", stats)
            if messages is None:
                stats.warn(f"#{index}", "not a message record")
                continue
            for message in messages:
                stats.messages += 1
                yield message
        stats.end_offset = handle.tell()


def _iter_json_values(handle: IO[bytes], stats: ReadStats) -> Iterator[tuple[int, Any]]:
    """Elements of a top-level JSON array one by one (or the single top-level value).

    Reads 1 MiB at a time and decodes each element with `raw_decode` as soon as it is
    complete, so memory holds one element, not the file.
    """
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    buffer = ""
    eof = False

    def more() -> bool:
        nonlocal buffer, eof
        if eof:
            return False
        chunk = handle.read(_CHUNK)
        if not chunk:
            eof = True
            buffer += utf8.decode(b"", final=True)
            return False
        buffer += utf8.decode(chunk)
        return True

    def skip_space(pos: int) -> int:
        nonlocal buffer
        while True:
            while pos < len(buffer) and buffer[pos] in " \t\r\n":
                pos += 1
            if pos < len(buffer) or not more():
                return pos

    pos = skip_space(0)
    if pos >= len(buffer):
        return
    if buffer[pos] != "[":  # a single value: the whole file is one record
        while more():
            pass
        try:
            yield 0, json.loads(buffer[pos:])
        except ValueError as exc:
            stats.warn(1, f"malformed JSON ({exc.msg})")
        return
    pos += 1
    index = 0
    while True:
        pos = skip_space(pos)
        if pos >= len(buffer):
            stats.warn(f"#{index}", "unterminated JSON array")
            return
        if buffer[pos] == "]":
            return
        if buffer[pos] == ",":
            pos += 1
            continue
        while True:
            try:
                value, end = decoder.raw_decode(buffer, pos)
                break
            except ValueError as exc:
                grown = len(buffer)
                # Not enough text yet: read until the buffer has doubled, then retry
                # (keeps the cost linear even for one very large element).
                while len(buffer) < 2 * grown and more():
                    pass
                if len(buffer) == grown:
                    stats.warn(f"#{index}", f"malformed JSON ({exc.msg})")
                    return
        yield index, value
        index += 1
        buffer = buffer[end:]
        pos = 0


# -- Markdown ---------------------------------------------------------------------------

_SPEAKER = re.compile(
    r"^\s*(?:#{1,6}\s*|>\s*)?(?:\*\*|__)?\s*"
    r"(?P<role>user|human|assistant|ai|system|tool|用户|助手|me|claude|chatgpt|gpt)"
    r"\s*(?:\*\*|__)?\s*(?P<colon>[:：])?\s*(?:\*\*|__)?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<title>.*)$")
_TIME_HEADING = re.compile(r"(?P<time>\b\d{1,2}:\d{2}(?::\d{2})?\b)")
_MAX_TURN_CHARS = 1 << 20


def _speaker(line: str) -> tuple[str, str] | None:
    match = _SPEAKER.match(line)
    if not match:
        return None
    is_heading = line.lstrip().startswith("#")
    if not (is_heading or match.group("colon")):
        return None  # "User" mid-sentence is not a marker; "User:" or "## User" is
    if is_heading and match.group("rest") and not match.group("colon"):
        return None  # "## User guide" is a heading, not a speaker
    role = normalise_role(match.group("role"))
    if role is None:
        role = "user" if match.group("role").lower() == "me" else "assistant"
    return role, match.group("rest")


def _read_markdown(
    path: Path, stats: ReadStats, start_offset: int, start_line: int, complete_only: bool
) -> Iterator[Message]:
    daily = _DAILY_LOG.match(path.name)
    session = daily.group(1) if daily else path.stem
    day = daily.group(1) if daily else ""
    with path.open("rb") as handle:
        lines = _lines(handle, stats, start_offset, start_line, complete_only)
        for message in _markdown_messages(lines, str(path), session, day, daily is not None, stats):
            stats.messages += 1
            yield message


def _markdown_messages(
    lines: Iterable[tuple[int, str]],
    where: str,
    session: str,
    day: str,
    daily: bool,
    stats: ReadStats,
) -> Iterator[Message]:
    role: str | None = None
    turn: list[str] = []
    turn_line = 0
    size = 0
    stamp = day
    in_fence = False

    def flush() -> Iterator[Message]:
        nonlocal turn, size
        text = "\n".join(turn).strip()
        if role and text:
            yield Message(role, text, session, stamp, f"{where}:{turn_line}")
        turn, size = [], 0

    for number, raw in lines:
        line = raw.rstrip("\r\n")
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        speaker = None if in_fence else _speaker(line)
        if speaker and not daily:
            yield from flush()
            role, rest = speaker
            turn_line = number
            if rest.strip():
                turn.append(rest)
            continue
        if role is not None and not daily:
            if size < _MAX_TURN_CHARS:
                turn.append(line)
                size += len(line)
            elif size == _MAX_TURN_CHARS:
                stats.warn(number, "turn longer than 1 MiB: the rest is skipped")
                size += 1
            continue
        # Notes mode: a daily log, or lines before the first speaker marker.
        heading = _HEADING.match(line)
        if heading:
            time = _TIME_HEADING.search(heading.group("title"))
            if time and day:
                stamp = f"{day}T{time.group('time')}"
            continue
        if line.strip() and not in_fence:
            yield Message("note", line.strip(), session, stamp, f"{where}:{number}")
    yield from flush()
