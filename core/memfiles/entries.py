"""From a fact block to an entry, and what marks an entry as living in a managed file."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.entry import Entry, Source
from memdesk.core.memfiles.blocks import Block, fact_lines
from memdesk.core.store import MANAGED_ORIGIN


def display_path(path: Path, root: Path) -> str:
    """The path as a person reads it: relative to the working directory, or `~/...`."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        pass
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return path.as_posix()


# Claude Code's topic files say what they hold in a `type:` front-matter line.
TOPIC_KINDS: dict[str, str] = {
    "user": "profile",
    "feedback": "preference",
    "project": "project",
    "reference": "resource",
}


def kind_of(blocks: list[Block]) -> str:
    """The entry kind a file's front matter gives its facts ("project" without one)."""
    if blocks and blocks[0].role == "front-matter":
        for line in blocks[0].lines[1:-1]:
            key, _, value = line.partition(":")
            if key.strip() == "type":
                return TOPIC_KINDS.get(value.strip().strip("'\"").lower(), "project")
    return "project"


def block_entry(
    block: Block,
    where: str,
    *,
    status: str,
    scope: str,
    stamp: str,
    line: int = 0,
    kind: str = "project",
) -> Entry:
    """The entry a fact block becomes: first line the summary, the rest its facts."""
    lines = joined_secrets(fact_lines(block))
    first = line or block.start
    last = first + len(block.lines) - 1
    locator = f"{where}:{first}" if last == first else f"{where}:{first}-{last}"
    return Entry(
        summary=lines[0],
        facts=lines[1:],
        section=list(block.section),
        status=status,
        scope=scope,
        kind=kind,
        source=Source(origin=MANAGED_ORIGIN, timestamp=stamp, locator=locator),
    )


def joined_secrets(lines: list[str]) -> list[str]:
    """`lines` with each run of lines that only together hold a secret (a PEM key block
    under a bullet, `password:` with the value on the next line) redacted as one text:
    the guard screens an entry's facts one by one, where a key's body lines look like
    any other text."""
    from memdesk.core.guard import multiline_secret_lines, redact_text

    hit = multiline_secret_lines(lines)
    if not hit:
        return lines
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i not in hit:
            out.append(lines[i])
            i += 1
            continue
        end = i
        while end in hit:
            end += 1
        redacted = redact_text("\n".join(lines[i:end]))[0]
        out.extend(line for line in redacted.split("\n") if line.strip())
        i = end
    return out or ["[REDACTED:secret]"]


def scope_of(path: Path) -> str:
    """A file in the home folder (the agent's own memory) is about the user's work."""
    try:
        path.relative_to(Path.home() / ".claude")
        return "user"
    except ValueError:
        return "project"
