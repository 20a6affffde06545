"""The message record every reader produces and every extractor consumes."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("memdesk.extract")

# Roles after normalisation. Readers map provider-specific names onto these.
ROLES: tuple[str, ...] = ("user", "assistant", "tool", "system", "note")
# Who actually wrote a message's words, finer than its role: a "user" record in an
# agent's log is not always the person. Only "person" (and "" for readers that cannot
# tell, where the role decides) counts as the person's own words.
ORIGINS: tuple[str, ...] = (
    "",  # unknown: trust the role
    "person",  # typed by the person (including messages queued mid-turn)
    "assistant",  # the agent's own reply
    "subagent",  # a prompt one agent wrote for another (Claude Code isSidechain)
    "compaction",  # a summary the agent wrote of earlier context
    "injected",  # instruction files, environment blocks, reminders put in by the tool
    "command",  # slash-command wrappers and local command output
    "tool",  # a tool call or its result
)
_ROLE_ALIASES: dict[str, str] = {
    "human": "user",
    "user": "user",
    "用户": "user",
    "me": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "agent": "assistant",
    "gpt": "assistant",
    "claude": "assistant",
    "助手": "assistant",
    "tool": "tool",
    "function": "tool",
    "tool_result": "tool",
    "ipython": "tool",
    "system": "system",
    "developer": "system",
    "note": "note",
}


def normalise_role(role: Any) -> str | None:
    """Map a provider's role name onto ROLES; None when it is not a role we know."""
    if not isinstance(role, str):
        return None
    return _ROLE_ALIASES.get(role.strip().lower())


@dataclass
class Message:
    """One turn of a conversation, with enough provenance to find it again.

    `role` is one of ROLES: "note" is a line from a daily log / notes file (already a
    statement, written by an agent or a person). `locator` is `file:line` (or
    `file#index` for whole-JSON files). `kind` says what the text is: plain "text",
    a "tool_use" (the call, e.g. a shell command) or a "tool_result".
    """

    role: str
    text: str
    session_id: str = ""
    timestamp: str = ""
    locator: str = ""
    kind: str = "text"
    origin: str = ""  # one of ORIGINS: who wrote these words
    record: str = ""  # the source record's type where the format has one (e.g. "attachment")

    @property
    def is_said(self) -> bool:
        """Words of the conversation itself: the person's or the assistant's own text (not
        a tool call or result, a sub-agent prompt, a summary or an injected file)."""
        return (
            self.kind == "text"
            and self.role in ("user", "assistant")
            and self.origin in ("", "person", "assistant")
        )

    @property
    def is_person(self) -> bool:
        """Words the person typed (not a sub-agent prompt, summary or injected file)."""
        if self.origin:
            return self.origin == "person"
        return self.role == "user"

    def to_json(self) -> dict[str, str]:
        out = {
            "role": self.role,
            "content": self.text,
            "session_id": self.session_id,
            "timestamp": self.timestamp,
            "locator": self.locator,
            "kind": self.kind,
        }
        if self.origin:
            out["origin"] = self.origin
        if self.record:
            out["record"] = self.record
        return out

    @classmethod
    def from_obj(cls, data: Any, *, locator: str = "") -> Message | None:
        """A message from a generic `{role, content}` object (content text or parts)."""
        if not isinstance(data, dict):
            return None
        role = normalise_role(data.get("role") or data.get("speaker") or data.get("author"))
        if role is None:
            return None
        text = content_text(data.get("content", data.get("text", "")))
        if text is None:
            return None
        return cls(
            role=role,
            text=text,
            session_id=str(data.get("session_id") or data.get("sessionId") or ""),
            timestamp=str(
                data.get("timestamp") or data.get("time") or data.get("created_at") or ""
            ),
            locator=str(data.get("locator") or locator),
            kind=str(data.get("kind") or "text"),
            origin=str(data.get("origin") or "") if data.get("origin") in ORIGINS else "",
        )


def content_text(content: Any) -> str | None:
    """Text of a `content` value: a string, or a list of parts (`{type: text, text}`...)."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return None
    pieces: list[str] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif isinstance(part.get("content"), str | list):
                inner = content_text(part["content"])
                if inner:
                    pieces.append(inner)
    return "\n".join(p for p in pieces if p)


@dataclass
class ReadStats:
    """What a reader did with one file: counts and the first warnings."""

    path: str
    messages: int = 0
    said: int = 0  # text messages of the person or the assistant (the conversation's length)
    skipped: int = 0  # malformed or unknown lines/records
    ignored: int = 0  # known records that carry no conversation (metadata lines)
    warnings: list[str] = field(default_factory=list)
    end_offset: int = 0  # byte offset after the last complete record read
    end_line: int = 0  # number of lines consumed (for the next incremental read)

    MAX_WARNINGS = 20

    def warn(self, line: int | str, message: str) -> None:
        self.skipped += 1
        text = f"{self.path}:{line}: {message}"
        if len(self.warnings) < self.MAX_WARNINGS:
            self.warnings.append(text)
            # Callers show `warnings` themselves; at warning level Python's last-resort
            # handler would print every one a second time.
            log.info("%s", text)

    def summary(self) -> str:
        note = f"{self.messages} message(s)"
        if self.skipped:
            note += f", {self.skipped} line(s) skipped"
        return f"{self.path}: {note}"
