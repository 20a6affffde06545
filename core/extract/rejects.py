"""Sentences that are never candidates, whoever wrote them, and why.

`reject_reason(sentence, role)` names the first class a sentence falls in, or "" when it
may be scored: fragments, headings, table rows, log lines, tracebacks, code, the agent's
narration ("I'll now…", "Let me…"), interrupt markers and harness wrappers, questions,
hedged guesses ("maybe…", "也许…"), one-off remarks ("today", "for this one", "今天先别"),
one-task requests ("fix this", "can you…", "帮我查一下", "幫我查一下") and anything that
carries a secret or a redaction marker ("my api key is [REDACTED:…], remember it").

A request is only rejected when nothing in it makes it last ("always", "from now on",
"以后", "every time" …): "please always run the linter" is a rule, not a request.
"""

from __future__ import annotations

import re

from memdesk.core.extract.sentences import Sentence
from memdesk.core.extract.signals import HEDGE, ONE_OFF, cue
from memdesk.core.extract.units import cjk_chars, units
from memdesk.core.guard import redact_text

MIN_WORDS = 4  # in units.py's language-neutral words: 4 English words, 6 CJK characters
MAX_CHARS = 400

# An interrupt marker glued to what the person typed next: cut out, the rest is kept.
INTERRUPTION = re.compile(r"\[Request interrupted by user[^\]]*\]", re.IGNORECASE)
_MARKER = re.compile(
    r"\[request interrupted|\[interrupted|<command-(?:name|message|args)>|<local-command-|"
    r"<system-reminder>|<user-prompt-submit-hook>|caveat: the messages below|^api error\b|"
    r"^\[(?:image|pasted text)[^\]]*\]$|this session is being continued from a previous|"
    r"<environment_context>|<user_instructions>|</?[a-z_-]+>$",
    re.IGNORECASE,
)
_LOG = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}\]?\s|"
    r"\[?(?:INFO|DEBUG|WARN(?:ING)?|ERROR|TRACE|FATAL|CRITICAL)\]?[:\s]|npm (?:ERR|WARN)!|"
    r"(?:error|warning)(?:\[\w+\])?: |E\s{2,}|[✓✔✗✘×√⨯]\s|PASS\s|FAIL\s|ok\s+\d|\$ |> )",
)
# Log output pasted anywhere in a line: bracketed times and levels, stream labels.
_LOG_ANYWHERE = re.compile(
    r"\[\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?\]|\[(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\]|"
    r"\b(?:stderr|stdout)\s*:|\(node:\d+\)|^\[[\w.-]+@[\d.]+\]|\bat (?:file:|/)\S+:\d+|"
    # a test runner's or a web server's output pasted into a message
    r"\b(?:FAILED|PASSED|ERROR)\s+\S+::\w|\b\d+ (?:failed|passed)(?:, \d+ \w+)+ in [\d.]+s\b|"
    r"\bHTTP/\d(?:\.\d)?\"? \d{3}\b|^(?:INFO|DEBUG|WARNING|ERROR|CRITICAL):\s"
)
_TRACEBACK = re.compile(
    r"traceback \(most recent call last\)|^\s*file \"[^\"]+\", line \d+|^\s*at [\w$.<>]+ (?:\[as \w+\] )?\(|"
    r"^\s*at .+:\d+:\d+\)?$|^\w+(?:error|exception): |\bline \d+, in \w+|^\s*\^+\s*$",
    re.IGNORECASE,
)
_CODE_START = re.compile(
    r"^(?:def |class |import |from \S+ import |const |let |var |function |return |export |"
    r"async |await |if \(|for \(|while \(|#include|package |public |private |fn |impl |use \w+::|"
    r"[}\])]|<\/?[a-zA-Z][\w-]*[\s>]|\w+\s*=\s*[\[{(\"'\d]|\w+\(.*\)\s*;?$|@\w+\()",
)
_CODE_CHARS = tuple("{}()[];=<>|&$\\")
_NARRATION = re.compile(
    r"^(?:i['’]ll\b|i will\b|i['’]m going to\b|i am going to\b|let me\b|let['’]s (?:see|check|look|try|start|verify|run)\b|"
    r"now (?:i|let['’]s|let me|i['’]ll|\w+ing)\b|next,? (?:i|let)\b|first,? (?:i|let)\b|"
    r"i['’]ve (?:\w+ly )?(?:\w+ed|made|written|run|found|got|added|done)\b|"
    r"i have (?:\w+ly )?(?:\w+ed|made|written|run|found)\b|"
    r"i (?:see|notice|found|can see)\b|"
    r"here['’]s\b|here is\b|here are\b|looking at\b|checking\b|perfect\b|great\b|good\b|excellent\b|"
    r"done\b|sure\b|okay\b|ok\b|alright\b|got it\b|understood\b|you['’]re (?:right|absolutely)|"
    r"thanks|thank you|all (?:set|done|good|checks)|everything (?:works|checks|matches|is)|"
    r"我来|我會|我会|我將|我将|让我|讓我|接下来|接下來|现在我|現在我|好的|好，|明白|收到|完成了|已完成|"
    # the agent on what it is about to do: "我先看看" (let me look first), "我看一下" (let me
    # check), "我不会…" (I won't…). (What it has done, "已修改 x.py", is a report, as
    # "Updated x.py" is: scoring.REPORT, a cue for the model; such reports name facts as
    # often as other sentences on the real transcripts.)
    r"我(?:先|再|去)|我(?:看|查|检查|檢查|确认|確認|试|試)(?:一下|下|看)|我不会|我不會|"
    r"i won['’]t\b|i will not\b)",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"\b(?:is done|are done|is complete|are complete|is now complete|is ready|succeeded|passed|"
    r"is now ready|are now ready|now ready for|"
    r"ran clean|is clean|are clean|all pass|verified end-to-end|works end-to-end|"
    r"no (?:errors|offenses|changes needed)|cleaning up|cleaned up|back to the)\b|"
    r"已通过|已通過|都通过了|都通過了|测试通过|測試通過|跑通了|搞定了|已就绪|已就緒|"
    r"完成了?(?:[：:，,。！]|$)",  # "构建完成：…" (the build is done: …)
    re.IGNORECASE,
)
# Asking for something: polite forms are requests whatever they name.
# Chinese joins clauses with "，" where English starts a new sentence ("CI 又挂了，帮我查一下"
# is "CI broke again. Can you check?"), so a Chinese ask may open any clause.
_ASK = re.compile(
    r"(?:^|[,;!]\s+)(?:please\s+)?(?:can|could|would|will) you\b|^please\b|^pls\b|^help me\b|"
    r"(?:^|[，；：]\s*)(?:也|那|再|还|還|另外|順便|顺便)?\s*(?:帮我|幫我|帮忙|幫忙|请帮|請幫|请你帮|請你幫|"
    r"麻烦|麻煩|能不能|能否|可不可以|可以帮|可以幫)|"
    r"(?:^|[，；：]\s*)(?:你|您)(?:先|再|来|來)?(?:看|查|改|写|寫|跑|试|試|删|刪|起|弄|修|做|处理|處理)|"
    r"^(?:看一下|看看|看下|查一下|查查|查下|改一下|改下|试一下|試一下|试试|試試|试下|跑一下|跑下)|"
    # Japanese asks politely at the end: "…を更新してください" (please update …)
    r"(?:てください|でください|て下さい|お願いします|お願いいたします)[。！!]?\s*$",
    re.IGNORECASE,
)
# A bare imperative is a one-task request unless it names something concrete (then it
# often sets a convention: "use # prefix imports in src/", scored like any statement).
_REQUEST = re.compile(
    r"^(?:fix|add|update|remove|delete|run|check|create|make|implement|write|continue|proceed|"
    r"apply|commit|show|explain|try|retry|export|clear|start|move|go|rename|refactor|change|"
    r"look|find|open|build|deploy|install|test|debug|review|read|tell|give|let['’]s)\b"
    r"(?!.*\b(?:always|never|every|each time|whenever|from now on|going forward|by default|"
    r"instead of|rather than|in (?:all|every)|all (?:the )?(?:tests|files|code)|must|should)\b)|"
    r"^(?:刪掉|删掉|继续|繼續|修一下|修复一下|修復一下)",
    re.IGNORECASE,
)
_LASTING = re.compile(
    r"\b(?:always|never(?! mind)|every|each time|whenever|from now on|going forward|by default|remember|"
    r"in future|from here on)\b|以后|以後|今后|今後|从现在起|從現在起|每次|永远|永遠|一律|统一|統一|"
    r"记住|記住|都要|不要再|别再|別再",
    re.IGNORECASE,
)
_SECRET_WORDS = re.compile(
    r"\[REDACTED|\b(?:api[_ ]?key|password|passwd|secret key|private key|access token|token)\s+(?:is|=|:)\s*\S",
    re.IGNORECASE,
)


