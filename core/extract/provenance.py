"""Files, commands and the excerpt a candidate keeps as its provenance."""

from __future__ import annotations

import re
from functools import lru_cache

from memdesk.core.guard import redact_text

# -- provenance -------------------------------------------------------------------------

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_PATH = re.compile(
    r"(?<![\w/.@:-])((?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]*[A-Za-z][\w.@+-]*/?|"
    r"(?:[\w.@+-]+/)+[\w@+-]+\.[A-Za-z][\w]{0,9}|"
    r"[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|toml|yaml|yml|json|md|sh|rs|go|lua|sql|env|cfg|ini|lock|conf|service|txt))"
    r"(?![\w/])"
)
_BACKTICK = re.compile(r"`([^`\n]{2,200})`")
_COMMAND_WORDS = (
    r"uv|uvx|pytest|python3?|pip|git|gh|docker|docker-compose|podman|kubectl|helm|terraform|npm|npx|pnpm|"
    r"yarn|bun|node|cargo|cross|rustup|go|make|cmake|ssh|scp|rsync|curl|wget|grep|rg|cat|ls|cd|aws|gcloud|"
    r"az|ansible|systemctl|journalctl|brew|apt|apt-get|sudo|ruff|mypy|black|tox|nox|poetry|conda|mvn|gradle|"
    r"just|nvim|vim|tmux|psql|redis-cli|alembic|arq|celery|export|source"
)
_COMMAND_START = re.compile(rf"^(?:\$\s*)?(?:{_COMMAND_WORDS})(?:\s|$)")
_INLINE_COMMAND = re.compile(
    rf"(?<![\w/.-])(?:{_COMMAND_WORDS})\s+-{{0,2}}[A-Za-z0-9_.-]+(?:\s+[^\s\u3000-\u9fff\uff00-\uffef，。；：]+)*"
)


def mentioned_files(text: str) -> list[str]:
    text = _URL.sub(" ", text)
    out: list[str] = []
    for match in _PATH.finditer(text):
        path = match.group(1).rstrip(".,;:)")
        if path in ("/", "./", "../") or len(path) < 3 or path.count("/") == 0 and "." not in path:
            continue
        if re.fullmatch(r"[\d/.-]+", path) or path.startswith("//"):
            continue
        if path not in out:
            out.append(path)
    return out[:20]


def mentioned_commands(text: str) -> list[str]:
    out: list[str] = []
    for match in _BACKTICK.finditer(text):
        span = match.group(1).strip()
        if _COMMAND_START.match(span):
            out.append(span.removeprefix("$").strip())
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("$ "):
            out.append(stripped[2:].strip())
    if not out:
        for match in _INLINE_COMMAND.finditer(_BACKTICK.sub(" ", text)):
            out.append(match.group(0).strip())
    unique: list[str] = []
    for command in out:
        if command and command not in unique:
            unique.append(command[:300])
    return unique[:20]


_EXCERPT_MARGIN = 2000  # characters redacted beyond the cut: longer than any token


@lru_cache(maxsize=256)
def _redacted(text: str) -> str:
    """redact_text, once per message: a message often yields several candidates, and
    redacting is the costliest step of building one."""
    return redact_text(text)[0]


def excerpt_of(text: str, statement: str, width: int = 600) -> str:
    """The part of the message around the statement, at most `width` characters.

    Secrets are redacted before the cut: a cut through a token would leave a tail no
    pattern recognises. Only a margin around the cut is redacted (messages can be long)."""
    text = text.strip()
    at = text.find(statement[:40])
    if len(text) > width + 2 * _EXCERPT_MARGIN:
        start = max(0, (at if at >= 0 else 0) - width - _EXCERPT_MARGIN)
        text = text[start : start + 2 * width + 2 * _EXCERPT_MARGIN]
    text = _redacted(text)
    if len(text) <= width:
        return text
    at = text.find(statement[:40])
    if at < 0:
        return text[:width]
    start = max(0, at - (width - len(statement)) // 2)
    return text[start : start + width]
