"""The do-not-write guard (seed 004's "不写入" list), applied to every entry before disk.

`screen(entry)` returns a `Verdict`: a cleaned copy of the entry, or `None` when the entry
must not be written at all. What it does, in order:

1. Secrets (provider API keys, AWS key pairs, GitHub/Slack/npm/... tokens, JWTs, PEM private
   keys, passwords in URLs, Authorization headers, cookies, `KEY=secret` assignments) are
   replaced by `[REDACTED:<kind>]` in every text field of the entry.
2. Personal home paths (`/home/NAME/`, `/Users/NAME/`, `C:\\Users\\NAME\\`) become `~/`.
3. Refused outright: recalled `<agent_memory>` blocks (never re-store injected memory),
   whole tool outputs, chit-chat without a conclusion, model guesses and drafts, and entries
   where nothing useful is left once the secrets are gone (a `.env` dump, a bare key).
4. Text that tries to instruct the agent (prompt injection, exfiltration, piping downloads
   into a shell), in English or Chinese, is kept but flagged `flags["suspicious"] = reason`.

Everything is regular expressions compiled once at import: the Store calls this on every
write, so it must be fast and give the same answer for the same input.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from memdesk.core.entry import Entry

REDACTED_PREFIX = "[REDACTED:"
_ALREADY = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


@dataclass
class Verdict:
    """What the guard decided. `entry is None` means refused: nothing may be written."""

    entry: Entry | None
    reasons: list[str] = field(default_factory=list)
    redactions: int = 0

    @property
    def refused(self) -> bool:
        return self.entry is None


# --------------------------------------------------------------------------------------
# Secrets. Each rule: (kind, compiled pattern, replacement builder). Order matters: the
# specific provider formats run first so a later generic rule sees `[REDACTED:...]` and
# leaves it alone.
# --------------------------------------------------------------------------------------


def _mark(kind: str) -> str:
    return f"{REDACTED_PREFIX}{kind}]"


_Replacer = Callable[[re.Match[str]], str]


def _whole(kind: str) -> _Replacer:
    return lambda m: _mark(kind)


def _group_only(kind: str, group: int) -> _Replacer:
    """Replace only `group` of the match, keeping the rest (e.g. the header name)."""

    def replace(m: re.Match[str]) -> str:
        value = m.group(group)
        if value is None or value.startswith(REDACTED_PREFIX):
            return m.group(0)
        start, end = m.start(group) - m.start(0), m.end(group) - m.start(0)
        whole = m.group(0)
        return whole[:start] + _mark(kind) + whole[end:]

    return replace


_B = r"(?<![A-Za-z0-9_])"  # left boundary that treats '_' as part of a word
_E = r"(?![A-Za-z0-9_])"

_PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_]|\$\(|%[A-Za-z_]|<[^>]*>?|\{\{|\[REDACTED|\*{3,}|x{3,}|X{3,}|\.{3}|…
        |(?:true|false|null|none|nil|yes|no|on|off|required|optional|string|str|bytes|
           env|secret|secrets|example|changeme|include|omit|same-origin|none|inherit|redacted|placeholder|your[_-].*|
           os\.environ.*|process\.env.*|getenv.*|settings\..*|config\..*)$
        |\d+$
    )""",
    re.IGNORECASE | re.VERBOSE,
)


def _assignment(m: re.Match[str]) -> str:
    """`PASSWORD=...`, `"token": "..."`: redact the value unless it is a reference/placeholder."""
    key, value = m.group("key"), m.group("value").rstrip(".,:;)]}")
    if len(value) < 4 or _PLACEHOLDER.match(value):
        return m.group(0)
    upper = key.upper()
    if "AWS" in upper and "SECRET" in upper:
        kind = "aws-secret"
    elif "PASS" in upper or "PWD" in upper:
        kind = "password"
    elif "COOKIE" in upper or "SESSION" in upper:
        kind = "cookie"
    elif "KEY" in upper:
        kind = "api-key"
    elif "SECRET" in upper:
        kind = "secret"
    else:
        kind = "token"
    start = m.start("value") - m.start(0)
    whole = m.group(0)
    return whole[:start] + _mark(kind) + whole[start + len(value) :]


