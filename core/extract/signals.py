"""Seed 001's signals in one statement, the penalties, and kind/scope from cue words.

Each statement is scored with seed 001's signals: explicit 0.95, milestone 0.85, lesson
0.8, preference 0.7, plus a cue-word rule (0.8), a decision (0.8), profile and event cues
(0.7) and a plain stated fact with a concrete detail (0.65); requests and questions
(-0.4), one-off remarks like "今天先别提交" (-0.35) and hedged guesses like "也许"/"maybe"
(-0.3) lose points. Kind and scope come from cue words (commands/paths -> project,
CI/org/vault -> workspace, I prefer/我喜欢/不要 -> preference/user, root cause/修复 ->
experience, 决定/换成 -> decision, birthday/我叫 -> profile, dates -> event).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

# -- signals ----------------------------------------------------------------------------

EXPLICIT = re.compile(
    r"^(?:记住|请记住|记一下|注意|约定|remember|note that|keep in mind|don't forget)|记住|remember\b",
    re.IGNORECASE,
)
RULE = re.compile(
    r"必须|一定|永远|一律|统一|以后|从现在起|今后|别再|不要再|不再|都要|"
    r"\b(?:always|never(?! mind)|must|from now on|going forward|from here on)\b",
    re.IGNORECASE,
)
PREFERENCE = re.compile(
    r"\bi (?:prefer|like|love|hate|don't like|do not like|use|usually|always|never)\b|"
    r"\bi've switched|\bi switched|\bi'm using|\bmy [\w -]{1,30} (?:is|are)\b|\bplease (?:always|never|use)\b|"
    # 别 is "don't" but also "other" (别的, 别人, 别处): only the first is a preference
    r"我喜欢|我不喜欢|我习惯|我偏好|我一般|我平时|我用|给我|别(?![的人处處家])|別(?![的人處家])|不要|"
    r"不能吃|不吃|不太好|受不了",
    re.IGNORECASE,
)
LESSON = re.compile(
    r"\broot cause\b|\bthe fix\b|\bfixed by\b|\bfix:|\bturned out\b|\bcaused by\b|\bbecause\b|\blesson\b|"
    r"根因|原因是|是因为|因为|修复|导致|搞混|踩坑|教训|原来是",
    re.IGNORECASE,
)
MILESTONE = re.compile(
    r"\b(?:done|completed|finished|shipped|released|deployed|migrated|renamed|upgraded|switched (?:from|to)|now uses?)\b|"
    r"已经|已从|完成了|上线了|改名|迁移到|升级到",
    re.IGNORECASE,
)
DECISION = re.compile(
    r"\b(?:we decided|decided to|let's use|let's go with|go with|switch(?:ed)? to|instead of|rather than|"
    r"not \w+ anymore|no longer)\b|用\s*[\w.-]+\s*[，,]\s*不(?:要|用)|决定|换成|改用|改成|统一用|一律|只走|只用|不用|不要用|不再使用|走\s*\S+\s*的",
    re.IGNORECASE,
)
# A plain statement of fact: "X 是/叫/用 Y", "X is Y", with something concrete in it.
STATED = re.compile(
    r"是|叫|为|用|装在|放在|在|单位|默认|最大|上限|参数|\b(?:is|are|was|uses?|runs? on|lives? in|lives? at)\b",
    re.IGNORECASE,
)
CONCRETE = re.compile(
    r"[A-Za-z_][\w.-]*[_./-][\w./-]+|\b[A-Z][A-Za-z0-9]+\b|\d|[a-z]{3,}|/[\w.-]+",
)
REQUEST = re.compile(
    r"^(?:帮我|请帮|帮忙|麻烦|你(?:先)?(?:起|看|查|改|写|跑)|看下|看看|查一下|查查|能不能|可不可以|要不要|"
    r"can you|could you|would you|please (?!always|never|use)|let me|let's see|how do|what|why|is there)|"
    r"帮我|[?？]\s*$|吗\s*$|\bwrite me\b",
    re.IGNORECASE,
)
ONE_OFF = re.compile(
    r"今天|今晚|明天|刚才|这次|这一次|先别|等会|一会儿|试试|试一下|可以删掉|删掉吧|\b(?:today|tonight|tomorrow|this time|for this one|right now|for now)\b",
    re.IGNORECASE,
)

_PROFILE = re.compile(
    r"\bmy (?:birthday|name|job|wife|husband|partner|kids?|son|daughter)\b|\bi(?:'m| am) (?:a|an|learning|from)\b|"
    r"\bi (?:live|work|started)\b|生日|我叫|我是|我在\S{0,8}(?:工作|上班|住)|最近开始|我住",
    re.IGNORECASE,
)
_EVENT = re.compile(
    r"下周|下个月|下星期|下礼拜|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|从下周|\bnext (?:week|month|monday|tuesday|"
    r"wednesday|thursday|friday)\b|\bon (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d",
    re.IGNORECASE,
)

# Hedged statements are guesses, not facts (seed 004: no model guesses). Not refused by
# the guard (a person may keep an idea on purpose), but not extracted either.
HEDGE = re.compile(
    r"^\s*(?:maybe|perhaps|probably|possibly|i think|i guess|i suspect|i assume|it might|"
    r"might be|not sure|could be)\b|^\s*(?:可能|也许|大概|或许|应该是|我觉得可能|我猜|不确定是否)|"
    # "I think …" opens an opinion in both languages
    r"^\s*(?:[嗯哦噢啊呃][，,、\s]*)?我(?:也|还是|還是)?(?:觉得|覺得|认为|認為|感觉|感覺)|"
    r"\b(?:i'm not sure|i am not sure|my guess is)\b|(?:猜测|推测)(?:是|可能)",
    re.IGNORECASE,
)

SIGNAL_SCORES: dict[str, float] = {
    "explicit": 0.95,
    "milestone": 0.85,
    "lesson": 0.8,
    "rule": 0.8,
    "decision": 0.8,
    "preference": 0.7,
    "profile": 0.7,
    "event": 0.7,
    "stated": 0.65,
}
THRESHOLD = 0.6


# Literal gates, one per cue: a lower-case alternation of the words each cue regex starts
# from. Python's `re` scans a plain literal alternation about ten times faster than one
# with IGNORECASE and `\b` assertions, and most sentences match no cue at all; the precise
# regex only runs when its gate has matched, so results are exactly the same.
_GATES: dict[str, re.Pattern[str]] = {
    name: re.compile("|".join(re.escape(word) for word in words.split("|")))
    for name, words in {
        "explicit": "记住|记一下|注意|约定|remember|note that|keep in mind|don't forget",
        "rule": "必须|一定|永远|一律|统一|以后|从现在起|今后|别再|不要再|不再|都要|always|never|must|"
        "from now on|going forward|from here on",
        "milestone": "done|completed|finished|shipped|released|deployed|migrated|renamed|upgraded|"
        "switched|now use|已经|已从|完成了|上线了|改名|迁移到|升级到",
        "lesson": "root cause|the fix|fixed by|fix:|turned out|caused by|because|lesson|根因|原因是|"
        "是因为|因为|修复|导致|搞混|踩坑|教训|原来是",
        "decision": "decided|let's|go with|switch|instead of|rather than|anymore|no longer|决定|换成|"
        "改用|改成|统一用|一律|只走|只用|不用|不要用|不再使用|用|走",
        "preference": "i prefer|i like|i love|i hate|i don't like|i do not like|i use|i usually|"
        "i always|i never|i've switched|i switched|i'm using|my |please |我喜欢|我不喜欢|我习惯|"
        "我偏好|我一般|我平时|我用|给我|别|別|不要|不能吃|不吃|不太好|受不了",
        "profile": "my |i'm |i am |i live|i work|i started|生日|我叫|我是|我在|最近开始|我住",
        "event": "下周|下个月|下星期|下礼拜|月|next |on ",
        "stated": "是|叫|为|用|装在|放在|在|单位|默认|最大|上限|参数|is|are|was|use|run|live",
        "request": "帮|请|麻烦|你|看下|看看|查|能不能|可不可以|要不要|can you|could you|would you|"
        "please|let me|let's see|how do|what|why|is there|?|？|吗|write me",
        "hedge": "maybe|perhaps|probably|possibly|i think|i guess|i suspect|i assume|it might|"
        "might be|not sure|could be|可能|也许|大概|或许|应该是|我觉得可能|我猜|不确定是否|"
        "觉得|覺得|认为|認為|感觉|感覺|"
        "my guess is|猜测|推测",
        "one_off": "今天|今晚|明天|刚才|这次|这一次|先别|等会|一会儿|试试|试一下|可以删掉|删掉吧|today|"
        "tonight|tomorrow|this time|for this one|right now|for now",
    }.items()
}


def cue(name: str, precise: re.Pattern[str], text: str, lowered: str) -> bool:
    return _GATES[name].search(lowered) is not None and precise.search(text) is not None


def signals_of(statement: str, role: str) -> dict[str, float]:
    """Seed 001's signals (plus rule/decision/stated/profile/event) in one statement."""
    return dict(_signals(statement, role))