def is_fragment(text: str) -> bool:
    if units(text) < MIN_WORDS:
        return True
    if cjk_chars(text):
        return False
    if text.count("`") % 2 == 1:
        return True  # cut in the middle of inline code
    return text.rstrip().endswith((",", "—", "-", "–", "(", "and", "or", "的", "，", "、"))


# A shell command continued on the next line ("curl 'http://…' \\ -H …", starting with
# the command or a flag) or an opaque run of base64/hex (a key, a hash, a token): pasted
# material, not prose.
_SHELL_CONTINUATION = re.compile(r"^(?:--?\w|[a-z][\w.-]*\s)(?:.*\s)?\\(?:\s|$)")
_OPAQUE_RUN = re.compile(r"[A-Za-z0-9+=_-]{32,}")  # not "/": a path is not a key


def _opaque(text: str) -> bool:
    """A run of 32+ key characters mixing lower case, upper case and digits."""
    for run in _OPAQUE_RUN.findall(text):
        if not run.islower() and not run.isupper() and any(ch.isdigit() for ch in run):
            return True
    return False


def looks_like_code(text: str) -> bool:
    if _CODE_START.match(text):
        return True
    if "\\" in text and _SHELL_CONTINUATION.search(text):
        return True
    if len(text) >= 32 and _opaque(text):
        return True
    stripped = re.sub(r"`[^`]*`", "", text)  # inline code in prose is fine
    if not stripped:
        return True
    symbols = sum(stripped.count(ch) for ch in _CODE_CHARS)
    return symbols / len(stripped) > 0.08 or stripped.rstrip().endswith((";", "{", "=>"))


