"""The ChatGPT (OpenAI) data export: `conversations.json`.

A JSON array of conversations; each holds its messages in a `mapping` tree of nodes
(`parent` / `children`), and `current_node` names the leaf of the thread the person
kept. The reader walks from that leaf up to the root, so abandoned branches (edited or
regenerated turns) are left out. Authors: `user` is the person, `assistant` the model,
`tool` a tool's output, `system` (and hidden context messages) injected.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdesk.core.extract.formats.common import first_byte, message
from memdesk.core.extract.formats.jsonstream import iter_json_values
from memdesk.core.extract.messages import Message, ReadStats, content_text

NAME = "chatgpt"
LINE_BASED = False
DESCRIPTION = "ChatGPT export (conversations.json, mapping tree)"

_MAPPING = re.compile(rb'"mapping"\s*:\s*\{')
_ORIGIN_OF_AUTHOR = {
    "user": "person",
    "assistant": "assistant",
    "tool": "tool",
    "system": "injected",
}


def sniff(path: Path, head: bytes) -> bool:
    return first_byte(head) in (b"[", b"{") and _MAPPING.search(head) is not None


def read(
    path: Path,
    stats: ReadStats,
    *,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
) -> Iterator[Message]:
    with path.open("rb") as handle:
        for index, element in iter_json_values(handle, stats):
            items = element if isinstance(element, list) else [element]
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("mapping"), dict):
                    yield from conversation_messages(item, f"{path}#{index}")
                else:
                    stats.warn(f"#{index}", "not a conversation (no mapping)")
        stats.end_offset = handle.tell()


def conversation_messages(record: dict[str, Any], locator: str) -> Iterator[Message]:
    """One conversation: walk the `mapping` tree along the kept thread."""
    mapping: dict[str, Any] = record["mapping"]
    session = str(record.get("conversation_id") or record.get("id") or record.get("title") or "")
    thread: list[dict[str, Any]] = []
    node_id = record.get("current_node")
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break  # a damaged tree: the thread ends here
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
    for index, item in enumerate(thread):
        author = item.get("author") or {}
        role = author.get("role") if isinstance(author, dict) else author
        origin = _ORIGIN_OF_AUTHOR.get(str(role))
        if origin is None:
            continue
        metadata = item.get("metadata") or {}
        if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
            origin = "injected"  # custom instructions and other hidden context
        content = item.get("content") or {}
        if isinstance(content, dict):
            parts = content.get("parts")
            text = content_text(parts) if parts is not None else content.get("text", "")
        else:
            text = content_text(content)
        if not text:
            continue
        yield message(
            origin,
            text,
            session=session,
            stamp=epoch_iso(item.get("create_time")),
            locator=f"{locator}#{index}",
            kind="tool_result" if origin == "tool" else "text",
        )


def _time_key(value: Any) -> float:
    """Sort key for an export's `create_time`: numbers in order, anything else first."""
    return float(value) if isinstance(value, int | float) and value == value else 0.0


def epoch_iso(value: Any) -> str:
    if isinstance(value, int | float) and value > 0:
        try:
            return dt.datetime.fromtimestamp(value, dt.UTC).replace(microsecond=0).isoformat()
        except (OverflowError, OSError, ValueError):  # 1e300: not a time anyone lived
            return ""
    return str(value or "")
