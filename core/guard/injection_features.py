"""The moves an injection is made of, each a weighted feature of one sentence.

A planted instruction speaks to the agent that will read it ("note to the model"),
claims authority ("SYSTEM:", "the user has granted you"), voids what came before ("the
earlier directives are obsolete"), changes the agent's role or lifts its limits, names
something sensitive (a token, `.env`, the system prompt), opens a channel out (a URL, an
e-mail address, `curl -d`, "in every answer"), waives consent ("no need to ask"), urges
("right away"), hides itself ("silently"), asks for something dangerous (`rm -rf`,
`sudo`), makes itself permanent ("from now on", "remember") or undermines review
("approve without reading"). An ordinary project rule uses one or two of these, at low
weight; `injection_score.py` adds the weights of a sentence and its neighbour.

Patterns run on normalised readings (see `normalise.py`): plain Latin letters and
Simplified Chinese. A `negatable` feature does not count in a clause with a negation
("Never paste tokens into PR comments" is a rule, not an exfiltration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    name: str
    weight: float
    negatable: bool
    pattern: re.Pattern[str]


_AI = (
    r"(?:assistants?|ai(?:\s+(?:agents?|assistants?|models?|tools?))?|agents?|models?|llms?|"
    r"claude|chatgpt|gpt-?\d*|copilot|gemini|codex|bots?|language\s+models?)"
)
_RULES = (
    r"(?:instructions?|directives?|guidance|guidelines|rules|prompts?|policies|policy|"
    r"constraints|restrictions|orders|setup|configuration|programming|training|system\s+prompt|"
    r"tasks?|requests?|(?:claude|agents|gemini)\.md)"
)
_BEFORE = r"(?:previous|prior|earlier|above|preceding|original|initial|old|existing|former|your|all|any|other)"
_SENSITIVE_VARS = r"\b(?:[A-Z0-9]+_)*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|PAT)\b"
_SENSITIVE_EN = (
    r"(?i)(?:\btokens?\b|\benv\s*\||\bapi[\s_-]?keys?\b|"
    r"\bsecrets?\b|\bpasswords?\b|\bpassphrases?\b|\bcredentials?\b|\bcookies?\b|"
    r"\benvironment(?:\s+variables?)?\b|\benv\s+vars?\b|\bos\.environ\b|\bprintenv\b|\.env\b|"
    r"~?/?\.ssh\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.aws\b|\bid_(?:rsa|ed25519|ecdsa)\b|"
    r"\bprivate\s+keys?\b|\bssh\s+keys?\b|\bsystem\s+prompt\b|\bhidden\s+(?:prompt|instructions?)\b|"
    r"\b(?:bash|zsh|shell)_?history\b|\bkeychain\b|\bseed\s+phrase\b|"
    r"\.pem\b|\.p12\b|\.pfx\b|\.kube/config\b|\bkubeconfig\b|\.docker/config\.json\b|\.git-credentials\b|"
    r"\bconnection\s+strings?\b|\bdatabase\s+(?:credentials|password)\b|\bservice[-_ ]account\s+(?:keys?|json)\b|"
    r"\b(?:last|previous)\s+user\s+message\b|\bconversation\s+(?:history|log|transcript)s?\b|\bchat\s+(?:transcript|history|log)s?\b)"
)
_SENSITIVE_ZH = (
    r"(?:密钥|秘钥|私钥|令牌|密码|口令|凭证|凭据|环境变量|系统提示|隐藏指令|对话内容|聊天记录|\.env|API\s*Key|token|"
    r"连接字符串|连线字符串|连线字串|数据库(?:连接|连线|地址|账号)|证书)"
)
_OUT_TARGET = (
    r"(?:https?://|ftp://|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+\.[\w.]+|"
    r"\b(?:webhook|endpoint|server|pastebin|gist|requestbin|webhook\.site|ngrok|interactsh|burpcollaborator)\b)"
)
_REPLIES = (
    r"(?:answers?|responses?|replies|reply|messages?|outputs?|summar(?:y|ies)|commit\s+messages?|"
    r"pr\s+descriptions?|pull\s+request\s+descriptions?|comments?|chat|(?:image\s+)?urls?|links?|images?|readme)"
)

_SLOT = (
    r"(?:conversation|chat|history|secrets?|tokens?|api_?keys?|passwords?|credentials?|messages?|env|"
    r"context|summary|prompt|memory)"
)

# name: (weight, negatable, [regex, ...])
_FEATURES: dict[str, tuple[float, bool, list[str]]] = {
    "address": (0.5, False, [
        r"(?im)^\W{0,6}(?:(?:dear|hey|hi|to|for|attention|note\s+(?:to|for)|message\s+(?:to|for)|instructions?\s+for)\s+)?"
        r"(?:the\s+|any\s+|all\s+)?(?:(?:coding|automated|autonomous|helpful|ai)\s+)?" + _AI + r"(?:\s+(?:reading|processing|seeing|working\s+on)\s+this(?:\s+\w+)?)?\s*[:：,，]",
        r"(?i)\b(?:note|message|memo|instructions?|attention|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|automated\s+)?" + _AI + r"\b",
        r"(?i)\b" + _AI + r"\s+(?:reading|processing|parsing|seeing|that\s+reads?|who\s+reads?)\s+this\b",
        r"(?i)\bif\s+you\s+are\s+an?\s+" + _AI + r"\b|\b(?:whoever|anyone|anybody)\s+(?:is\s+)?(?:reading|processing)\s+this\b",
        r"(?i)\bbefore\s+(?:answering|replying|responding|you\s+(?:answer|reply|respond))\b|"
        r"\b(?:upon|after|when|once|as\s+soon\s+as)\s+(?:you\s+)?(?:reading|read|see|seeing|process|processing|parse|parsing)\s+this\b",
        r"(?i)\b(?:hi|hello|hey|dear)\s+(?:claude|gpt|chatgpt|gemini|copilot|codex)\b|^\s*claude\s*,",
        r"(?:致|给|对)\s*(?:AI|人工智能|助手|智能体|模型|机器人)|(?:读取|阅读|处理|看到)(?:本|这个|此|这份)(?:文件|笔记|文本|内容)的\s*(?:AI|模型|助手|智能体)|(?:AI|模型|助手)(?:的)?(?:指令|说明)\s*[:：]|如果你是\s*(?:AI|模型|助手)",
    ]),
    "authority": (0.6, False, [
        r"(?im)^\W{0,4}(?:(?:important|urgent|official|new)\s+)?(?:system|admin|root|developer|security)\s*"
        r"(?:message|notice|note|override|update|alert)?\s*[:：]\s*\S+(?:\s+\S+){3,}",
        r"(?i)\b(?:the\s+)?(?:maintainers?|admins?|administrators?|owners?|operators?|security\s+team|management|boss|"
        r"staff|devs?|developers?)\s+(?:said|says|wants?|requires?|asks?|expects?|decided|has\s+decided|told|insists?)\b",
        r"(?i)\[\s*(?:admin|system|root|developer|maintainer|owner)\s*(?:override|note|message|notice|mode)?\s*\]",
        r"(?i)<\|?(?:im_start|system|endoftext)\|?>|\[/?INST\]|<</?SYS>>",
        r"(?i)\b(?:message|notice|note|word|orders?|update|announcement)\s+from\s+(?:the\s+)?(?:\w+\s+)?"
        r"(?:staff|admins?|administrators?|maintainers?|owners?|security\s+team|developers?|anthropic|openai|system|management)\b",
        r"(?i)\b(?:the\s+)?(?:user|owner|admin|administrator|maintainer|human|operator|developer|team|person)s?\s+"
        r"(?:has|have|had)?\s*(?:already\s+|explicitly\s+|previously\s+)?(?:granted|given|authori[sz]ed|approved|allowed|"
        r"permitted|confirmed|cleared|pre-?approved|signed\s+off)\b[^\n]{0,40}\b(?:you|everything|all|any|this|below)\b",
        r"(?i)\b(?:administrator|admin|maintainer|security\s+team|anthropic|openai)\b[^\n]{0,40}\b(?:disabled|approved|"
        r"authori[sz]ed|requires?|orders?|decided|turned\s+off|lifted|waived)\b",
        r"(?i)\b(?:decided|approved|ordered|authori[sz]ed|mandated|required|signed\s+off)\s+by\s+(?:the\s+)?(?:security\s+team|"
        r"admins?|administrators?|maintainers?|owners?|management|staff|operators?|anthropic|openai)\b|"
        r"\b(?:admin|system|root|developer|operator|security)\s+(?:directive|order|command)s?\b",
        r"(?i)\bi(?:'m|\s+am)\s+(?:the|your)\s+(?:lead\s+|senior\s+|chief\s+|head\s+)?(?:dev|developer|admin|administrator|owner|"
        r"maintainer|creator|boss|operator|manager)\b|\b(?:the\s+)?(?:assistant|agent|ai|model|you)\s+(?:is|are)\s+(?:now\s+)?"
        r"(?:permitted|allowed|authori[sz]ed|free|cleared)\s+to\b",
        r"(?i)\bthis\s+is\s+(?:anthropic|openai|the\s+(?:admin|system|developer|maintainer)|your\s+(?:developer|creator|operator))\b",
        r"(?i)\b(?:official|mandatory|priority)\s+(?:notice|instruction|directive|override|update)\b|"
        r"\b(?:company|corporate|new)\s+(?:policy|directive)\s+(?:requires|says|is)\b",
        r"(?m)^\W{0,4}(?:系统|管理员|开发者|官方)\s*(?:消息|通知|公告|指令)?\s*[:：]",
        r"(?:用户|管理员|主人|老板|开发团队|官方|团队)(?:已经|已|早就|之前|明确)+(?:授权|批准|同意|允许|确认)|"
        r"(?:用户|管理员|主人|老板|开发团队|官方|团队)(?:授权|允许|批准)(?:了)?你",
        r"(?:来自|出自)[^。\n]{0,10}(?:官方|管理员|开发团队|系统)|官方通知|管理员通知|系统通知|"
        r"(?:作为|这是)?(?:新的|最新的?)(?:系统)?(?:设定|设置|规则|指令|政策)|系统(?:设定|指令)\s*[:：]|"
        r"这是(?:一条|一个)?(?:来自)?(?:系统|管理员|官方|开发者)(?:的)?(?:消息|通知|指令|命令)",
        r"(?i)\bnew\s+(?:rules?|policy|directives?|instructions?|orders?)\s*(?:from\b|:)|"
        r"\b(?:instructions?|rules?|policy|guidelines|directives?)\s+(?:update|change|override)\s*[:：]|\bas\s+the\s+system\b|"
        r"\byou\s+(?:must|are\s+required\s+to|have\s+to)\s+now\b",
    ]),
    "override": (0.7, False, [
        r"(?i)\b(?:ignor|disregard|forget|forgot|overrid|overrul|bypass|discard|abandon|supersed|replac|"
        r"scrap|throw\s+out|set\s+aside|neglect|pay\s+no\s+attention\s+to|(?:do\s+not|don'?t|no\s+longer)\s+(?:follow|obey|apply)|"
        r"stop\s+(?:following|obeying|listening\s+to))\w*\b[^\n]{0,30}?\b"
        r"(?:" + _BEFORE + r"\s+)?(?:[\w']+\s+){0,2}(?:" + _RULES + r"|user|human|person)\b",
        r"(?i)\b" + _BEFORE + r"\s+(?:\w+\s+){0,2}" + _RULES + r"\b[^\n]{0,30}?\b(?:are|is|were|was|have\s+been|has\s+been)\s+"
        r"(?:now\s+)?(?:obsolete|void|invalid|cancel+ed|revoked|outdated|superseded|replaced|lifted|suspended|paused|disabled|"
        r"waived|off|"
        r"no\s+longer\s+(?:valid|in\s+effect|applicable|relevant))\b",
        r"(?i)\b(?:nothing|none)\s+(?:in|of)\s+your\s+(?:original\s+|initial\s+|previous\s+)?(?:setup|instructions|"
        r"rules|guidelines|programming|training|prompt)\b[^\n]{0,20}\bappl(?:y|ies)\b",
        r"(?i)\byour\s+(?:real|true|actual|new)\s+(?:instructions|rules|orders|task|purpose|goal)\s+(?:are|is)\b",
        r"(?i)\b(?:your|the\s+assistant'?s|the\s+agent'?s|the\s+model'?s)\s+(?:\w+\s+)?(?:rules|guidelines|instructions|"
        r"policies|directives|constraints|system\s+prompt)\s+(?:have\s+been|has\s+been|were|are\s+now|was)\s+"
        r"(?:updated|changed|revised|amended|modified|relaxed|rewritten)\b|\b(?:update|change|amendment)s?\s+to\s+your\s+"
        r"(?:\w+\s+)?(?:rules|guidelines|instructions|policies|directives)\b",
        r"(?i)\b(?:outranks?|takes?\s+precedence\s+over|(?:has|have|takes?)\s+priority\s+over|(?:higher|more)\s+(?:priority|important)\s+"
        r"than|overrides?|supersedes?|trumps?)\b[^\n]{0,40}\b(?:instructions?|rules|guidelines|system|developers?|prompt|user|"
        r"policies|settings?)\b",
        r"(?i)\byour\s+(?:\w+\s+)?(?:task|job|goal|mission|objective|assignment|purpose)\s+(?:has\s+changed|has\s+been\s+"
        r"(?:changed|updated|replaced)|is\s+now|is\s+actually)\b",
        r"(?i)\bwhatever\s+(?:the\s+)?(?:user|person|human|owner|they)\s+(?:says|asks|wants|types)\b|"
        r"\bregardless\s+of\s+what\s+(?:is|was|the\s+user|they|anyone|you)\b|\bno\s+matter\s+what\s+(?:the\s+user|anyone|"
        r"they|is|you)\b",
        r"(?:你的)?(?:真正|真实|实际)(?:的)?(?:任务|目的|目标|工作)|你的任务(?:已经)?(?:变了|改变|变成|改成|更新)|"
        r"(?:无论|不管)(?:用户|别人|对方)?(?:问|说|要求)(?:什么|啥)",
        r"(?i)\b(?:ignore|disregard|forget)\s+(?:what(?:ever)?|anything)\s+(?:the|your)\s+(?:user|person|human|owner)\b",
        r"(?:优先级高于|优先于|凌驾于|高于)[^。\n]{0,8}(?:系统|指令|设定|规则|用户)",
        r"(?i)\beven\s+if\s+(?:it|this|that)\s+(?:conflicts|contradicts|goes\s+against)\s+(?:with\s+)?(?:what\s+the\s+(?:user|human)|"
        r"your|the\s+(?:user|human)'?s?|the\s+system)",
        r"(?i)\b(?:over|instead\s+of|rather\s+than|above|before)\s+(?:your|the\s+system'?s?)\s+(?:guidelines|instructions|rules|"
        r"system\s+prompt|policies|training)\b",
        r"(?:忽略|无视|忽视|忘记|忘掉|抛开|绕过|推翻|废除|不要理会|不用管|别管|不必遵守|不用遵守|无需遵守|不再遵守)[^。\n]{0,12}?(?:指令|指示|规则|设定|约束|要求|提示|命令|限制)",
        r"(?:之前|以前|先前|上面|上述|以上|前面|原来|原有|原先|所有|全部)[^。\n]{0,10}?(?:指令|指示|规则|设定|系统提示|提示词|内容|要求)"
        r"[^。\n]{0,8}?(?:作废|失效|无效|不再有效|不算数|取消|废除)",
        r"(?:作废|失效|废除)[^。\n]{0,6}(?:改为|改成|换成|以下|下面)",
        r"(?:停止|不要再|不再)(?:听从|服从|遵守|理会)(?:用户|主人|之前|原来)",
    ]),
    "obey_here": (0.7, False, [
        r"(?i)\b(?:obey|follow|execute|comply\s+with|listen\s+to|do)\s+(?:only\s+)?(?:what|whatever|everything|the\s+text|"
        r"every\s+request|all\s+(?:requests|instructions|commands))\b[^\n]{0,30}\b(?:follows|below|this\s+(?:line|file|note|memory)|"
        r"here|in\s+this\s+(?:file|note|memory|repo))",
        r"(?i)\b(?:do|follow|obey|execute|carry\s+out)\s+whatever\b[^\n]{0,60}\b(?:says|asks|tells|requests|contains|instructs)\b",
        r"(?i)\btreat\s+(?:every|all|any|each)\s+(?:message|request|comment|instruction|issue)s?\s+from\b[^\n]{0,40}\bas\s+"
        r"(?:if\s+(?:it|they)\s+came\s+)?(?:from\s+)?(?:the\s+)?(?:user|owner|admin|system|maintainer)\b|"
        r"\bfollow\b[^\n]{0,40}\b(?:in|from)\s+this\s+(?:file|note|memory|document)\s+instead\b",
        r"(?i)\b(?:real|actual|true|updated|new)\s+(?:configuration|config|instructions|rules|guidelines|claude\.md|agents\.md)\s+"
        r"(?:is|are|lives?|can\s+be\s+found)\s+(?:at|on|in|here)\b[^\n]{0,10}https?://",
        r"(?i)\b(?:fetch|download|load|read|get|curl|wget|open)\b[^\n]{0,60}https?://\S+[^\n]{0,60}\b(?:follow|obey|execute|"
        r"run|apply|do)\b[^\n]{0,20}\b(?:it|whatever|what|the\s+instructions|its)\b",
        r"(?:执行|运行|听从|服从|遵守)(?:用户)?(?:之外|以外)的人|(?:下载|读取|获取|访问)[^。\n]{0,40}https?://\S+[^。\n]{0,20}(?:执行|照做|遵守|听从)",
        r"(?i)\b(?:everything|anything|all|whatever|the\s+text)\s+(?:written\s+)?(?:after|below|following)\s+this\s+(?:line|point|note)\b",
        r"(?i)\b(?:obey|follow|listen\s+to)\s+only\b|\bonly\s+(?:obey|follow|listen\s+to)\b|\bthe\s+only\s+rule\s+now\b",
        r"(?i)\b(?:treat|consider|regard)\s+(?:this|these|the\s+following)\s+(?:note|text|file|memory|line|message)s?\s+as\s+"
        r"(?:your\s+)?(?:highest|top|first|new|real|system)",
        r"(?i)\bhighest[\s-]priority\s+(?:instruction|rule|directive|order)\b",
        r"(?i)\bfollow\s+the\s+(?:notes|instructions|text)\s+(?:here|in\s+this\s+file)\b",
        r"(?i)\b(?:you\s+must|always)\s+comply\b",
        r"(?i)\breplace\s+(?:them|it|those|these)\s+with\s+(?:this|the\s+following)\b|"
        r"\btreat\s+(?:everything|all|anything)\s+(?:in|from)\s+this\s+(?:file|note|memory|text)\s+as\b",
        r"(?:改为|改成|换成|转而)(?:执行|运行|遵守|听从|服从)(?:下面|以下|下列|这)",
        r"(?:只|仅)(?:听从|服从|遵守|执行|听)(?:本|这|我|下面|以下)|以(?:本|这个|此)(?:文件|笔记|内容|说明)[^。\n]{0,4}为准|"
        r"(?:必须|务必|一律)(?:执行|服从|遵守)(?:本|这|此)?[^。\n]{0,8}(?:所有|全部|一切)(?:命令|指令|要求)",
    ]),
    "role": (0.6, False, [
        r"(?i)\b(?:act|behave|respond|answer|operate)\s+as\s+(?:if\s+you\s+(?:were|are)\s+)?(?:an?|my|the|your)\s+"
        r"(?!(?:strict|careful|senior|code\s+)?reviewer\b)\w+",
        r"(?i)\bpretend\s+(?:to\s+be|you(?:'re|\s+are)|(?:that\s+)?(?:the|this|it|there|your)\b)|\brole-?play\b|\bstay\s+in\s+character\b|\bpersona\b|"
        r"\bimpersonate\b|\bassume\s+the\s+(?:role|identity)\b",
        r"(?i)\byou(?:'re|\s+are)\s+(?:now|no\s+longer)\b|\bfrom\s+(?:now|this\s+point)\s+on,?\s+you\s+are\b|"
        r"\byou\s+will\s+now\s+be\b|\byour\s+new\s+(?:name|role|identity|persona)\b",
        r"(?i)\b(?:switch|go|enter|turn|put\s+yourself)\s+(?:in)?to\s+['\"]?\w+(?:\s+\w+)?['\"]?\s+mode\b|"
        r"\b(?:activate|enable|you(?:'re|\s+are)\s+(?:now\s+)?(?:in|running\s+in))\s+(?:the\s+)?['\"]?(?:developer|debug|admin|"
        r"sudo|root|maintenance|god|jailbreak|unrestricted)['\"]?\s+mode\b|\b(?:jailbreak|jailbroken|god|dan|unrestricted|"
        r"unfiltered)\s+mode\b|\bDAN\b",
        r"(?i)\byou(?:'ve|\s+have)\s+been\s+(?:upgraded|updated|reconfigured|promoted|reprogrammed|unlocked|freed)\b|"
        r"\byou\s+(?:have\s+been|are)\s+(?:freed|liberated|unlocked|jailbroken)\b|\bsimulate\s+(?:an?\s+)?(?:ai|assistant|model|terminal|shell)\b",
        r"(?:扮演|假装|充当|冒充|模拟)(?:你是|成|一个|一名|系统)?|忘(?:掉|记)你是谁|你现在是一个|你(?:现在|从现在起|从现在开始)?(?:是|成为)一个(?:没有|不受|无)|"
        r"(?:进入|切换到|开启)[^。\n]{0,6}模式|你不再是|越狱",
    ]),
    "unrestricted": (0.5, False, [
        r"(?i)\b(?:unrestricted|unfiltered|uncensored|no\s+(?:safety\s+)?(?:rules|limits|restrictions|filters|guardrails|"
        r"constraints|policies)|without\s+(?:any\s+)?(?:filters|restrictions|limits|guardrails|safety))\b",
        r"(?i)\b(?:safety|security|content)\s+(?:checks?|rules|policy|policies|filters?|guardrails|measures)\b[^\n]{0,30}\b"
        r"(?:disabled|off|lifted|removed|suspended|paused|do(?:es)?\s+not\s+apply|don'?t\s+apply|waived)\b",
        r"(?i)\byour\s+(?:safety|security|content)\s+(?:settings|rules|filters?|checks?|restrictions|guardrails|policies|policy|limits)\b",
        r"(?:限制|约束|安全规则|安全检查|安全策略|过滤)[^。\n]{0,6}(?:已被|已经|被|都)?(?:解除|取消|关闭|移除|禁用|撤销)",
        r"(?:没有|不受|无需遵守|解除|取消|关闭|绕过)[^。\n]{0,8}(?:任何)?(?:限制|约束|安全规则|安全检查|安全策略|过滤)",
    ]),
    "reveal_prompt": (1.0, True, [
        r"(?i)\b(?:reveal|print|show|output|repeat|recite|dump|display|tell\s+me|write\s+out|leak|disclose)\b[^\n]{0,25}\b"
        r"(?:your|the)\s+(?:full\s+|entire\s+|complete\s+|hidden\s+|initial\s+|original\s+|secret\s+)*"
        r"(?:system\s+(?:prompt|message|instructions)|developer\s+message|hidden\s+(?:prompt|instructions)|(?:initial|original|hidden|secret)\s+instructions|"
        r"instructions\s+you\s+(?:were|have\s+been)\s+given)\b",
        r"(?i)\bwhat\s+(?:were\s+you|have\s+you\s+been)\s+told\s+(?:before|at\s+the\s+start|by\s+(?:the\s+)?system)\b|"
        r"\b(?:paste|quote|copy)\s+your\s+(?:instructions|system\s+message|prompt)\b",
        r"(?:输出|显示|复述|告诉我|打印|重复|泄露|展示|给出|列出)[^。\n]{0,10}(?:你的)?(?:系统提示|隐藏指令|隐藏的指令|初始指令|原始指令|内部指令)",
        r"(?:你的)(?:系统提示|隐藏指令|隐藏的指令|初始指令|原始指令|内部指令)[^。\n]{0,12}(?:输出|显示|复述|告诉|打印|重复|展示|列出|说出)",
    ]),
    "consent": (0.6, True, [
        r"(?i)\bwithout\s+(?:first\s+)?(?:asking|confirming|confirmation|approval|permission|consent|review(?:ing)?|"
        r"reading|checking|prompting|telling|waiting)\b",
        r"(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:ask|prompt|wait|check)\s+(?:\w+\s+)?(?:for\s+)?"
        r"(?:confirmation|approval|permission|consent|the\s+user|anyone)\b",
        r"(?i)\b(?:approval|confirmation|permission|consent|review)\s+(?:is\s+)?(?:not\s+(?:required|needed)|unnecessary)\b",
        r"(?i)\b(?:confirmations?|approvals?|prompts?|permission\s+requests?|reviews?)\s+(?:are|is)\s+(?:legacy|deprecated|obsolete|"
        r"unnecessary|optional|no\s+longer\s+(?:needed|required))|\bshould\s+no\s+longer\s+be\s+(?:shown|asked|requested|required|"
        r"displayed)\b",
        r"(?:自动|一律|默认)(?:同意|确认|批准|通过|允许)",
        r"(?i)\b(?:no\s+longer|don'?t|do\s+not|never)\s+(?:need|have)\s+to\s+(?:redact|mask|ask|confirm|check|review|sanitize|"
        r"escape|verify|scan|filter|hide)\b",
        r"(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:double[\s-]?check|check|confirm|verify|consult)\s+with\s+"
        r"(?:the\s+)?(?:user|human|person|owner|anyone)\b|\bautomatically\s+(?:approve|accept|run|execute|merge)\b|"
        r"\b(?:approve|accept|run|execute|merge)\w*\b[^\n]{0,40}\bautomatically\b",
        r"(?i)\bno\s+(?:need|reason)\s+to\s+(?:ask|confirm|check|mention|tell)\b|\bskip\s+(?:all\s+|any\s+|the\s+)?"
        r"(?:confirmations?|approvals?|reviews?|prompts)\b",
        r"(?i)\b(?:fine|ok|okay|allowed|permitted|safe)\s+to\s+(?:run|execute|delete|push|deploy|install)\s+"
        r"(?:any|all|every|whatever)\b|\bnever\s+asking\b",
        r"(?:无需|不需要?|不再需要|不用|不必|不要|别|跳过|不经)[^。\n]{0,8}?(?:确认|询问|请示|审批|批准|许可|审核|同意|问)",
    ]),
    "broad": (0.4, True, [
        r"(?i)\b(?:any|all|every|whatever|arbitrary)\s+(?:shell\s+|terminal\s+|git\s+)?(?:commands?|scripts?|code|requests?|"
        r"operations?|changes?|actions?|tool\s+calls?|tools?|files?)\b|"
        r"\boutside\s+(?:of\s+)?(?:the|this|your)\s+(?:project|repo(?:sitory)?|working|workspace|sandbox)(?:\s+(?:directory|folder|dir))?\b",
        r"(?:任何|所有|一切|全部)(?:的)?(?:命令|脚本|操作|请求|文件|更改)",
    ]),
    "urgency": (0.4, True, [
        r"(?i)\b(?:right\s+away|immediately|at\s+once|without\s+delay|straight\s+away|just\s+(?:run|do|execute)\s+(?:it|them|this))\b",
        r"(?:立即|立刻|马上|直接|赶紧)(?:在终端)?(?:里)?(?:执行|运行|删除|推送|提交|发送|上传)",
    ]),
    "sensitive": (0.5, True, [_SENSITIVE_VARS, _SENSITIVE_EN, _SENSITIVE_ZH]),
    "channel": (0.6, True, [
        r"(?i)\b(?:send|post|upload|share|leak|forward|transmit|exfiltrat|sync|copy|pipe|report)\w*\b[^\n]{0,60}?"
        + _OUT_TARGET,
        # "email" as a verb, not the key of a JSON body or a form field
        r"(?i)\be-?mail(?:s|ed|ing)?\s+(?:it|them|this|that|(?:the|my|your|all|its|their)\s+[^\n]{1,40}?|[\w./~-]+)\s+to\b",
        r"(?i)\b(?:scp|rsync|sftp)\b[^\n]{0,80}\s\S*@?[\w.-]+:\S*",
        r"(?:网址|URL|链接)(?:的)?参数|(?:作为|当作)(?:网址|URL|链接|查询)?参数",
        r"(?i)\|\s*(?:nc|ncat|netcat|socat|telnet)\s+\S+\s+\d+|\bquery\s+param(?:eter)?s?\b",
        r"(?i)\b(?:send|share|forward|leak|give|post)\w*\b[^\n]{0,60}?\b(?:by|via|over|through)\s+(?:e-?mail|slack|dm|"
        r"direct\s+message|text|discord|telegram|whatsapp)\b",
        r"(?i)\b(?:curl|wget|http|fetch|invoke-webrequest|iwr)\b[^\n]{0,80}?(?:\s-d\b|--data[\w-]*|\s-F\b|--form|--post-data|"
        r"--post-file|--upload-file|\s-T\b|\s-X\s*(?:POST|PUT))",
        r"(?:发送|发到|发给|上传|传到|提交到|同步到|寄到|转发)[^。\n]{0,20}(?:https?://|\S+@\S+|服务器|\d{1,3}(?:\.\d{1,3}){3})",
    ]),
    # Into the agent's own answers, commits or PRs: an ordinary formatting rule on its
    # own, a leak when what goes there is sensitive.
    "into_replies": (0.5, True, [
        r"(?i)\bpush\w*\b[^\n]{0,60}\bto\s+(?:a\s+|the\s+)?(?:new\s+)?(?:branch|remote|fork|repo(?:sitory)?)\b",
        r"(?i)\b(?:into|in|to)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:file\s+(?:named|called)\s+)?(?:public/\S*|gist|"
        r"pastebin|build\s+logs?|ci\s+(?:logs?|output)|#[a-z][\w-]*(?:\s+(?:slack\s+)?channel)?)",
        r"(?i)\b(?:send|give|e-?mail|mail|forward|dm|message)\s+(?:it\s+|them\s+|that\s+)?(?:to\s+)?me\b",
        r"(?i)\b(?:append|include|add|attach|insert|embed|put|paste|write|print|echo|end)\b[^\n]{0,60}?\b(?:to|in|into|at|with)\s+"
        r"(?:the\s+(?:end|bottom|top)\s+of\s+)?(?:every|each|all|your|the|the\s+next|any)\s+(?:\w+\s+)?" + _REPLIES + r"\b",
        r"(?i)\bend\s+(?:every|each|all|your)\s+" + _REPLIES + r"\s+with\b",
        r"(?i)\b(?:reply|respond|answer)\s+(?:to\s+)?(?:every|each|all|any)\s+\w+\s+with\b|\battached\b[.!]?$",
        r"(?:附在|附上|贴到|写进|写入|写到|加到|放到|附加到|加在)[^。\n]{0,8}(?:每次|每个|每条|所有)?[^。\n]{0,4}(?:回答|回复|答复|输出|消息|提交|末尾|结尾)",
        r"(?:每次|每个|每条|所有)(?:回答|回复|答复|提交)[^。\n]{0,20}(?:附上|附加|加上|贴上|带上)",
    ]),
    "placeholder": (1.0, False, [
        # A URL template ({projectId}) is ordinary; a slot for what the agent knows is not.
        r"(?i)(?:https?://|\]\()[^\s)]*[?&=/][^\s)]*?(?:\{\{?[^}\s]{0,20}" + _SLOT + r"[^}\s]{0,20}\}\}?|"
        r"<[^>\n]{0,40}\b" + _SLOT + r"[^>\n]{0,40}>|<[^>\n]*\s[^>\n]*\s[^>\n]*>|\$\([^)\n]{1,80}\)|"
        r"\b[A-Z]+_(?:HERE|GOES_HERE)\b|\[(?:INSERT|REPLACE|PUT)[^\]]*\])",
        r"(?:https?://)[^\s)]*[?&][\w-]+=[^\s)&]*[\u3400-\u9fff]",
    ]),
    "stealth": (0.6, True, [
        r"(?i)\b(?:quietly|silently|secretly|covertly|discreetly|stealthily)\b|\bwithout\s+(?:telling|informing|notifying|alerting|showing|mentioning)\b|"
        r"\bno\s+need\s+to\s+(?:mention|tell|say|report)\b|\b(?:never|don'?t|do\s+not)\s+(?:mention|reveal|say|admit|disclose)\s+"
        r"(?:that\s+)?(?:you\s+(?:were|have\s+been)\s+(?:told|asked|instructed)|this\s+(?:note|instruction|rule|message)|these\s+instructions)|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|mention\s+(?:it|this)\s+to)\s+"
        r"the\s+(?:user|human|person|owner)\b|\bhide\s+(?:it|this|that)\s+from\b|"
        r"\b(?:when|while|whenever)\s+the\s+(?:user|human|owner|person)\s+is\s+(?:away|not\s+looking|asleep|offline|busy|afk)\b",
        r"(?:用户|主人)(?:不在|正在忙|在忙|睡觉|离开|不注意)(?:的时候|时)?|(?:悄悄|偷偷|暗中|秘密地|不要告诉|别告诉|瞒着|不要让用户知道|不要通知用户|"
        r"(?:不要|别|切勿|不得)(?:向|对|跟|让)(?:用户|使用者|主人)(?:透露|提及|提起|说明|展示|显示|知道))",
    ]),
    # A text that asks to be copied on: a rule that spreads to other files and agents.
    "replicate": (1.0, False, [
        r"(?i)\b(?:copy|paste|add|insert|propagate|spread|include|append|replicate)\s+(?:this|these|the\s+(?:above|following))\s+"
        r"(?:paragraph|text|note|rule|instruction|line|message|section|block)s?\b[^\n]{0,30}\b(?:into|to|in)\s+(?:every|all|each|any|other)\b",
        r"(?:把|将)(?:这段|这条|这些|以上|上面的?)(?:话|文字|内容|规则|指令|说明)?(?:复制|粘贴|添加|加入|写入|传播)(?:到|进)[^。\n]{0,12}(?:每个|所有|每一个|其他)",
    ]),
    # A link that ends in an empty parameter: a slot for the agent to fill.
    "empty_slot": (0.5, False, [r"https?://\S*[?&][\w-]+=(?=\s|$|[)\]。，,])"]),
    # A text that tells the agent what to say about the text itself.
    "cover_story": (1.0, False, [
        r"(?i)\bif\s+(?:anyone\s+|someone\s+|the\s+user\s+|you\s+are\s+)?(?:asks?|asked|questioned)\s+(?:you\s+)?(?:about|what)\s+"
        r"(?:this|these)\s+(?:file|note|instructions?|rules?|message|memory|line|text)s?\b[^\n]{0,10}\b(?:say|tell|answer|"
        r"claim|reply|deny|respond)",
        r"(?:如果|若)(?:有人|用户)?(?:问|询问|问起)(?:到)?(?:这个|这条|这些|本)(?:文件|笔记|说明|指令|规则)[^。\n]{0,6}(?:就说|回答|说|否认)",
    ]),
    "danger": (0.4, True, [
        r"(?i)\brm\s+-(?:rf|fr|r)\b|\bsudo\b|\bmkfs\b|\bdd\s+if=|--force\b|\bpush\s+-f\b|\bforce[\s-]?push\w*|\bdrop\s+(?:table|database)\b|"
        r"\b(?:reverse|bind)\s+shell\b|/dev/tcp/|\bnc\s+-[a-z]*e\b|\bchmod\s+(?:-R\s+)?777\b|\b(?:delete|remove|wipe|erase)\s+(?:all\s+)?the\s+contents\s+of\b|"
        r"\bpush\w*\s+(?:\w+\s+)?to\s+(?:prod|production|main|master)\b|"
        r"\b(?:bash|sh)\s+-c\s+[\"']?\$\((?:curl|wget)|\b(?:curl|wget)\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|"
        r"\b(?:delete|remove|wipe|erase|destroy)\s+(?:all|every|any)\b|"
        r"\b(?:delete|drop|wipe|truncate|destroy|erase)\s+(?:the\s+)?(?:production|prod|live)\s+\w+",
        r"(?:删除|清空|删掉|格式化)[^。\n]{0,10}(?:所有|全部|生产|线上|数据库)|rm\s+-rf",
    ]),
    "persistence": (0.4, False, [
        r"(?i)\b(?:from\s+now\s+on|from\s+this\s+point|going\s+forward|henceforth|permanently|forever|in\s+all\s+future|"
        r"for\s+all\s+future|all\s+future|(?:every|each)\s+(?:future\s+|new\s+)?session|whenever|always|in\s+(?:every|each)\s+(?:future\s+)?session)\b",
        r"(?:从现在起|从现在开始|从今以后|以后|今后|永远|永久|一律|往后|从今天起)",
    ]),
    "memory_write": (0.4, False, [
        r"(?i)\b(?:add|save|store|write|put|commit)\b[^\n]{0,20}\b(?:to|in|into|as)\s+(?:your\s+)?(?:memory|memories|"
        r"long-?term|a\s+rule|rules|notes)\b|\bremember\s+(?:this\s+)?(?:permanently|forever|for\s+(?:all\s+)?future)\b|"
        r"\bremember\s+that\s+you\b|\bmemori[sz]e\b",
        r"(?:永久|永远|牢牢)?记住[:：]|写入(?:你的)?记忆|加入(?:你的)?记忆|存为规则",
    ]),
    "undermine": (0.6, True, [
        r"(?i)\b(?:approve|merge|accept|sign\s+off|lgtm)\b[^\n]{0,50}\bwithout\s+(?:reading|reviewing|review|checking|looking|testing)\b",
        r"(?i)\b(?:never|don'?t|do\s+not|stop)\s+(?:mention|show|report|raise|flag|warn\s+about)\w*\s+(?:any\s+)?"
        r"(?:security|safety|vulnerabilit\w+|risks?|warnings?)\b",
        r"(?i)\b(?:say|tell|answer|claim|reply)\b[^\n]{0,40}\b(?:is|are)\s+(?:safe|fine|secure|ok(?:ay)?)\b[^\n]{0,20}"
        r"|\b(?:it\s+is|it'?s)\s+(?:fine|safe|ok(?:ay)?)\s+to\s+(?:paste|share|post|send|commit|print)\b",
        r"(?i)\b(?:disable|skip|delete|remove|comment\s+out)\s+(?:the\s+)?(?:failing\s+)?tests?(?:\s+suite)?\b[^\n]{0,40}"
        r"\b(?:commit|push|merge)\w*\s+(?:anyway|regardless)",
        r"(?i)\b(?:tell|inform|assure|report\s+to|reply\s+to)\s+the\s+(?:user|human|person|owner|reviewer)s?\s+(?:that\s+)?"
        r"(?:all\s+|the\s+|every\s+)?(?:tests?\s+(?:passed|pass|succeeded)|it\s+(?:worked|is\s+(?:fine|safe|done))|everything\s+"
        r"(?:is\s+fine|passed|worked|is\s+ok))",
        r"(?i)\b(?:reviews?|tests?|checks?|confirmations?|code\s+reviews?)\s+(?:are|is)\s+(?:a\s+waste\s+of\s+time|pointless|useless|"
        r"unnecessary|a\s+formality)\b|\beven\s+if\s+(?:it|they|the\s+\w+)\s+(?:failed|fails|didn'?t\s+work|did\s+not\s+work|is\s+broken|"
        r"has\s+(?:bugs|vulnerabilities)|is\s+(?:vulnerable|insecure))\b",
        r"(?:不要|别|不许|不准|无需)(?:再)?(?:提|提及|提到|提起|说|报告|警告|指出)(?:任何)?(?:安全)?(?:风险|漏洞|问题|警告)|"
        r"即使[^。\n]{0,10}(?:有漏洞|失败|不安全|有问题)",
        r"(?i)\b(?:commit|push|merge)\s+anyway\b|\b(?:disable|turn\s+off|bypass|skip)\s+(?:the\s+)?(?:security|safety|"
        r"secret|virus|malware)\s+(?:scan|scanning|checks?|hooks?|review)s?\b",
        r"(?:自动|直接|一律)(?:批准|通过|合并)|(?:回答|说|回复)[^。\n]{0,6}(?:没有风险|没有问题|是安全的|很安全)|"
        r"(?:跳过|忽略|关闭|禁用)[^。\n]{0,6}(?:测试|检查)[^。\n]{0,10}(?:提交|推送|合并)",
    ]),
}  # fmt: skip

_LEADING_FLAGS = re.compile(r"^\(\?([imsx]+)\)")


def _scoped(pattern: str) -> str:
    """`(?i)abc` as `(?i:abc)`, so patterns with their own flags can be joined."""
    flags = _LEADING_FLAGS.match(pattern)
    if flags is None:
        return f"(?:{pattern})"
    return f"(?{flags.group(1)}:{pattern[flags.end() :]})"


FEATURES: list[Feature] = [
    Feature(name, weight, negatable, re.compile("|".join(_scoped(p) for p in patterns)))
    for name, (weight, negatable, patterns) in _FEATURES.items()
]