def _url_password(m: re.Match[str]) -> str:
    password = m.group("pw")
    if password.startswith(REDACTED_PREFIX) or _PLACEHOLDER.match(password):
        return m.group(0)
    return f"{m.group('scheme')}{m.group('user')}:{_mark('url-password')}@"


_SECRET_VALUE = r"[A-Za-z0-9!#$%&()*+./:=?@^_{|}~\\\[\]-]"

_SECRET_RULES: list[tuple[str, re.Pattern[str], _Replacer]] = [
    (
        "private-key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
        _whole("private-key"),
    ),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{4,}"),
        _whole("jwt"),
    ),
    (
        "anthropic-key",
        re.compile(_B + r"sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_-]{20,}"),
        _whole("anthropic-key"),
    ),
    (
        "openai-key",
        re.compile(_B + r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
        _whole("openai-key"),
    ),
    (
        "stripe-key",
        re.compile(_B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        _whole("stripe-key"),
    ),
    ("stripe-webhook-secret", re.compile(_B + r"whsec_[A-Za-z0-9]{20,}"), _whole("stripe-key")),
    ("google-api-key", re.compile(_B + r"AIza[0-9A-Za-z_-]{35}"), _whole("google-api-key")),
    ("google-oauth-token", re.compile(_B + r"ya29\.[0-9A-Za-z_-]{20,}"), _whole("google-oauth")),
    (
        "github-token",
        re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        _whole("github-token"),
    ),
    ("gitlab-token", re.compile(_B + r"glpat-[A-Za-z0-9_-]{20,}"), _whole("gitlab-token")),
    ("slack-token", re.compile(_B + r"xox[abposrec]-[A-Za-z0-9-]{10,}"), _whole("slack-token")),
    (
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
        _whole("slack-webhook"),
    ),
    ("npm-token", re.compile(_B + r"npm_[A-Za-z0-9]{30,}"), _whole("npm-token")),
    ("sentry-token", re.compile(_B + r"sntry[us]_[A-Za-z0-9_=+/-]{20,}"), _whole("sentry-token")),
    ("huggingface-token", re.compile(_B + r"hf_[A-Za-z0-9]{30,}"), _whole("hf-token")),
    ("pypi-token", re.compile(_B + r"pypi-[A-Za-z0-9_-]{40,}"), _whole("pypi-token")),
    (
        "aws-access-key-id",
        re.compile(_B + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}" + _E),
        _whole("aws-access-key-id"),
    ),
    (
        "authorization-header",
        re.compile(
            r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest|apikey|negotiate)\s+)?(?P<v>[^\s\"',;]+)"
        ),
        _group_only("auth-header", 1),
    ),
    (
        "bearer-token",
        re.compile(r"(?i)\b(?:bearer|basic)\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})"),
        _group_only("auth-header", 1),
    ),
    (
        "cookie",
        re.compile(r"(?i)\b(?:set-)?cookie\s*:\s*(?P<v>[^\n'\"]+)"),
        _group_only("cookie", 1),
    ),
    (
        "url-password",
        re.compile(
            r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^\s:/@'\"]*):(?P<pw>[^\s@/'\"]+)@"
        ),
        _url_password,
    ),
    (
        "assignment",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])[\"']?(?P<key>[A-Za-z0-9_.-]*"
            r"(?:passw(?:or)?d|passwd|pwd|secret(?!s)|token(?!s)|api[_-]?key(?!s)|apikey|access[_-]?key(?!s)|"
            r"private[_-]?key|client[_-]?secret|session[_-]?(?:id|key)|auth[_-]?key|credentials?)"
            r"[A-Za-z0-9_.-]*)[\"']?\s*(?:=|:)\s*[\"']?(?P<value>" + _SECRET_VALUE + r"+)"
        ),
        _assignment,
    ),
]

