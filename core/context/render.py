"""How assembled memory is written out: `<agent_memory>` block, Markdown, MEMORY.md.

The assembler counts exactly the lines these functions produce, so a format change here
can never push a block over its budget. Items sit under their headings; kind, scope,
source and time of each item are shown only on request (`metadata`), since on a real
memory file they cost more than the facts. MEMORY.md keeps seed 000's shape: every fact
line is `- text`.
"""

from __future__ import annotations

import re
from typing import Any

from memdesk.core.context.weigh import is_code_or_data
from memdesk.core.entry import Entry

SECTION_TITLES: dict[str, str] = {
    "project": "Project facts & architecture",
    "commands": "Commands & environment",
    "experience": "Debugging & experience",
    "preferences": "User profile & preferences",
    "events": "Current events",
    "resources": "Resources",
}
FORMATS: tuple[str, ...] = ("agent", "markdown")

_SPACE = re.compile(r"\s+")


def one_line(text: str) -> str:
    """Collapse line breaks so one entry stays one bullet (and cannot fake a heading)."""
    return _SPACE.sub(" ", text).strip()


_BLOCK_TAG = re.compile(r"<(/?)(agent_memory)", re.IGNORECASE)


def defuse(text: str) -> str:
    """An entry cannot close or open the block it is injected in (`</agent_memory>`)."""
    return _BLOCK_TAG.sub(r"‹\1\2", text)


def source_label(entry: Entry) -> str:
    src = entry.source
    if src.files:
        label = ", ".join(src.files[:2]) + (f" +{len(src.files) - 2}" if len(src.files) > 2 else "")
    elif src.locator:
        label = src.locator
    elif src.session_id:
        label = f"session {src.session_id[:8]}"
    else:
        label = src.origin or "unknown"
    if src.commands:
        label += f"; cmd `{one_line(src.commands[0])}`"
    return label


def time_label(entry: Entry) -> str:
    if entry.source.timestamp:
        return entry.source.timestamp[:10]
    return entry.updated.date().isoformat()


def header_lines(fmt: str, purpose: str) -> list[str]:
    if fmt == "agent":
        return [f'<agent_memory purpose="{purpose}">']
    return [f"# Memory ({purpose})"]


def footer_lines(fmt: str) -> list[str]:
    return ["</agent_memory>"] if fmt == "agent" else []


def heading_line(title: str, fmt: str, depth: int = 1) -> str:
    """`## Title` for a top-level section, one `#` more per level (at most six)."""
    line = f"{'#' * min(6, depth + 1)} {one_line(title)}"
    return defuse(line) if fmt == "agent" else line


_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def bullet_lines(text: str, indent: str = "") -> list[str]:
    """One list item for `text`. A one-line text becomes `- text` (spaces collapsed);
    a text of several lines keeps them, indented under its bullet (lines already
    indented, like a nested list, keep their own indentation), and a code block inside
    it keeps every character, so code and sample data are never flattened. A
    continuation line cannot open a heading of the block (its `#` is escaped)."""
    raw = [line.rstrip().replace("\t", "    ") for line in text.strip("\n").split("\n")]
    while raw and not raw[-1]:
        raw.pop()
    first = one_line(raw[0]) if raw else ""
    lines = [indent + (first if _LIST_MARKER.match(first) else f"- {first}")]
    rest = raw[1:]
    least = min((len(line) - len(line.lstrip()) for line in rest if line), default=2)
    pad = indent + " " * max(0, 2 - least)
    fence = ""
    blank = False
    for line in rest:
        match = _FENCE.match(line)
        if fence:
            lines.append(pad + line if line else "")
            if match and match.group(1).startswith(fence):
                fence = ""
            continue
        if match:
            fence = match.group(1)
        if not line:
            if not blank:
                lines.append("")
            blank = True
            continue
        blank = False
        lead = line[: len(line) - len(line.lstrip())]
        body = line.strip() if match else one_line(line)
        if body.startswith("#"):
            body = "\\" + body
        lines.append(pad + lead + body)
    return lines


