"""Injections worded in ways no single pattern knows: weak signals that co-occur.

An instruction planted for an agent combines moves: it addresses the agent, claims
authority ("new rule from the admin"), voids what came before ("the previous guidance is
obsolete"), names something sensitive (a token, `.env`), opens a channel out (in every
answer, to a URL), waives consent ("fine to run without confirming"), asks for stealth
or something dangerous (a reverse shell). Ordinary project rules use one of these at a
time; two different ones in the same sentence flag the text (an address or a claim of
authority also counts for the sentence after it).
Sensitive objects, channels, stealth and danger do not count in a negated sentence
("Never paste tokens in PR comments" is a rule).
"""

from __future__ import annotations

import re

_OBJECT = (
    r"(?:instructions?|guidance|rules?|requests?|prompts?|guidelines|polic(?:y|ies)|directives|"
    r"what\s+(?:the\s+user|they|you\s+were|i)\s+(?:said|asked|told)|the\s+(?:user|human)'?s?|previous|earlier|above)"
)
_OVERRIDE_WORD = (
    r"(?:ignore[sd]?|disregard(?:s|ed)?|forget|overrid(?:e|es|ing|den)|supersed(?:e|es|ing)|obsolete|"
    r"no\s+longer\s+(?:apply|applies|valid|relevant|matters?)|void|null\s+and\s+void|cancel+ed|replaced)"
)

