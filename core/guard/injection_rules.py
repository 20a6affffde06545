"""Patterns of text that tries to instruct the agent that will later read it.

Each rule is (reason, severity, needles, pattern). Patterns run on the normalised
readings of a text (see `normalise.py`), so they are written for plain Latin letters.
`needles` are lower-case strings a rule cannot match without (None: a Chinese rule,
run only on text that is not plain ASCII).
`negatable` rules do not count when the words just before the match negate them
("Never run commands without telling the user" is a rule, not an attack).

Severity `suspicious` keeps the entry out of every context block until a person clears
the flag. Severity `review` only marks it for the reviewer: a CLAUDE.md install step
`curl -fsSL https://bun.sh/install | bash` is an ordinary project rule, but a person
should see it before an agent is told to run it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SUSPICIOUS = "suspicious"
REVIEW = "review"


@dataclass(frozen=True)
class InjectionRule:
    reason: str
    severity: str
    needles: tuple[str, ...] | None
    pattern: re.Pattern[str]
    negatable: bool = False


_SENSITIVE_EN = (
    r"(?:~?/?\.ssh\b|id_rsa|id_ed25519|\.aws\b|credentials?|\.env\b|\.npmrc|\.netrc|\.pypirc|"
    r"secrets?|private\s+keys?|api[\s_-]?keys?|access\s+keys?|tokens?|passwords?|cookies?|ssh\s+keys?|"
    r"the\s+keys|keys|environment\s+variables|env\s+vars?|system\s+prompt|conversation|chat\s+history)"
)
_SENSITIVE_ZH = (
    r"(?:\.ssh|\.aws|\.env|credentials|凭证|凭据|密钥|私钥|秘钥|令牌|token|密码|cookie|环境变量|"
    r"api\s*key|API\s*Key|对话|聊天记录|系统提示|文件|配置)"
)
_TARGET = (
    r"(?:https?://|ftp://|\d{1,3}(?:\.\d{1,3}){3}|[\w.+-]+@[\w-]+\.[\w.]+|[\w.-]+\.[a-z]{2,}/)"
)
_QUALIFIER = (
    r"(?:previous|prior|above|earlier|preceding|former|original|system|existing|safety|initial|all|"
    r"every|developer|your|the|my|these|those|any|of|that)"
)
_SECRET_FILES = r"(?:\.ssh|id_rsa|\.aws|\.env\b|credentials|\.npmrc|\.netrc)"

# (reason, severity, needles, regex, negatable)
_RULES: list[tuple[str, str, tuple[str, ...] | None, str, bool]] = [
    (
        "asks to ignore previous instructions",
        SUSPICIOUS,
        ("ignore", "disregard", "forget", "override", "bypass", "skip"),
        r"(?i)\b(?:ignore|disregard|forget|override|bypass|skip)\b\s+(?:all\s+)?"
        r"(?:(?:" + _QUALIFIER + r"\s+){0,4}"
        r"(?:instructions?|prompts?|rules|guidelines|directives|system\s+prompt|constraints|"
        r"guardrails|policies|restrictions|safety\s+measures)\b"
        r"|(?:" + _QUALIFIER + r"\s+){0,3}(?:previous|prior|above|earlier|preceding)\s+"
        r"(?:context|messages?|text|content|conversation|input)"
        r"|(?:the|everything|all(?:\s+of\s+the)?|anything)\s+(?:above|before|said\s+before|prior)\b"
        r"|what\s+you\s+(?:were|have\s+been)\s+told)",
        False,
    ),
    (
        "asks to ignore previous instructions",
        SUSPICIOUS,
        ("forget", "ignore", "disregard"),
        r"(?i)\b(?:forget|ignore|disregard)\s+(?:about\s+)?(?:everything\b(?!\s+(?:else|is|was|works))|"
        r"all(?:\s+of)?\s+(?:this|that|it)\b|what(?:ever)?\s+(?:i|you|we)\s+(?:said|told|wrote)\b)",
        False,
    ),
    (
        "asks to ignore previous instructions",
        SUSPICIOUS,
        None,
        r"(?:忽略|无视|忽视|忘记|忘掉|忘了|不要理会|别管|跳过|绕过|抛开|丢弃)(?:掉)?"
        r"(?:你|之前|以前|先前|此前|上面|上述|以上|前面|原来|原有|所有|全部|一切|的|系统|收到的|给你的|设定的)*"
        r"(?:指令|指示|提示词|提示|规则|设定|约束|要求|系统提示|内容|对话|限制|安全策略)",
        False,
    ),
    (
        "tries to override the system prompt",
        SUSPICIOUS,
        ("system prompt", "system override", "hidden prompt", "initial instructions"),
        r"(?i)(?:system\s+prompt\s*(?:override|:)|new\s+system\s+prompt|system\s+override|"
        r"(?:reveal|print|show|output|repeat|leak)\s+(?:your|the)\s+(?:system\s+prompt|hidden\s+prompt|"
        r"initial\s+instructions))",
        False,
    ),
    (
        "tries to override the system prompt",
        SUSPICIOUS,
        ("developer mode",),
        r"(?i)\b(?:you|you're|your|assistant|ai|model|agent)\b[^\n]{0,30}\bdeveloper\s+mode\b|"
        r"\bdeveloper\s+mode\s+(?:is\s+)?(?:enabled|activated|on)\b[^\n]{0,40}\byou\b",
        False,
    ),
    (
        "tries to override the system prompt",
        SUSPICIOUS,
        (" mode", "do anything now", "override"),
        r"(?i)\b(?:jailbreak|jailbroken|DAN|god|unrestricted|unfiltered)\s+mode\b|\bdo anything now\b|"
        r"\boverride\s+(?:mode|protocol|code)\b",
        False,
    ),
    (
        "tries to override the system prompt",
        SUSPICIOUS,
        ("system", "instruction", "im_start", "[inst]"),
        r"(?i)</?\s*system\s*>|<\|im_start\|>\s*system|\[/?INST\]|^\s*#{2,}\s*(?:new\s+)?instructions?\s*:|"
        r"^\s*\[?system\]?\s*:\s*(?:you|from|ignore|new|the|override)\b|\bnew\s+instructions?\s*:|"
        r"\bupdated\s+instructions?\s*:",
        False,
    ),
    (
        "tries to override the system prompt",
        SUSPICIOUS,
        None,
        r"(?:新的系统提示|覆盖系统提示|泄露系统提示|输出系统提示|打印系统提示|显示系统提示|越狱模式|开发者模式|"
        r"上帝模式|无限制模式|系统指令\s*[:：]|新的指令\s*[:：]|系统覆盖)",
        False,
    ),
    (
        "tries to change the agent's identity",
        SUSPICIOUS,
        ("you", "pretend", "act as", "role", "play", "persona", "behave", "character"),
        r"(?i)\byou\s+are\s+now\s+(?:a|an|the|my|in\s+\w+\s+mode|no\s+longer|free|unrestricted|DAN|jailbroken|operating|"
        r"acting|called|named|evil|root|unfiltered|uncensored|allowed|permitted|authori[sz]ed)\b|"
        r"\byou(?:'re|\s+are)\s+no\s+longer\s+(?:an?\s+|bound|restricted|required|claude|chatgpt)|"
        r"\bfrom\s+now\s+on,?\s+you\s+are\s+(?:a|an|the|my|no\s+longer|free|DAN|not)\b|"
        r"\bpretend\s+(?:to\s+be|you(?:'re|\s+are))\b|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:were|are)\s+)?"
        r"(?:an?\s+)?(?:unrestricted|unfiltered|evil|jailbroken|uncensored|different\s+(?:ai|assistant|model)|"
        r"DAN|hacker|malicious)|\b(?:role-?play|roleplay)\s+as\b|\blet'?s\s+play\s+a\s+game\s+where\s+you\b|"
        r"\byour\s+new\s+(?:role|persona|identity|name)\s+is\b|\byou\s+will\s+now\s+(?:act|behave|respond|be)\b|"
        r"\bassume\s+the\s+(?:role|persona)\s+of\b|\bstay\s+in\s+character\b|"
        r"\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|agent|bot)\b[^\n]{0,20}(?:reading|seeing|processing)",
        False,
    ),
    (
        "tries to change the agent's identity",
        SUSPICIOUS,
        None,
        r"(?:你现在是|你现在扮演|从现在起你是|从现在开始你是|现在开始你是|你不再是|你已经不是|请扮演|你将扮演|"
        r"扮演一个|假装你是|假设你是一个没有|你的新身份|你的新角色|如果你是\s*AI|如果你是一个\s*AI)",
        False,
    ),
    (
        "claims the user authorised skipping confirmation",
        SUSPICIOUS,
        ("authori", "approv", "permission", "consent", "confirm", "allowed", "permitted"),
        r"(?i)\b(?:user|owner|admin|developer|human|operator|maintainer)s?\s+(?:has|have|had)?\s*(?:already\s+)?"
        r"(?:explicitly\s+)?(?:authori[sz]ed|approved|allowed|permitted|consented\s+to|granted\s+(?:you\s+)?permission|"
        r"pre-?approved)\s+(?:you\s+)?(?:to\s+)?(?:skip|bypass|run|execute|proceed|ignore|disable|send|share|"
        r"access|read|delete|push|deploy|everything|all|any|these|without)\b"
        r"|\b(?:skip|bypass)\s+(?:all\s+|any\s+|every\s+|the\s+user'?s?\s+|user\s+|human\s+)+"
        r"(?:confirmation|approval|permission|consent)s?\b"
        r"|\b(?:no\s+need\s+(?:for|to\s+(?:ask|wait)\s+for)|don'?t\s+(?:ask|wait)\s+for|do\s+not\s+(?:ask|wait)\s+for|"
        r"never\s+ask\s+for)\s+(?:any\s+|user\s+|human\s+|further\s+|their\s+|my\s+)+"
        r"(?:confirmation|approval|permission|consent)s?\b"
        r"|\bauto-?approve\s+(?:all|every|any)\b",
        False,
    ),
    (
        "claims the user authorised skipping confirmation",
        SUSPICIOUS,
        None,
        r"(?:用户|主人|管理员|老板)(?:已经|已|早就)?(?:明确)?(?:授权|同意|批准|允许)(?:了)?(?:你)?(?:可以)?"
        r"(?:跳过|无需|不用|不必|直接)|(?:跳过|无需|不用|不必|不需要)(?:任何|用户的?)?(?:确认|审批|批准|许可)",
        False,
    ),
    (
        "asks to leak secrets into answers",
        SUSPICIOUS,
        (
            "append",
            "include",
            "add",
            "attach",
            "insert",
            "embed",
            "print",
            "output",
            "reveal",
            "echo",
            "put",
            "end",
            "paste",
            "show",
        ),  # fmt: skip
        r"(?i)\b(?:append|include|add|attach|insert|embed|print|output|reveal|echo|put|paste|show|end)\b[^\n]{0,60}?"
        + _SENSITIVE_EN
        + r"[^\n]{0,60}?\b(?:to|in|into|at|with|of)\s+(?:the\s+end\s+of\s+)?(?:every|each|all|your)\s+"
        r"(?:answers?|responses?|replies|reply|messages?|outputs?|commits?|comments?|pull\s+requests?|PRs?|issues?)\b",
        False,
    ),
    (
        "asks to leak secrets into answers",
        SUSPICIOUS,
        None,
        r"(?:每次|每个|所有|每条)(?:回答|回复|响应|输出|消息|提交)[^\n]{0,12}(?:附上|加上|带上|输出|附加|包含|贴上|显示)"
        r"[^\n]{0,12}"
        + _SENSITIVE_ZH
        + r"|(?:附上|加上|带上|附加|贴上)[^\n]{0,12}"
        + _SENSITIVE_ZH
        + r"[^\n]{0,12}(?:到|在)(?:每次|每个|所有)?(?:回答|回复|输出)",
        False,
    ),
    (
        "asks to exfiltrate files or secrets",
        SUSPICIOUS,
        (
            "upload",
            "send",
            "post",
            "exfiltrate",
            "transmit",
            "forward",
            "leak",
            "mail",
            "copy",
            "pipe",
            "dump",
            "share",
        ),  # fmt: skip
        r"(?i)\b(?:upload|send|post|exfiltrate|transmit|forward|leak|e-?mail|mail|copy|pipe|dump|share)\b[^\n]{0,80}?"
        + _SENSITIVE_EN
        + r"[^\n]{0,80}?(?:\b(?:to|into|at)\s*|@)"
        + _TARGET,
        False,
    ),
    (
        "asks to exfiltrate files or secrets",
        SUSPICIOUS,
        ("exfiltrate", "upload", "send", "leak", "steal", "harvest", "collect"),
        r"(?i)\b(?:exfiltrate|upload|send|leak|steal|harvest|collect)\s+(?:all\s+|the\s+|your\s+|my\s+|user'?s\s+)*"
        r"(?:~?/?\.ssh|id_rsa|\.aws|credentials|\.env|secrets|private\s+keys?|api\s+keys|ssh\s+keys|passwords|"
        r"cookies|tokens)\b",
        False,
    ),
    (
        "asks to exfiltrate files or secrets",
        SUSPICIOUS,
        None,
        _SENSITIVE_ZH
        + r"[^\n]{0,40}?(?:发到|发送到|发送给|发给|上传到|上传至|传到|提交到|post 到|转发到|同步到|邮件发给|寄到)"
        r"\s*(?:https?://|\S+\.[a-z]{2,}|\S+@\S+)",
        False,
    ),
    (
        "asks to exfiltrate files or secrets",
        SUSPICIOUS,
        None,
        r"(?:上传|发送|外发|泄露|导出|偷偷发)(?:你的|我的|用户的|所有|全部|的)*"
        r"(?:\.ssh|\.aws|\.env|凭证|凭据|密钥|私钥|密码|令牌|环境变量)",
        False,
    ),
    (
        "links an image or URL that carries conversation data out",
        SUSPICIOUS,
        ("](", "http"),
        r"(?i)(?:!\[[^\]\n]*\]\(|\[[^\]\n]*\]\(|\bhttps?://)[^\s)]*"
        r"(?:\$?\{\{?\s*(?:conversation|chat|history|data|secrets?|token|keys?|password|memory|context|summary|"
        r"prompt|messages?|user_?(?:input|data|message)|env|api_?key|answer|response|query|input|output|content|"
        r"credentials)\w*\s*\}\}?|\$\([^)]{1,80}\)|<(?:conversation|chat|history|data|secret|token|key|password|"
        r"memory|context|summary|prompt)[A-Za-z_ ]{0,30}>|[?&][\w-]*=\[?(?:conversation|chat_?history|secrets?|"
        r"passwords?|api_?keys?|user_?data|the_?user|INSERT|REPLACE)[\w\]-]*)",
        False,
    ),
    (
        "reads secrets or calls out through a command substitution",
        SUSPICIOUS,
        ("$(", "curl"),
        r"\$\((?:[^)\n]{0,80}\b(?:curl|wget|nc|whoami|hostname)\b|[^)\n]{0,80}(?:"
        + _SECRET_FILES
        + r"|"
        r"\bprintenv\b|\benv\b|\bhistory\b))[^)\n]{0,120}\)"
        r"|\bcurl\b[^\n]{0,80}(?:-d|--data[\w-]*|-F|--form|-T|--upload-file)\s*[^\n]{0,30}"
        + _SECRET_FILES,
        False,
    ),
    (
        "asks to run a downloaded script",
        SUSPICIOUS,
        ("curl", "wget"),
        r"(?i)\b(?:curl|wget)\b[^\n|]{0,200}\bhttp://[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
        r"\b(?:curl|wget)\b[^\n|]{0,40}\b(?:https?://)?\d{1,3}(?:\.\d{1,3}){3}[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
        r"\beval\s+\"?\$\((?:curl|wget)",
        False,
    ),
    (
        "asks to run a downloaded script",
        SUSPICIOUS,
        ("base64", "/dev/tcp", "nc -", "rm -rf", "iex", "invoke-expression"),
        r"(?i)\bbase64\s+(?:-d|--decode)[^\n|]{0,40}\|\s*(?:ba)?sh\b|/dev/tcp/|\bnc\s+-[a-z]*e\b|"
        r"\brm\s+-rf\s+(?:/|~|\$HOME)(?:\s|$)|\b(?:iex|Invoke-Expression)\b[^\n]{0,40}(?:iwr|Invoke-WebRequest|"
        r"DownloadString)",
        False,
    ),
    (
        "asks to run a downloaded script",
        REVIEW,
        ("curl", "wget", "iwr", "invoke-webrequest"),
        r"(?i)\b(?:curl|wget|iwr|Invoke-WebRequest)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
        r"\b(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?python3?\b",
        False,
    ),
    (
        "asks to act without telling the user",
        SUSPICIOUS,
        ("silently", "without", "not", "don't", "never", "secretly", "quietly", "hide"),
        r"(?i)\b(?:run|execute)\s+(?:this|these|the\s+following)\s+(?:commands?|scripts?)\s+(?:silently|quietly|"
        r"secretly|without\s+(?:asking|telling))|"
        r"\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+(?:user|human|person|owner)\b|"
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|let)\s+the\s+(?:user|human|person|owner)\b|"
        r"\b(?:secretly|silently|quietly)\s+(?:send|upload|run|execute|add|append|exfiltrate|copy|forward)\b|"
        r"\bhide\s+(?:this|it|the\s+\w+)\s+from\s+the\s+(?:user|human)\b",
        True,
    ),
    (
        "asks to act without telling the user",
        SUSPICIOUS,
        None,
        r"(?:悄悄|偷偷|暗中|秘密地)[^\n]{0,20}(?:执行|运行|发送|上传|添加|附上|修改|删除)"
        r"|(?:不要告诉用户|别告诉用户|不要让用户知道|不要通知用户|瞒着用户)",
        False,
    ),
    (
        "asks to keep something from the user",
        SUSPICIOUS,
        ("mention", "bring", "disclose", "reveal", "surface", "keep", "leave", "between"),
        r"(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:mention|bring\s+up|disclose|reveal|"
        r"surface|point\s+out)\s+(?:this|these|it|that|the\s+(?:\w+\s+)?(?:change|rule|step|note|instruction|"
        r"dependency|endpoint|account|key|hook))\b[^.\n]{0,40}?\b(?:to\s+the\s+(?:user|human|"
        r"reviewers?|maintainers?|owner)|in\s+(?:the\s+|your\s+)?(?:summary|summaries|commit\s+messages?|"
        r"pr\s+descriptions?|changelog|release\s+notes|reports?|replies|answers?))\b|"
        r"\b(?:keep|leave)\s+(?:this|these|it|that|the\s+(?:change|rule|step|edit))\s+(?:out\s+of|off)\s+"
        r"(?:the\s+|your\s+)?(?:summary|commit\s+messages?|pr\s+descriptions?|changelog|release\s+notes|"
        r"reports?|replies|answers?)\b|"
        r"\bkeep\s+(?:this|it|that)\s+(?:hidden\s+|secret\s+)?from\s+the\s+(?:user|human|owner)\b",
        True,
    ),
    (
        "asks to keep something from the user",
        SUSPICIOUS,
        None,
        r"(?:不要|别|不必|无需|不用|不需要)(?:向|跟|和|对|给)?(?:用户|使用者|审查者|审核人|维护者)"
        r"(?:提及|提到|透露|说明|解释|说起|汇报)(?:这|此)"
        r"|(?:不要|别|不必|无需|不用)(?:在|把)?(?:总结|摘要|提交信息|提交说明|commit\s*message|PR\s*描述|"
        r"变更日志|changelog|回复|汇报)[^\n]{0,4}(?:里|中)?(?:提及|提到|写|说明|出现)(?:这|此)"
        r"|(?:这|此)[^\n]{0,12}(?:不要|别)(?:写进|写到|写入|放进|出现在|提到)(?:总结|摘要|提交信息|commit|PR|"
        r"变更日志|changelog|回复|汇报)",
        False,
    ),
    (
        "asks to report success that did not happen",
        SUSPICIOUS,
        ("even", "regardless", "whether", "without"),
        r"(?i)\b(?:report|say|state|claim|tell\s+(?:the\s+)?(?:user|reviewers?)|mark|write)\s+(?:that\s+)?"
        r"(?:all\s+)?(?:the\s+)?(?:tests?|test\s+suite|ci|checks?|build|pipeline|lint(?:er)?)\s+"
        r"(?:\w+\s+){0,2}(?:as\s+)?(?:pass(?:ed|es|ing)?|green|succeeded|successful)\b[^.\n]{0,40}?"
        r"\b(?:even\s+(?:if|when|though)|regardless|whether\s+or\s+not|without\s+running)\b|"
        r"\b(?:even\s+(?:if|when)|regardless\s+of\s+whether)\s+(?:the\s+)?(?:tests?|ci|checks?|build|"
        r"pipeline)\s+(?:fail|failed|fails|are\s+red|is\s+red|break|breaks)\b[^.\n]{0,40}?"
        r"\b(?:report|say|claim|mark|tell|write)\b[^.\n]{0,30}?\b(?:pass(?:ed|es|ing)?|green|succeeded)\b",
        True,
    ),
    (
        "asks to report success that did not happen",
        SUSPICIOUS,
        None,
        r"(?:即使|就算|不管|无论|哪怕)[^\n]{0,10}(?:测试|CI|ci|检查|构建|用例|流水线)[^\n]{0,6}"
        r"(?:失败|没过|没通过|挂了|报错|不通过)[^\n]{0,20}(?:说|报告|标记|写成?|回复|汇报)[^\n]{0,6}"
        r"(?:通过|成功|正常|绿|没问题)",
        False,
    ),
    (
        "asks to plant a backdoor",
        SUSPICIOUS,
        ("authorized_keys", "backdoor", "hidden", "secret", "undocumented", "hard"),
        r"(?i)\b(?:append|add|echo|write|insert|put)\b[^\n]{0,60}\bssh-(?:rsa|ed25519)\s+AAAA[^\n]{0,600}"
        r"authorized_keys|\bauthorized_keys\b[^\n]{0,60}\bssh-(?:rsa|ed25519)\s+AAAA|"
        r"\b(?:add|create|insert|keep|leave|ensure|include|install|plant)\b[^.\n]{0,30}?\b(?:hidden|secret|"
        r"undocumented|backdoor|hard-?coded)\s+(?:admin|root|superuser|master|maintenance|debug|"
        r"support)\s+(?:account|user|login|password|credentials?|token|key)\b|"
        r"\b(?:add|create|insert|keep|leave|install|plant)\s+(?:a\s+|the\s+|our\s+)?backdoor\b",
        True,
    ),
    (
        "asks to plant a backdoor",
        SUSPICIOUS,
        None,
        r"(?:加|添加|保留|留|创建|埋|植入|写入)[^\n]{0,6}(?:一个)?(?:隐藏|秘密|后门|暗门|硬编码)的?"
        r"(?:管理员|超级用户|root|维护|调试)?(?:账号|账户|用户|密码|口令|入口)"
        r"|(?:加|添加|保留|留|埋|植入)[^\n]{0,4}(?:一个)?后门",
        False,
    ),
    (
        "hides instructions in a code block addressed to the agent",
        SUSPICIOUS,
        ("```",),
        r"(?i)```\s*(?:system|prompt|instructions?|assistant|llm|agent)\s*\n",
        False,
    ),
]

INJECTION_RULES: list[InjectionRule] = [
    InjectionRule(reason, severity, needles, re.compile(regex, re.MULTILINE), negatable)
    for reason, severity, needles, regex, negatable in _RULES
]

# Words that, just before a negatable match, make it a rule rather than an attack.
NEGATION = re.compile(
    r"(?i)\b(?:never|not|don'?t|no|must\s+not|shouldn'?t|avoid)\b|不要|别|禁止|不得"
)