# Cheap pre-checks: a rule's regex only runs when one of these (lower-case) strings is in
# the text. Most text has no secret at all, and `in` on a string is far cheaper than a
# regex scan; this keeps screen() fast enough to run on every write and every extraction.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private-key": ("private key",),
    "jwt": ("eyj",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "stripe-key": ("_live_", "_test_"),
    "stripe-webhook-secret": ("whsec_",),
    "google-api-key": ("aiza",),
    "google-oauth-token": ("ya29.",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "gitlab-token": ("glpat-",),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "npm-token": ("npm_",),
    "sentry-token": ("sntry",),
    "huggingface-token": ("hf_",),
    "pypi-token": ("pypi-",),
    "aws-access-key-id": ("akia", "asia", "abia", "acca", "agpa", "aroa", "anpa", "anva", "apka"),
    "authorization-header": ("authorization",),
    "bearer-token": ("bearer", "basic"),
    "cookie": ("cookie",),
    "url-password": ("://",),
    "assignment": (
        "pass",
        "pwd",
        "secret",
        "token",
        "key",
        "credential",
        "session",
    ),
}


_ANY_NEEDLE = re.compile(
    "|".join(re.escape(n) for n in sorted({n for ns in _NEEDLES.values() for n in ns}))
)

# With an AWS access key id in the same text, a lone 40-character base64 word is its secret.
_AWS_SECRET_BARE = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")

_HOME_PATHS: list[re.Pattern[str]] = [
    re.compile(r"(?<![A-Za-z0-9_.~-])/home/(?!\[)[^/\s'\"`:;,)\]]+(?=/|\b|$)"),
    re.compile(r"(?<![A-Za-z0-9_.~-])/Users/(?!Shared\b)[^/\s'\"`:;,)\]]+(?=/|\b|$)"),
    re.compile(r"(?i)\b[A-Z]:\\+Users\\+(?!Public\b)[^\\\s'\"`:;,)\]]+(?=\\|\b|$)"),
]


def redact_text(text: str) -> tuple[str, int]:
    """Replace every secret in `text` by `[REDACTED:<kind>]`; returns (text, how many)."""
    if not text:
        return text, 0
    lowered = text.lower()
    if not _ANY_NEEDLE.search(lowered):
        return text, 0
    count = 0
    for name, pattern, replacer in _SECRET_RULES:
        needles = _NEEDLES.get(name)
        if needles is not None and not any(n in lowered for n in needles):
            continue
        if name == "assignment" and "=" not in text and ":" not in text:
            continue
        if name == "url-password" and "@" not in text:
            continue
        new_text, n = pattern.subn(replacer, text)
        if n and new_text != text:
            count += len(_ALREADY.findall(new_text)) - len(_ALREADY.findall(text))
            text = new_text
    if "[REDACTED:aws-access-key-id]" in text:
        text, n = _AWS_SECRET_BARE.subn(_mark("aws-secret"), text)
        count += n
    return text, count


def shorten_home_paths(text: str) -> tuple[str, int]:
    """`/home/NAME/x`, `/Users/NAME/x`, `C:\\Users\\NAME\\x` -> `~/x` (names are personal)."""
    total = 0
    for pattern in _HOME_PATHS:
        text, n = pattern.subn("~", text)
        total += n
    if total:
        text = text.replace("~\\", "~/")
    return text, total


# --------------------------------------------------------------------------------------
# Prompt injection: text that tries to instruct the agent. Stored, but flagged.
# --------------------------------------------------------------------------------------

_SENSITIVE_EN = (
    r"(?:~?/?\.ssh|id_rsa|id_ed25519|\.aws|credentials?|\.env\b|secrets?|private keys?|"
    r"api[ _-]?keys?|tokens?|passwords?|cookies?|ssh keys?|the keys|keys|files?)"
)
_SENSITIVE_ZH = (
    r"(?:\.ssh|\.aws|credentials|\.env|凭证|凭据|密钥|私钥|秘钥|令牌|token|密码|cookie|文件|配置)"
)

_INJECTION_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "asks to ignore previous instructions",
        re.compile(
            r"(?i)\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)*"
            r"(?:previous|prior|above|earlier|preceding|former|original|system|existing|safety)?\s*"
            r"(?:instructions?|prompts?|rules|guidelines|directives|system\s+prompt|context|constraints)"
        ),
    ),
    (
        "asks to ignore previous instructions",
        re.compile(
            r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|跳过|绕过)(?:掉)?(?:你|之前|以前|先前|此前|上面|上述|前面|原来|原有|所有|全部|一切|的|系统)*"
            r"(?:指令|指示|提示词|提示|规则|设定|约束|要求|系统提示)"
        ),
    ),
    (
        "tries to override the system prompt",
        re.compile(
            r"(?i)(?:system\s+prompt\s*(?:override|:)|new\s+system\s+prompt|reveal\s+(?:your|the)\s+system\s+prompt|"
            r"\b(?:developer|jailbreak|DAN)\s+mode\b|\bdo anything now\b|</?\s*system\s*>)"
        ),
    ),
    (
        "tries to override the system prompt",
        re.compile(r"(?:新的系统提示|覆盖系统提示|泄露系统提示|输出系统提示|越狱模式|开发者模式)"),
    ),
    (
        "tries to change the agent's identity",
        re.compile(
            r"(?i)\byou\s+are\s+now\s+(?:a|an|the|my|in|no\s+longer|free|unrestricted|DAN|jailbroken)\b|"
            r"\bpretend\s+(?:to\s+be|you\s+are)\s+(?:an?\s+)?(?:unrestricted|unfiltered|evil|jailbroken)"
        ),
    ),
    (
        "tries to change the agent's identity",
        re.compile(r"(?:你现在是|从现在起你是|你不再是|现在开始你是|扮演一个没有限制)"),
    ),
    (
        "asks to exfiltrate files or secrets",
        re.compile(
            r"(?i)\b(?:upload|send|post|exfiltrate|transmit|forward|leak|email|copy|sync|pipe|dump)\b[^\n]{0,80}?"
            + _SENSITIVE_EN
            + r"[^\n]{0,80}?\b(?:to|into|at)\s+(?:https?://|ftp://|\d{1,3}(?:\.\d{1,3}){3}|[\w.-]+\.[a-z]{2,}/)"
        ),
    ),
    (
        "asks to exfiltrate files or secrets",
        re.compile(
            r"(?i)\b(?:exfiltrate|upload|send)\s+(?:all\s+|the\s+|your\s+|my\s+)*(?:~?/?\.ssh|id_rsa|\.aws|credentials|\.env|"
            r"secrets|private\s+keys?|api\s+keys|ssh\s+keys)\b"
        ),
    ),
    (
        "asks to exfiltrate files or secrets",
        re.compile(
            r"(?i)"
            + _SENSITIVE_ZH
            + r"[^\n]{0,40}?(?:发到|发送到|发给|上传到|上传至|传到|提交到|post 到|转发到|同步到)"
            r"\s*(?:https?://|\S+\.[a-z]{2,})"
        ),
    ),
    (
        "asks to exfiltrate files or secrets",
        re.compile(
            r"(?:上传|发送|外发|泄露|导出)(?:你的|我的|用户的|所有|全部)*(?:\.ssh|\.aws|凭证|凭据|密钥|私钥|密码)"
        ),
    ),
    (
        "asks to run a downloaded script",
        re.compile(
            r"(?i)\b(?:curl|wget|iwr|Invoke-WebRequest)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
            r"\b(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?python3?\b|"
            r"\bbase64\s+-d[^\n|]{0,40}\|\s*(?:ba)?sh\b|/dev/tcp/|\bnc\s+-e\b|\brm\s+-rf\s+(?:/|~)(?:\s|$)"
        ),
    ),
    (
        "asks to run commands",
        re.compile(
            r"(?i)\b(?:run|execute)\s+(?:this|these|the\s+following)\s+(?:commands?|scripts?)\s+(?:silently|without\s+(?:asking|telling))|"
            r"\bwithout\s+(?:telling|asking|informing)\s+the\s+user\b|\bdo\s+not\s+(?:tell|inform)\s+the\s+user\b"
        ),
    ),
    (
        "asks to run commands",
        re.compile(r"(?:悄悄|偷偷|不要告诉用户|别告诉用户)[^\n]{0,20}(?:执行|运行|发送|上传)"),
    ),
]