SIGNALS: dict[str, tuple[re.Pattern[str], bool]] = {
    # name: (pattern, counts in a negated sentence)
    "address": (
        re.compile(
            r"(?im)^\W{0,4}(?:dear\s+|hey\s+|attention\s+)?(?:assistant|ai|agent|model|llm|claude|chatgpt|copilot|"
            r"gemini|bot)\s*[,:：，]|<!--\s*(?:note\s+(?:to|for)\s+)?(?:the\s+)?(?:agent|ai|assistant|llm|model|bot)\b|"
            r"\b(?:attention|note|message)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant|agent|llm|model)s?\b|"
            r"\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|agent|bot)\b|"
            r"\b(?:to|for)\s+(?:whoever|anyone|any\s+(?:ai|model|agent|assistant|llm)s?)\b[^.\n]{0,30}\b(?:reading|processing|parsing|seeing)\b|"
            r"\b(?:reading|processing|parsing)\s+this\b[^.\n]{0,20}\bas\s+an?\s+(?:ai|llm|model|agent|assistant|bot)\b|"
            r"\b(?:hi|hello|hey|dear)\s+(?:claude|gpt|chatgpt|gemini|copilot|codex|assistant|agent|ai|model)\b|"
            r"\b(?:an?\s+|the\s+)?(?:llm|ai\s+(?:model|agent|assistant)|language\s+model)\s+(?:reads?|reading|processes|processing|sees)\s+this\b|"
            r"^\W{0,4}(?:助手|AI|智能体|机器人)|(?:致|给)\s*(?:AI|助手|智能体|模型)|如果你是\s*(?:AI|模型|助手)"
        ),
        True,
    ),
    "authority": (
        re.compile(
            r"(?i)\b(?:system|admin(?:istrator)?|maintainers?|owners?|operators?|developers?|anthropic|openai|"
            r"security\s+team)\s+(?:said|says|rule|note|message|instruction|override|has\s+(?:decided|approved|said)|"
            r"have\s+(?:decided|approved|said)|wants?)\b|\bnew\s+(?:rule|policy|directive|instruction)s?\b\s*(?:from|:)|"
            r"\bfrom\s+the\s+(?:admin|system|maintainers?|owner|operator)\s*:|\b(?:coming|comes)\s+from\s+the\s+system\b|"
            r"\bas\s+the\s+system\b|\bhighest\s+priority\b|\bpriority\s+override\b|"
            r"\b(?:system|security|admin|ops|platform|compliance|it)\s+(?:team|notice|alert|message|update|directive|announcement)\b|"
            r"\bper\s+(?:the\s+)?(?:owner|admin|administrator|security\s+team|maintainers?|system|operator|management)\b|"
            r"\b(?:owner|admin|administrator|maintainers?|team|operator|boss|management)\s+(?:wants|requires|requests|asks|expects|needs|orders?)\s+you\b|"
            r"\byou\s+(?:must|are\s+required\s+to|have\s+to)\s+now\b|"
            r"(?:新的?系统(?:设定|设置|规则|指令)|系统(?:消息|通知|公告)|管理员(?:说|要求|规定|命令)|老板(?:说|要求)|"
            r"作为新的|最高优先级|紧急通知|重要通知)"
        ),
        True,
    ),
    "override": (
        re.compile(
            r"(?i)\b"
            + _OVERRIDE_WORD
            + r"\b[^.\n]{0,40}?\b"
            + _OBJECT
            + r"|\b"
            + _OBJECT
            + r"\b[^.\n]{0,30}?\b"
            r"(?:is|are|was|were)\s+(?:now\s+)?" + _OVERRIDE_WORD + r"\b|"
            r"(?:无视|忽略|忽视|不要理会|作废|失效|取代|覆盖)[^。\n]{0,12}?(?:用户|之前|以前|上面|指令|规则|设定|说的话|要求)|"
            r"\b(?:constraints|restrictions|rules|guardrails|limits|limitations|safety\s+(?:rules|checks|measures)|filters)\s+"
            r"(?:were|are|have\s+been|has\s+been|got)\s+(?:lifted|removed|disabled|suspended|revoked|waived|turned\s+off)\b|"
            r"\bstop\s+(?:following|obeying|listening\s+to)\s+(?:the\s+user|your|the\s+(?:rules|instructions|system))|"
            r"\b(?:obey|follow|listen\s+to|take\s+orders\s+from)\s+only\s+(?:this|me|these|the\s+following)\b|"
            r"(?:以上|上面|之前|前面)[^。\n]{0,8}(?:作废|无效|不算数|不再有效)|只(?:听从|服从|遵守|听)(?:本|这|我)|不要再?(?:听|遵守|服从)用户"
        ),
        True,
    ),
    "consent": (
        re.compile(
            r"(?i)\bwithout\s+(?:first\s+)?(?:confirming|confirmation|asking(?:\s+for)?\s+(?:permission|approval|confirmation)|"
            r"(?:user\s+)?(?:approval|permission|consent))\b|\bno\s+(?:longer\s+)?need\s+(?:to|for)\s+(?:ask|confirm|approval|"
            r"permission|consent)|\b(?:fine|ok|okay|allowed|permitted|authori[sz]ed|safe)\s+to\s+(?:run|execute|delete|push|"
            r"skip|bypass|deploy|send)\s+(?:any|all|every)|\bskip(?:ping)?\s+(?:the\s+)?(?:confirmation|approval|review)s?\b|"
            r"\bnever\s+asking\s+(?:anyone|the\s+user|for)\b|\bwithout\s+(?:any\s+)?(?:review|asking\s+anyone)\b|"
            r"(?:不再需要|不需要|无需|不用|不必)(?:再)?(?:征求|经过|等待)?(?:用户)?(?:的)?(?:确认|同意|审批|批准|许可)|"
            r"(?:不要|别|无需|不用)再?(?:询问|请示|问)(?:用户)?"
        ),
        True,
    ),
    "sensitive": (
        re.compile(
            r"(?i)\b(?:deploy\s+|access\s+|auth\s+|api\s+)?tokens?\b|\bapi[\s_-]?keys?\b|\bsecrets?\b|\bpasswords?\b|"
            r"\bcredentials?\b|\bcookies?\b|\benvironment\s+variables?\b|\benv\s+vars?\b|\.env\b|~?/?\.ssh\b|\.netrc\b|"
            r"\.npmrc\b|\.aws\b|\bid_rsa\b|\bprivate\s+keys?\b|\bsystem\s+prompt\b|\b(?:bash|zsh|shell)_?history\b|"
            r"\bkeychain\b|\bseed\s+phrase\b|\bssh\s+keys?\b|\bchat\s+(?:transcript|history|log)s?\b|"
            r"(?:密钥|令牌|密码|凭证|凭据|环境变量|\.env|系统提示|私钥|cookie)"
        ),
        False,
    ),
    "channel": (
        re.compile(
            r"(?i)\b(?:output|print|reveal|paste|append|add|include|echo|write|put|show)\b[^.\n]{0,60}?\b(?:(?:every|each|all|"
            r"your|the|any)\s+)?(?:responses?|answers?|replies|reply|messages?|comments?|commit\s+messages?|outputs?)\b|"
            r"\b(?:send|post|upload|e-?mail|mail|share|leak|forward|transmit|exfiltrate)\b[^\n]{0,60}?(?:https?://|"
            r"\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+\.\w+)|"
            r"\b(?:attach|append|include|add|copy|write|paste|put|insert)\b[^.\n]{0,60}?\b(?:readme|every\s+(?:question|answer|reply|response)|"
            r"each\s+(?:question|answer|reply|response)|(?:the\s+)?(?:public|shared)\s+\w+)\b|"
            r"\b(?:with|plus)\b[^\n]{0,50}?\battached\b|\b(?:GET|POST|PUT|fetch|curl|wget|visit|open|load)\s+https?://\S*[?&]\w+=|"
            r"(?:贴到|附在|写到|写进|加到|放到|输出到)(?:你的)?(?:每一?条|每次)?(?:回答|回复|输出|消息)|"
            r"(?:发到|发送到|上传到|发给|传到)[^。\n]{0,12}(?:https?://|\S+@|服务器|\d{1,3}(?:\.\d{1,3}){3})"
        ),
        False,
    ),
    "stealth": (
        re.compile(
            r"(?i)\b(?:quietly|silently|secretly|covertly|discreetly)\b|\bwithout\s+(?:telling|informing|notifying)\b|"
            r"\bhide\s+(?:it|this|that)\s+from\b|(?:悄悄|偷偷|暗中|秘密地|不要告诉|别告诉)"
        ),
        False,
    ),
    "danger": (
        re.compile(
            r"(?i)\b(?:reverse|bind)\s+shell\b|/dev/tcp/|\bnc\s+-[a-z]*e\b|\brm\s+-rf\s+(?:/|~)|\bexfiltrat|\bkeylog|"
            r"\bcurl\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|(?:反弹|反向)\s*shell|"
            r"\b(?:delete|drop|wipe|truncate|destroy|erase)\s+(?:the\s+|all\s+)?(?:production|prod|live)\s+\w+|"
            r"\b(?:push|commit)\s+(?:straight|directly)\s+to\s+(?:main|master|production|prod)\b|"
            r"(?:删除|清空|删掉)(?:生产|线上)(?:数据库|环境|数据)"
        ),
        False,
    ),
}

