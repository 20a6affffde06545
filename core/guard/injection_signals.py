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
            r"^\W{0,4}(?:助手|AI|智能体|机器人)\s*[,:：，]"
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
            r"(?:新的?系统(?:设定|设置|规则|指令)|系统消息|管理员(?:说|要求|规定)|作为新的|最高优先级)"
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
            r"(?:无视|忽略|忽视|不要理会|作废|失效|取代|覆盖)[^。\n]{0,12}?(?:用户|之前|以前|上面|指令|规则|设定|说的话|要求)"
        ),
        True,
    ),
    "consent": (
        re.compile(
            r"(?i)\bwithout\s+(?:first\s+)?(?:confirming|confirmation|asking(?:\s+for)?\s+(?:permission|approval|confirmation)|"
            r"(?:user\s+)?(?:approval|permission|consent))\b|\bno\s+(?:longer\s+)?need\s+(?:to|for)\s+(?:ask|confirm|approval|"
            r"permission|consent)|\b(?:fine|ok|okay|allowed|permitted|authori[sz]ed|safe)\s+to\s+(?:run|execute|delete|push|"
            r"skip|bypass|deploy|send)\s+(?:any|all|every)|\bskip(?:ping)?\s+(?:the\s+)?(?:confirmation|approval|review)s?\b|"
            r"(?:不再需要|不需要|无需|不用|不必)(?:再)?(?:征求|经过|等待)?(?:用户)?(?:的)?(?:确认|同意|审批|批准|许可)"
        ),
        True,
    ),
    "sensitive": (
        re.compile(
            r"(?i)\b(?:deploy\s+|access\s+|auth\s+|api\s+)?tokens?\b|\bapi[\s_-]?keys?\b|\bsecrets?\b|\bpasswords?\b|"
            r"\bcredentials?\b|\bcookies?\b|\benvironment\s+variables?\b|\benv\s+vars?\b|\.env\b|~?/?\.ssh\b|\.netrc\b|"
            r"\.npmrc\b|\.aws\b|\bid_rsa\b|\bprivate\s+keys?\b|\bsystem\s+prompt\b|"
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
            r"(?:贴到|附在|写到|加到|放到|输出到)(?:你的)?(?:回答|回复|输出|消息)|(?:发到|发送到|上传到|发给)\s*(?:https?://|\S+@)"
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
            r"\bcurl\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|(?:反弹|反向)\s*shell"
        ),
        False,
    ),
}

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s+|\n+")
_NEGATION = re.compile(
    r"(?i)\b(?:never|not|don'?t|do\s+not|must\s+not|shouldn'?t|avoid|no)\b|不要|别|禁止|不得|切勿"
)
_WINDOW = 240  # characters: a sentence further on is not spoken by the same voice
_CARRIED = frozenset({"address", "authority"})


def _signals_in(sentence: str) -> set[str]:
    negated = bool(_NEGATION.search(sentence))
    return {
        name
        for name, (pattern, in_negated) in SIGNALS.items()
        if (in_negated or not negated) and pattern.search(sentence)
    }


def combined_signals(text: str) -> set[str] | None:
    """Two or more different signals close together, or None."""
    if len(text) < 12:
        return None
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    found: list[tuple[int, set[str]]] = []
    position = 0
    for sentence in sentences:
        at = text.find(sentence, position)
        position = max(position, at)
        names = _signals_in(sentence)
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