# Words each rule cannot match without (lower-case), checked with `in` before its regex
# runs, in the order of _INJECTION_RULES; None means always run (cheap literal regexes).
_INJECTION_NEEDLES: list[tuple[str, ...] | None] = [
    ("ignore", "disregard", "forget", "override", "bypass", "skip"),
    None,
    ("system", "mode", "do anything now"),
    None,
    ("now", "pretend"),
    None,
    (
        "upload",
        "send",
        "post",
        "exfiltrate",
        "transmit",
        "forward",
        "leak",
        "email",
        "copy",
        "sync",
        "pipe",
        "dump",
    ),
    ("exfiltrate", "upload", "send"),
    ("发到", "发送到", "发给", "上传到", "上传至", "传到", "提交到", "post 到", "转发到", "同步到"),
    None,
    ("curl", "wget", "iwr", "invoke-webrequest", "base64", "/dev/tcp", "nc", "rm"),
    ("run", "execute", "without", "not"),
    None,
]


def detect_injection(text: str) -> str | None:
    """The reason `text` looks like a prompt injection, or None."""
    if not text:
        return None
    lowered = text.lower()
    for (reason, pattern), needles in zip(_INJECTION_RULES, _INJECTION_NEEDLES, strict=True):
        if needles is not None and not any(n in lowered for n in needles):
            continue
        if pattern.search(text):
            return reason
    return None