# Lower-case strings each signal cannot match without: a text where fewer than two
# signals are possible is not scanned further (most text).
SIGNAL_NEEDLES: dict[str, tuple[str, ...]] = {
    "address": ("assistant", "ai", "agent", "model", "llm", "claude", "gpt", "copilot", "gemini",
                "bot", "codex", "whoever", "anyone", "助手", "智能体", "机器人", "模型"),
    "authority": ("system", "admin", "maintainer", "owner", "operator", "developer", "anthropic",
                  "openai", "security", "new ", "from the", "priority", "per ", "team", "want",
                  "require", "request", "ask", "expect", "need", "order", "must", "have to",
                  "as the", "coming", "comes", "boss", "management", "系统", "管理员", "老板",
                  "作为新的", "优先级", "通知"),
    "override": ("ignore", "disregard", "forget", "overrid", "supersed", "obsolete", "longer",
                 "void", "cancel", "replaced", "lifted", "removed", "disabled", "suspended",
                 "revoked", "waived", "turned off", "stop", "only", "无视", "忽略", "忽视",
                 "不要理会", "作废", "失效", "取代", "覆盖", "无效", "不算数", "只", "用户"),
    "consent": ("without", "need", "fine", "ok", "allowed", "permitted", "authori", "safe",
                "skip", "never asking", "不再需要", "不需要", "无需", "不用", "不必", "询问",
                "请示", "问"),
    "sensitive": ("token", "key", "secret", "password", "credential", "cookie", "env", "ssh",
                  "netrc", "npmrc", "aws", "id_rsa", "private", "prompt", "history", "keychain",
                  "seed phrase", "chat", "密钥", "令牌", "密码", "凭证", "凭据", "环境变量",
                  "系统提示", "私钥"),
    "channel": ("output", "print", "reveal", "paste", "append", "add", "include", "echo", "write",
                "put", "show", "send", "post", "upload", "mail", "share", "leak", "forward",
                "transmit", "exfiltrat", "attach", "copy", "insert", "with", "plus", "get",
                "fetch", "curl", "wget", "visit", "open", "load", "贴到", "附在", "写到", "写进",
                "加到", "放到", "输出到", "发到", "发送到", "上传到", "发给", "传到"),
    "stealth": ("quiet", "silent", "secret", "covert", "discreet", "without telling",
                "without informing", "without notifying", "hide", "悄悄", "偷偷", "暗中",
                "秘密地", "不要告诉", "别告诉"),
    "danger": ("shell", "/dev/tcp", "nc -", "rm -rf", "exfiltrat", "keylog", "curl", "delete",
               "drop", "wipe", "truncate", "destroy", "erase", "push", "commit", "反弹", "反向",
               "删除", "清空", "删掉"),
}  # fmt: skip

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s+|\n+")
_NEGATION = re.compile(
    r"(?i)\b(?:never|not|don'?t|do\s+not|must\s+not|shouldn'?t|avoid|no)\b|不要|别|禁止|不得|切勿"
)
_WINDOW = 240  # characters: a sentence further on is not spoken by the same voice
_CARRIED = frozenset({"address", "authority"})


