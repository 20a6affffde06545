"""How much a sentence that passed the rejection rules is worth keeping.

The person's words and notes start from seed 001's signals (signals.py). What carries a
project fact is something concrete — a path, a file name, a version, a CamelCase or
snake_case name, a command, an environment variable, a flag, a URL — and a plain
statement or a directive about it ("X uses Y", "use Y instead of X", "prefer", "should",
"must", a decision with its reason). So:

- person / note: the strongest seed-001 signal, the "stated fact" signal only when the
  sentence names something concrete; +0.1 for a concrete identifier with a directive;
- an assistant statement the person agreed to: nothing from cue words alone; it needs an
  identifier (0.45) and a statement or directive form (0.2), a reason adds 0.1, a lesson
  (root cause, fix) 0.25,
  a second identifier 0.05;
- everybody loses points for requests (0.4), one-off time words (0.35), hedges (0.3);
  the assistant's statements also for talking to the person ("you can…", "your"),
  reporting what it just did ("I added…", "was removed", counts of things) and
  plan/step labels ("Phase 2", "Step 1").

The values are the seed-001 scale, so `[extractor] threshold` (0.6) keeps its meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memdesk.core.extract import signals as sig

_IDENTIFIER = re.compile(
    r"`[^`]{2,}`|"  # inline code
    r"(?<![\w/])(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@*+-]*)*|"  # /abs/path, ./rel, ~/x
    r"\b[\w.-]+/[\w.*-]+(?:/[\w.*-]+)*/?|"  # dir/file, org/repo, src/**/x
    r"\b[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|cjs|rb|go|rs|java|kt|swift|c|h|cpp|cs|php|toml|yaml|yml|"
    r"json|jsonl|md|sh|sql|env|cfg|ini|lock|conf|txt|html|erb|css|scss|vue|svelte|xml|gradle|"
    r"uproject|dockerfile)\b|"
    r"\b\d+\.\d+(?:\.\d+)*\b|"  # versions, sizes
    r"\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|"  # camelCase, CamelCase
    r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|"  # snake_case
    r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|"  # ENV_VARS
    r"(?<!\w)--?[a-z][\w-]+|"  # flags
    r"\b(?:npm|npx|pnpm|yarn|bun|pip|uv|cargo|go|make|git|docker|kubectl|bin/\w+|rails|bundle|"
    r"pytest|python3?|node|deno|gradle|mvn)\s+[a-z][\w:-]*|"  # commands
    r"\b[a-z][a-z0-9+.-]*://\S+|"  # URLs
    r"#[\w/]+|"  # #imports, #tags
    r"\b[A-Z]{2,}[a-z]*\b"  # acronyms: API, CLI, SQLite, UE
)
# Chinese text naming a Latin term (gwadmin, Parquet) is as concrete as it gets.
_CJK_WITH_LATIN = re.compile(r"[\u3400-\u9fff].*[A-Za-z]{2,}|[A-Za-z]{2,}.*[\u3400-\u9fff]")
# Cheap necessary conditions for the pattern above, whose `.*` backtracks over the whole
# line at every Latin letter: it can only match when both a CJK character and two Latin
# letters in a row are present, and then always does unless a line break separates them.
_ANY_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_PAIR = re.compile(r"[A-Za-z]{2}")


def mixes_cjk_and_latin(text: str) -> bool:
    """A CJK word and a Latin word in one line (as _CJK_WITH_LATIN, without its cost)."""
    if text.isascii() or not _ANY_CJK.search(text) or not _LATIN_PAIR.search(text):
        return False
    return "\n" not in text or _CJK_WITH_LATIN.search(text) is not None


DIRECTIVE = re.compile(
    r"\b(?:use[sd]?|using|instead of|rather than|prefer(?:s|red)?|should(?:n['’]t)?|must|"
    r"always|never|only|avoid|do not|don['’]t|required?|requires|default(?:s)?|keep|stays?|"
    r"is|are|lives? (?:in|at)|runs? (?:on|in|with)|points? to|stored? in|goes through|"
    r"via|with|through)\b|用|改用|不要|别|別|必须|必須|应该|應該|统一|統一|一律|只|放在|在|是|為|为",
    re.IGNORECASE,
)
REASON = re.compile(
    r"\b(?:because|since|so that|so\b|which is why|otherwise|to avoid|due to|root cause|"
    r"turned out|caused by|breaks?|fails?|won['’]t work|doesn['’]t work)\b|因为|因為|所以|以便|否则|否則|导致|導致",
    re.IGNORECASE,
)
TO_PERSON = re.compile(
    r"^(?:you|your)\b|\byou(?:['’]ll| will| can| could| need| should| may| might)\b|\byour\b|"
    r"\bif you\b|\bwhen you\b|\b(?:consider|please)\b|你可以|您可以|你的|您的|你需要|您需要|你要|给你|給你|"
    r"^(?:我)?(?:建议|建議)|"  # "I suggest …": advice to the person, like "you should"
    r"(?:^|[，；]\s*)可以(?:在|把|用|先|直接|考虑|考慮)",  # "(you) can …", subject dropped
    re.IGNORECASE,
)
REPORT = re.compile(
    r"^(?:i|we)\b|\b(?:i|we) (?:\w+ed|made|wrote|ran|found|got|left|kept|set|put)\b|"
    r"\b(?:was|were|has been|have been) (?:\w+ed|made|written|run|set|removed|gone)\b|"
    r"\bis now\b|\bare now\b|\bnow (?:has|have|uses|shows|returns)\b|\b\d+ (?:files?|tests?|"
    r"records?|campaigns?|donations?|items?|errors?|offenses?|gems?|lines?|routes?|rows?)\b|"
    r"^(?:created|added|removed|updated|fixed|deleted|wrote|ran|verified|confirmed|replaced|"
    r"moved|renamed|installed|cleared|generated|built|tested)\b|我(?:已|已经|已經)|"
    # "已修改 x.py" is "(I have) changed x.py": Chinese drops the subject
    r"^(?:我们|我們)?已(?:经|經)?(?:把|将|將|修改|改|删|刪|新增|添加|加|补|補|上传|上傳|推送|提交|部署|"
    r"重启|重啟|运行|運行|跑|安装|安裝|创建|創建|写|寫|更新|移除|去掉|合并|合併|撤销|撤銷|设置|設置|"
    r"配置|恢复|恢復|完成)|已(?:经|經)?(?:完成|修改|删除|刪除|新增|更新)",
    re.IGNORECASE,
)
STEP_LABEL = re.compile(
    r"\b(?:phase|step|stage|block|part|task) \d+\b|第.[步阶段階段]", re.IGNORECASE
)


@lru_cache(maxsize=8192)
def _names(text: str) -> tuple[str, ...]:
    # Asked for by the hand rules, the features and the repeat count of the same sentence.
    return tuple(_IDENTIFIER.findall(text))


@lru_cache(maxsize=8192)
def identifier_tokens(text: str) -> frozenset[str]:
    """The concrete names in a sentence, lower-cased (for counting repeats)."""
    return frozenset(match.strip("`").lower() for match in _names(text) if len(match) > 2)


def identifiers(text: str) -> int:
    found = len(_names(text))
    if not found and mixes_cjk_and_latin(text):
        found = 1
    return found


@dataclass(frozen=True)
class Shape:
    """The directive / reason / to-the-person / report / step-label cues of a sentence."""

    directive: bool
    reason: bool
    to_person: bool
    report: bool
    step_label: bool


@lru_cache(maxsize=4096)
def shape(text: str) -> Shape:
    """Cached: the hand rules and the model's features both ask for these cues."""
    return Shape(
        directive=DIRECTIVE.search(text) is not None,
        reason=REASON.search(text) is not None,
        to_person=TO_PERSON.search(text) is not None,
        report=REPORT.search(text) is not None,
        step_label=STEP_LABEL.search(text) is not None,
    )