@lru_cache(maxsize=4096)
def _signals(statement: str, role: str) -> tuple[tuple[str, float], ...]:
    # Cached: the hand rules, the model's features and the classification each ask for
    # the signals of the same sentence. A tuple, so no caller can change the cached value.
    return tuple(_find_signals(statement, role).items())


def _find_signals(statement: str, role: str) -> dict[str, float]:
    found: dict[str, float] = {}
    lowered = statement.lower()
    if role == "assistant":
        if cue("lesson", LESSON, statement, lowered) and not cue(
            "hedge", HEDGE, statement, lowered
        ):
            found["lesson"] = SIGNAL_SCORES["lesson"]
        return found
    for name, precise in (
        ("explicit", EXPLICIT),
        ("rule", RULE),
        ("milestone", MILESTONE),
        ("lesson", LESSON),
        ("decision", DECISION),
        ("preference", PREFERENCE),
        ("profile", _PROFILE),
        ("event", _EVENT),
    ):
        if cue(name, precise, statement, lowered):
            found[name] = SIGNAL_SCORES[name]
    if cue("stated", STATED, statement, lowered) and CONCRETE.search(statement):
        found["stated"] = SIGNAL_SCORES["stated"]
    return found


def score(statement: str, role: str) -> tuple[float, dict[str, float]]:
    found = signals_of(statement, role)
    if role == "note":
        # A line of a daily log / notes file was written down on purpose: it is a
        # candidate (low confidence) even without a cue; cues can raise it.
        best = max([0.7, *found.values()])
        return best, found
    if not found:
        return 0.0, found
    best = max(found.values())
    if "explicit" not in found:
        lowered = statement.lower()
        if cue("request", REQUEST, statement, lowered):
            best -= 0.4
        if cue("one_off", ONE_OFF, statement, lowered):
            best -= 0.35
        if cue("hedge", HEDGE, statement, lowered):
            best -= 0.3
    return best, found


