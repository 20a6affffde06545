"""What the guard refuses outright: recalled memory, tool outputs, chit-chat, guesses and
drafts, and entries with nothing useful left once their secrets are gone."""

from __future__ import annotations

import re

from memdesk.core.guard.secrets import ALREADY

_RECALLED = re.compile(
    r"(?i)</?\s*(?:agent_memory|agent-memory|recalled_memory|memory_context|memories)\s*>"
)
_CHITCHAT_WORD = (
    r"(?:thanks?(?: you)?(?: so much| a lot)?|thx|ty|ok(?:ay)?|k|cool|nice|great|lol|lmao|haha+|hi|hello|hey|"
    r"good (?:morning|night|evening|afternoon)|bye|see you|got it|sounds good|works now|never ?mind|"
    r"谢谢|多谢|感谢|好的|好|嗯+|哦+|哈+|呵呵|早上好|晚安|晚上好|你好|拜拜|收到|明白|不错|可以|行|没事|对|"
    r"辛苦了?|先这样|就这样|算了|好吧|随便聊聊|今天好累|我先去吃饭了|其他的明天再说)"
    r"(?:吧|啦|呀|哈|了|吗|呢|哦)*"
)
# One or more chit-chat words separated by punctuation, spaces or emoji; nothing else.
_CHITCHAT = re.compile(r"(?i)^[\W_]*(?:" + _CHITCHAT_WORD + r"[\W_]*)+$")
# Text marked as a guess or a draft. Hedged wording alone ("maybe", "也许") is not refused
# here: the guard runs on every write, and a person's own "也许可以…" idea is theirs to
# keep; the extractor drops hedged statements instead (it knows who said them).
_GUESS_OR_DRAFT = re.compile(
    r"(?i)^\s*(?:\[?(?:draft|wip|guess|tbd|unverified)\]?\s*[:：-]|"
    r"\((?:draft|guess|unverified)\)|(?:my\s+guess|i\s+guess|just\s+a\s+guess)\b|"
    r"(?:草稿|初稿|猜测|推测|未经确认|待确认)\s*[:：]|我猜|瞎猜)"
    r"|[(（](?:draft|guess|unverified|草稿|猜测|未经确认)[)）]\s*$"
)
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*=")
_USEFUL = re.compile(r"[A-Za-z]{2,}|[\u3400-\u9fff\u3040-\u30ff\uac00-\ud7af]")
_SHELL_PROMPT = re.compile(r"^\s*(?:\$|#|>>>|PS [A-Z]:\\.*>|\w+@[\w.-]+:[^$]*\$)\s")
_LOG_LINE = re.compile(
    r"^\s*(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[\s*\d+[.:]\d+|[=\-_*#~]{6,}|[{}\[\],]\s*$|\"[\w-]+\"\s*:|"
    r"(?:INFO|DEBUG|WARN(?:ING)?|ERROR|TRACE|FATAL)\b|E\s{2,}|\s{4,}\S|at\s+[\w.$]+\(|Traceback|File \")"
)


def is_recalled_block(text: str) -> bool:
    return bool(_RECALLED.search(text))


def looks_like_tool_output(text: str) -> bool:
    """A pasted command output / log / JSON dump rather than a statement of fact."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 6:
        return False
    if _SHELL_PROMPT.match(lines[0]) and len(lines) >= 6:
        return True
    log_like = sum(1 for line in lines if _LOG_LINE.match(line) or _SHELL_PROMPT.match(line))
    return log_like * 2 >= len(lines) or len(text) > 3000


def is_chitchat(text: str) -> bool:
    stripped = text.strip()
    return not stripped or (len(stripped) <= 80 and bool(_CHITCHAT.match(stripped)))


def is_guess_or_draft(text: str) -> bool:
    return bool(_GUESS_OR_DRAFT.search(text))


def nothing_useful_left(text: str, redactions: int) -> str | None:
    """After redaction: is the summary a `.env` dump or a bare secret? Returns the reason."""
    if not redactions:
        return None
    lines = [line for line in text.splitlines() if line.strip()]
    env_lines = [line for line in lines if _ENV_LINE.match(line)]
    if len(env_lines) >= 2 and len(env_lines) * 2 >= len(lines):
        return "looks like a .env dump (KEY=secret lines)"
    remainder = ALREADY.sub(" ", text)
    remainder = re.sub(r"(?m)^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*[=:]\s*$", " ", remainder)
    remainder = re.sub(r"[A-Z][A-Z0-9_]{2,}\s*[=:]", " ", remainder)
    if len(_USEFUL.findall(remainder)) < 3:
        return "nothing useful left once the secret is removed"
    return None