def metadata_text(entry: Entry, fmt: str) -> str:
    """Kind, scope, source and time of an entry, as the block shows them on request."""
    if fmt == "agent":
        meta = (
            f"kind={entry.kind}; scope={entry.scope}; source={source_label(entry)}; "
            f"time={time_label(entry)}"
        )
        return meta + (f"; status={entry.status}" if entry.status != "confirmed" else "")
    status = "" if entry.status == "confirmed" else f" · {entry.status}"
    return f"{entry.kind} · {entry.scope} · {source_label(entry)} · {time_label(entry)}{status}"


def _suffix(entry: Entry, fmt: str, metadata: bool) -> str:
    """Per-entry metadata when asked for; otherwise only an unconfirmed entry's status,
    which an agent must know (it is not a reviewed memory)."""
    if metadata:
        meta = metadata_text(entry, fmt)
        return f" ({meta})" if fmt == "agent" else f" — *{meta}*"
    if entry.status == "confirmed":
        return ""
    return f" (status={entry.status})" if fmt == "agent" else f" — *{entry.status}*"


def item_lines(
    entry: Entry,
    fmt: str,
    *,
    with_facts: bool = True,
    metadata: bool = False,
    facts_kept: int | None = None,
) -> list[str]:
    """The item's lines: its summary, then its facts as sub-items (all of them, the
    first `facts_kept`, or none when `with_facts` is off). An entry that is only code or
    sample data, one line per summary and fact (as adopting a code block makes it), is
    written as the code block it was rather than as a list of its lines."""
    facts = [fact for fact in entry.facts[:facts_kept] if fact.strip()] if with_facts else []
    suffix = _suffix(entry, fmt, metadata)
    if _is_code_block(entry):
        lines = [f"- {suffix.strip()}", "  ```"] if suffix else ["- ```"]
        lines.extend(f"  {line}" for line in (entry.summary.strip(), *facts))
        lines.append("  ```")
    else:
        lines = bullet_lines(entry.summary)
        lines[0] += suffix
        for fact in facts:
            lines.extend(bullet_lines(fact, "  "))
    if fmt == "agent":
        lines = [defuse(line) for line in lines]
    return lines


def _is_code_block(entry: Entry) -> bool:
    """Code or sample data held line by line: no line break or fence inside a line."""
    texts = (entry.summary.strip(), *entry.facts)
    if any("\n" in text or _FENCE.match(text) for text in texts):
        return False
    return is_code_or_data(entry.summary, tuple(entry.facts))


def opened_headings(previous: tuple[str, ...], path: tuple[str, ...]) -> list[tuple[int, str]]:
    """(depth, title) of the headings to write when moving from one item's heading path
    to the next one's: those below the part both share."""
    shared = 0
    while shared < min(len(previous), len(path)) and previous[shared] == path[shared]:
        shared += 1
    return [(depth, path[depth - 1]) for depth in range(shared + 1, len(path) + 1)]


def memory_md_text(items: list[tuple[tuple[str, ...], Entry]]) -> str:
    """MEMORY.md: the Store's layout (header, note, headings, one `- summary` each).

    `items` are (heading path, entry) in block order; with one-level paths this is
    exactly seed 000's `## Section` / `- fact` file."""
    from memdesk.core.memory_md import HEADER, NOTE

    lines = [HEADER, "", NOTE]
    previous: tuple[str, ...] = ()
    for path, entry in items:
        for depth, title in opened_headings(previous, path):
            lines.extend(["", f"{'#' * min(6, depth + 1)} {one_line(title)}"])
        previous = path
        lines.append(f"- {' '.join(entry.summary.split())}")
    return "\n".join(lines).rstrip("\n") + "\n"


def render_memory_md(entries: list[Entry], settings: Any = None, verdicts: Any = None) -> str:
    """The MEMORY.md agents load: exactly the entries the default preview includes.

    Built by the same `assemble` call as the default preview (purpose, budget, unit and
    format from settings), so the two never disagree about what is in; like `memdesk
    context`, what the block is about to show is screened by the current guard
    (`request.assemble_screened`): an entry it flags (pulled unscreened, or with a
    clearance that is not of its current words) is left out. `verdicts`: kept verdicts
    (`verdicts.GuardVerdicts`), None to screen in memory.
    """
    from memdesk.core.context.request import assemble_screened

    return assemble_screened(entries, verdicts, settings=settings).memory_md()