_CONCRETE = re.compile(r"[\w.-]+[/.][\w/.-]+|`[^`]+`|\b[a-z]+[A-Z]\w*|\b\w+_\w+|--?[a-z][\w-]+|#\w")


_TRACE_HINTS = ("traceback", 'file "', "at ", "error: ", "exception: ", "line ", "^")
_LOG_HINTS = (
    "[",
    "stderr",
    "stdout",
    "(node:",
    "at ",
    "::",
    " in ",
    "http/",
    "info:",
    "debug:",
    "warning:",
    "error:",
    "critical:",
)
_QUESTION_ENDS = ("?", "？", "吗", "嗎", "呢")


def is_question(text: str) -> bool:
    end = text.rstrip().rstrip(')）"”。.').rstrip()
    return end.endswith(_QUESTION_ENDS)


def is_narration(text: str) -> bool:
    """The agent on what it does or did ("I'll now…", "我先看看", "is done")."""
    return bool(_NARRATION.match(text) or _STATUS.search(text))


def is_polite_request(text: str) -> bool:
    """Asked for politely ("can you…", "please…", "帮我…"): a one-task request whatever it
    names, unless something in it makes it last."""
    return not _LASTING.search(text) and bool(_ASK.search(text))


def is_request(text: str) -> bool:
    """A one-task request: asked politely, or a bare imperative naming nothing concrete;
    never when something in it makes it last ("always", "from now on", "以后")."""
    if _LASTING.search(text):
        return False
    if _ASK.search(text):
        return True
    return bool(_REQUEST.search(text)) and not _CONCRETE.search(text)


def has_secret(text: str) -> bool:
    return bool(_SECRET_WORDS.search(text)) or bool(redact_text(text)[1])


def reject_reason(sentence: Sentence, role: str, *, secrets: bool = True) -> str:
    """Why a sentence can never be a candidate ("" when it can be scored). `role` is
    "person", "assistant" or "note". With `secrets=False` the (costlier) secret check is
    left to the caller, who runs `has_secret` on what it keeps."""
    text = sentence.text
    if sentence.block in ("heading", "table"):
        return sentence.block
    if len(text) > MAX_CHARS:
        return "too long"
    if _MARKER.search(text):
        return "marker"
    if secrets and has_secret(text):
        return "secret"
    lowered = text.lower()
    if any(hint in lowered for hint in _TRACE_HINTS) and _TRACEBACK.search(text):
        return "traceback"
    if _LOG.match(text) or (any(h in lowered for h in _LOG_HINTS) and _LOG_ANYWHERE.search(text)):
        return "log"
    if looks_like_code(text):
        return "code"
    if is_fragment(text):
        return "fragment"
    if text.rstrip().endswith((":", "：")):
        return "heading"
    if is_question(text):
        return "question"
    if cue("hedge", HEDGE, text, lowered):
        return "hedge"  # a guess, not a fact (seed 004: no model guesses)
    if cue("one_off", ONE_OFF, text, lowered) and not _LASTING.search(text):
        return "one-off"  # "今天先别提交", "for this one": mattered in that session only
    if role != "person" and is_narration(text):
        return "narration"
    if role == "person" and is_request(text):
        return "request"
    return ""