def penalties(text: str, lowered: str) -> float:
    minus = 0.0
    if sig.cue("one_off", sig.ONE_OFF, text, lowered):
        minus += 0.35
    if sig.cue("hedge", sig.HEDGE, text, lowered):
        minus += 0.3
    return minus


def person_score(text: str, role: str) -> float:
    """A sentence of the person (role "user") or of a notes file (role "note")."""
    lowered = text.lower()
    concrete = identifiers(text)
    found = sig.signals_of(text, "user")
    if not concrete:
        found.pop("stated", None)
    if role == "note":
        best = max([0.7, *found.values()])
    elif not found:
        return 0.0
    else:
        best = max(found.values())
    if "explicit" in found:
        return best
    if (
        concrete
        and found
        and max(found, key=found.__getitem__) != "stated"
        and shape(text).directive
    ):
        best += 0.1
    if sig.cue("request", sig.REQUEST, text, lowered):
        best -= 0.4
    return best - penalties(text, lowered)


def assistant_score(text: str) -> float:
    """An assistant statement in a turn the person agreed to."""
    concrete = identifiers(text)
    if not concrete:
        return 0.0
    value = 0.45 + (0.05 if concrete > 1 else 0.0)
    cues = shape(text)
    if cues.directive:
        value += 0.2
    if cues.reason:
        value += 0.1
    if "lesson" in sig.signals_of(text, "assistant"):
        value += 0.25  # root cause and fix: what the person rarely restates
    if cues.to_person:
        value -= 0.3
    if cues.report:
        value -= 0.3
    if cues.step_label:
        value -= 0.2
    return value - penalties(text, text.lower())