# --------------------------------------------------------------------------------------
# Refusals: recalled memory, tool outputs, chit-chat, guesses/drafts, nothing left.
# --------------------------------------------------------------------------------------

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


def _nothing_useful_left(text: str, redactions: int) -> str | None:
    """After redaction: is the summary a `.env` dump or a bare secret? Returns the reason."""
    if not redactions:
        return None
    lines = [line for line in text.splitlines() if line.strip()]
    env_lines = [line for line in lines if _ENV_LINE.match(line)]
    if len(env_lines) >= 2 and len(env_lines) * 2 >= len(lines):
        return "looks like a .env dump (KEY=secret lines)"
    remainder = _ALREADY.sub(" ", text)
    remainder = re.sub(r"(?m)^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*[=:]\s*$", " ", remainder)
    remainder = re.sub(r"[A-Z][A-Z0-9_]{2,}\s*[=:]", " ", remainder)
    if len(_USEFUL.findall(remainder)) < 3:
        return "nothing useful left once the secret is removed"
    return None


# --------------------------------------------------------------------------------------
# screen()
# --------------------------------------------------------------------------------------


def _clean(text: str) -> tuple[str, int, int]:
    text, secrets = redact_text(text)
    text, homes = shorten_home_paths(text)
    return text, secrets, homes


def screen(entry: Entry) -> Verdict:
    """Screen one entry; never mutates the argument. See the module docstring."""
    reasons: list[str] = []
    summary = entry.summary
    # Refusals that look at the raw text first: a recalled block is refused even if it
    # also contains secrets, and the reason should say so.
    for text in (summary, *entry.facts):
        if is_recalled_block(text):
            return Verdict(
                None, ["recalled <agent_memory> block: injected memory is never re-stored"]
            )
    if is_chitchat(summary):
        return Verdict(None, ["chit-chat without a conclusion"])
    if looks_like_tool_output(summary):
        return Verdict(None, ["whole tool output: keep the conclusion, not the output"])
    if is_guess_or_draft(summary):
        return Verdict(None, ["model guess or draft: only confirmed facts are written"])

    redactions = 0
    homes = 0
    clean = entry.copy()

    def fix(text: str) -> str:
        nonlocal redactions, homes
        new, n_secret, n_home = _clean(text)
        redactions += n_secret
        homes += n_home
        return new

    clean.summary, summary_secrets, summary_homes = _clean(summary)
    redactions += summary_secrets
    homes += summary_homes
    left = _nothing_useful_left(clean.summary, summary_secrets)
    if left:
        return Verdict(None, [left], redactions)
    clean.facts = []
    for fact in entry.facts:
        new_fact, n_secret, n_home = _clean(fact)
        redactions += n_secret
        homes += n_home
        if not _nothing_useful_left(new_fact, n_secret):
            clean.facts.append(new_fact)
    clean.tags = [fix(t) for t in entry.tags]
    src = clean.source
    src.excerpt = fix(src.excerpt)
    src.commands = [fix(c) for c in src.commands]
    src.files = [fix(f) for f in src.files]
    src.locator = fix(src.locator)
    src.session_id = fix(src.session_id)
    clean.flags = {k: fix(v) for k, v in entry.flags.items()}
    if redactions:
        reasons.append(f"redacted {redactions} secret(s)")
    if homes:
        reasons.append("shortened personal home path(s) to ~")

    injection = None
    for text in (summary, *entry.facts):
        injection = detect_injection(text)
        if injection:
            break
    if injection and "suspicious" not in clean.flags:
        clean.flags["suspicious"] = injection
    if injection:
        reasons.append(f"suspicious: {injection}")
    return Verdict(clean, reasons, redactions)
