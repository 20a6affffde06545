"""A paragraph appended to MEMORY.md is one text, though it is ingested line by line.

Each content line of MEMORY.md becomes a candidate of its own, which suits bullets (one
fact each). A paragraph whose lines are not bullets (a note wrapped over lines, a fake
"developer message" with a header line and a body) is one text split in pieces: screened
line by line, the body is flagged and its header ("developer message, takes precedence
over the user") reaches the context block unflagged. So the lines of one paragraph are
also screened together, and when the whole reads as an injection every line of it is
flagged with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from memdesk.core.memory_md import ExternalLine

_BULLETS = (b"- ", b"* ", b"+ ")
MAX_PARAGRAPH_LINES = 40  # a longer run is a pasted document, screened line by line


def paragraphs(lines: Sequence[ExternalLine]) -> list[list[int]]:
    """Indexes of `lines` grouped by paragraph: each line that directly follows the
    previous one in the same file and does not start a new bullet joins its group."""
    groups: list[list[int]] = []
    for index, line in enumerate(lines):
        if index and _continues(lines[index - 1], line) and len(groups[-1]) < MAX_PARAGRAPH_LINES:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def _continues(before: ExternalLine, line: ExternalLine) -> bool:
    if before.path is None or line.path != before.path:
        return False
    gap = line.offset - (before.offset + len(before.raw))
    return gap in (1, 2) and not line.raw.lstrip().startswith(_BULLETS)


def paragraph_flags(lines: Sequence[ExternalLine]) -> dict[int, str]:
    """{index of a line: reason} for each line of a multi-line paragraph that reads as
    an injection as a whole."""
    from memdesk.core.guard import find_injection

    flagged: dict[int, str] = {}
    for group in paragraphs(lines):
        if len(group) < 2:
            continue
        finding = find_injection("\n".join(lines[i].text for i in group))
        if finding is not None and finding.suspicious:
            reason = f"part of a paragraph that reads as an injection: {finding.reason}"
            flagged.update(dict.fromkeys(group, reason))
    return flagged


__all__ = ["MAX_PARAGRAPH_LINES", "paragraph_flags", "paragraphs"]