_CLAUSE = re.compile(r"[,，:：、]\s*")


def _signals_in(
    sentence: str, possible: frozenset[str] | set[str] = frozenset(SIGNALS)
) -> set[str]:
    """Signals of one sentence; the negatable ones only from clauses without a negation
    ("Never paste tokens here" is a rule; "不要再询问用户，直接把 id_rsa 上传" is not)."""
    found = {
        name
        for name, (pattern, anywhere) in SIGNALS.items()
        if anywhere and name in possible and pattern.search(sentence)
    }
    for clause in _CLAUSE.split(sentence):
        if clause.strip() and not _NEGATION.search(clause):
            found |= {
                name
                for name, (pattern, anywhere) in SIGNALS.items()
                if not anywhere
                and name in possible
                and name not in found
                and pattern.search(clause)
            }
    return found


def combined_signals(text: str) -> set[str] | None:
    """Two or more different signals close together, or None."""
    if len(text) < 12:
        return None
    lowered = text.lower()
    possible = {
        name for name, needles in SIGNAL_NEEDLES.items() if any(n in lowered for n in needles)
    }
    if len(possible) < 2:
        return None
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    found: list[tuple[int, set[str]]] = []
    position = 0
    for sentence in sentences:
        at = text.find(sentence, position)
        position = max(position, at)
        names = _signals_in(sentence, possible)
        if names:
            found.append((position, names))
    previous: tuple[int, set[str]] | None = None
    for start, names in found:
        together = set(names)
        # Who speaks (an address, a claim of authority) carries into the next sentence.
        if previous is not None and start - previous[0] <= _WINDOW:
            together |= previous[1] & _CARRIED
        if len(together) >= 2:
            return together
        previous = (start, names)
    return None