# Signals from the strongest down: `quick_score` stops at the first one present.
_BY_STRENGTH: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("explicit", EXPLICIT),
    ("milestone", MILESTONE),
    ("lesson", LESSON),
    ("rule", RULE),
    ("decision", DECISION),
    ("preference", PREFERENCE),
    ("profile", _PROFILE),
    ("event", _EVENT),
    ("stated", STATED),
)


def quick_score(statement: str, role: str, threshold: float = THRESHOLD) -> float:
    """The same value as `score(...)[0]` whenever it matters (above the threshold), found
    without testing every signal: the strongest one present decides, then the penalties."""
    if role != "user":
        return score(statement, role)[0]
    lowered = statement.lower()
    best = 0.0
    strongest = ""
    for name, precise in _BY_STRENGTH:
        value = SIGNAL_SCORES[name]
        if value <= threshold:
            return 0.0
        if cue(name, precise, statement, lowered) and (
            name != "stated" or CONCRETE.search(statement)
        ):
            best, strongest = value, name
            break
    if not strongest:
        return 0.0
    if strongest != "explicit":
        if cue("request", REQUEST, statement, lowered):
            best -= 0.4
        if cue("one_off", ONE_OFF, statement, lowered):
            best -= 0.35
        if cue("hedge", HEDGE, statement, lowered):
            best -= 0.3
    return best


def confidence_label(value: float) -> str:
    if value >= 0.9:
        return "high"
    if value >= 0.75:
        return "medium"
    return "low"


# -- kind and scope ---------------------------------------------------------------------

_EXPERIENCE = re.compile(
    r"\broot cause\b|\bfix(?:ed)?\b|\bbecause\b|\bcaused by\b|根因|原因|修复|是因为|导致",
    re.IGNORECASE,
)
_PERSONAL = re.compile(
    r"我妈|我爸|妈妈|爸爸|家里|老婆|老公|孩子|女儿|儿子|朋友|膝盖|身体|\bmy (?:mom|mother|dad|father|family|wife|husband|kids?)\b|\bme\b|\bmy\b|\bi\b|我",
    re.IGNORECASE,
)
_AGENT_FACING = re.compile(
    r"给我|推荐|回答|回复|翻译|\breply\b|\banswer\b|\brecommend|\bsuggest|\btranslat|\bassume\b|\bwrite (?:me|mappings)|"
    r"别把|不要把|我喜欢|我不喜欢|我习惯|我偏好|\bi (?:prefer|like|hate|use)\b|\bmy \w+ is\b|"
    r"\bi've switched|\bswitched from\b",
    re.IGNORECASE,
)
_WORKSPACE = re.compile(
    r"GitHub 组织|组织级|\borg(?:anization)?[- ]level\b|\bvault\b|跳板机|\bjump(?:host| host)?\b|"
    r"\bbastion\b|所有仓库|\ball repos\b|公司|团队|\bteam\b|运维|飞书|\bslack\b|\bsecrets\b|凭证|告警",
    re.IGNORECASE,
)
_WORKFLOW = re.compile(
    r"先.{1,30}再|每次.{0,20}(?:先|都)|步骤|流程|\bbefore (?:every|each|you)\b|\bafter (?:every|each)\b|"
    r"\bsteps?\b|统一用\s*\S+\s*remote",
    re.IGNORECASE,
)


def classify(statement: str, found: Mapping[str, float], role: str) -> tuple[str, str]:
    """(kind, scope) from cue words; the order says which cue wins when several match."""
    if "lesson" in found and _EXPERIENCE.search(statement):
        return "experience", "project"
    if _PROFILE.search(statement):
        return "profile", "user"
    if _EVENT.search(statement):
        return "event", "user" if _PERSONAL.search(statement) else "project"
    if _AGENT_FACING.search(statement) or ("preference" in found and _PERSONAL.search(statement)):
        return "preference", "user"
    scope = "workspace" if _WORKSPACE.search(statement) else "project"
    if "decision" in found or ("rule" in found and "一律" in statement):
        return "decision", scope
    if _WORKFLOW.search(statement) and "rule" in found:
        return "workflow", scope
    return "project", scope
