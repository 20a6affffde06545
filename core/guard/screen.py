"""`screen(entry)`: the do-not-write guard applied to one entry before it reaches disk.

In order:
1. Refused outright: recalled `<agent_memory>` blocks (never re-store injected memory),
   whole tool outputs, chit-chat without a conclusion, model guesses and drafts.
2. Secrets are replaced by `[REDACTED:<kind>]` in every text field (summary, facts, tags,
   section, flags and every source field, the excerpt included); personal home paths
   become `~/`. An entry with nothing useful left once its secrets are gone (a `.env`
   dump, a bare key) is refused.
3. Text that tries to instruct the agent, in any field (source fields included: a
   locator or a command is shown next to the fact in a context block), is kept but
   flagged: `flags["suspicious"] = reason` keeps it out of every context block,
   `flags["review"] = reason` only asks the reviewer to look.

A flag goes away only through a person's explicit clear (`Store.clear_flag`): the store
then records `flags[CLEARED_FLAG]`, a fingerprint of the text the person looked at, and
passes it back as `cleared=`. Any later change to that text brings the flag back; a
fingerprint arriving with the entry itself (an import, an agent's write) is dropped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from memdesk.core.entry import Entry
from memdesk.core.guard.injection import Finding, find_injection
from memdesk.core.guard.injection_rules import REVIEW, SUSPICIOUS
from memdesk.core.guard.refusals import (
    is_chitchat,
    is_guess_or_draft,
    is_recalled_block,
    looks_like_tool_output,
    nothing_useful_left,
)
from memdesk.core.guard.secrets import redact_text, secret_kinds, shorten_home_paths

CLEARED_FLAG = "cleared"
FLAG_NAMES: tuple[str, ...] = (SUSPICIOUS, REVIEW)


@dataclass
class Verdict:
    """What the guard decided. `entry is None` means refused: nothing may be written."""

    entry: Entry | None
    reasons: list[str] = field(default_factory=list)
    redactions: int = 0

    @property
    def refused(self) -> bool:
        return self.entry is None


def checked_texts(entry: Entry) -> list[str]:
    """Every field an agent would read next to the fact: what injection detection sees."""
    src = entry.source
    return [
        entry.summary,
        *entry.facts,
        *entry.tags,
        *entry.section,
        *src.files,
        *src.commands,
        src.locator,
        src.session_id,
        src.origin,
    ]


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def secrets_in(entry: Entry) -> list[tuple[str, str]]:
    """(field, kind) of every secret an entry on disk holds: what a health check reports
    for entries written before the guard knew a kind, or by hand."""
    src = entry.source
    fields: list[tuple[str, str]] = [
        ("summary", entry.summary),
        *(("facts", f) for f in entry.facts),
        *(("tags", t) for t in entry.tags),
        *(("section", s) for s in entry.section),
        *(("flags", v) for v in entry.flags.values()),
        ("source.excerpt", src.excerpt),
        *(("source.files", f) for f in src.files),
        *(("source.commands", c) for c in src.commands),
        ("source.locator", src.locator),
        ("source.session_id", src.session_id),
    ]
    return [(name, kind) for name, text in fields if text for kind in secret_kinds(text)]


def fingerprint(entry: Entry) -> str:
    """Identifies the flagged texts a person cleared (short hashes, comma-separated):
    a clearance covers exactly those words, so any new or changed text that looks like
    an injection is flagged again, while other edits (a tag, a status) keep it."""
    flagged = {_short_hash(t) for t in checked_texts(entry) if t and find_injection(t)}
    return ",".join(sorted(flagged))


def _covered(entry: Entry, cleared: str) -> bool:
    return bool(cleared) and set(fingerprint(entry).split(",")) <= set(cleared.split(","))


def injection_in(entry: Entry) -> Finding | None:
    """The strongest injection finding over every checked field."""
    weaker: Finding | None = None
    for text in checked_texts(entry):
        finding = find_injection(text)
        if finding is None:
            continue
        if finding.suspicious:
            return finding
        weaker = weaker or finding
    return weaker


def _clean(text: str) -> tuple[str, int, int]:
    text, secrets = redact_text(text)
    text, homes = shorten_home_paths(text)
    return text, secrets, homes


def screen(entry: Entry, *, cleared: str = "") -> Verdict:
    """Screen one entry; never mutates the argument. See the module docstring.

    `cleared`: the fingerprint a person cleared on this entry (from the store only)."""
    summary = entry.summary
    for text in (summary, *entry.facts):
        if is_recalled_block(text):
            return Verdict(
                None, ["recalled <agent_memory> block: injected memory is never re-stored"]
            )
    if is_chitchat(summary):
        return Verdict(None, ["chit-chat without a conclusion"])
    if looks_like_tool_output(summary):
        return Verdict(None, ["whole tool output: keep the conclusion, not the output"])
    if is_guess_or_draft(summary):
        return Verdict(None, ["model guess or draft: only confirmed facts are written"])

    reasons: list[str] = []
    redactions = 0
    homes = 0
    clean = entry.copy()

    def fix(text: str) -> str:
        nonlocal redactions, homes
        new, n_secret, n_home = _clean(text)
        redactions += n_secret
        homes += n_home
        return new

    clean.summary, summary_secrets, summary_homes = _clean(summary)
    redactions += summary_secrets
    homes += summary_homes
    left = nothing_useful_left(clean.summary, summary_secrets)
    if left:
        return Verdict(None, [left], redactions)
    clean.facts = []
    for fact in entry.facts:
        new_fact, n_secret, n_home = _clean(fact)
        redactions += n_secret
        homes += n_home
        if not nothing_useful_left(new_fact, n_secret):
            clean.facts.append(new_fact)
    clean.tags = [fix(t) for t in entry.tags]
    clean.section = [fix(s) for s in entry.section]
    src = clean.source
    src.excerpt = fix(src.excerpt)
    src.commands = [fix(c) for c in src.commands]
    src.files = [fix(f) for f in src.files]
    src.locator = fix(src.locator)
    src.session_id = fix(src.session_id)
    src.origin = fix(src.origin)
    src.timestamp = fix(src.timestamp)
    clean.flags = {k: fix(v) for k, v in entry.flags.items() if k != CLEARED_FLAG}
    if redactions:
        reasons.append(f"redacted {redactions} secret(s)")
    if homes:
        reasons.append("shortened personal home path(s) to ~")

    # Detection reads the text as written (a redaction must not hide an attack), and
    # also as it will be stored when that differs: the stored text is what every later
    # screen (approve, context, render) reads, and a flag it would raise there must show
    # in the queue now, not appear silently at approval.
    finding = injection_in(entry)
    if redactions and (finding is None or not finding.suspicious):
        stored = injection_in(clean)
        if stored is not None and (finding is None or stored.suspicious):
            finding = stored
    if finding is not None:
        if _covered(entry, cleared):
            clean.flags[CLEARED_FLAG] = cleared
        else:
            clean.flags.setdefault(finding.severity, finding.reason)
            reasons.append(f"{finding.severity}: {finding.reason}")
    return Verdict(clean, reasons, redactions)
