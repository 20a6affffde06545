"""The do-not-write guard (seed 004's "不写入" list), applied to every write.

`screen(entry)` cleans or refuses one entry (see `screen.py`); `redact_text` and
`redact_data` remove secrets from text and JSON-like data; `detect_injection` and
`find_injection` say whether text tries to instruct the agent; `redact_across` and
`multiline_secret_lines` catch secrets split between two messages or many lines.
Everything is regular expressions compiled once at import, plus the meaning stage of
injection detection (an embedding model loaded once per process when first needed,
`meaning.py`): the Store calls this on every write, so it must be fast and give the same
answer for the same input.
"""

from memdesk.core.guard.injection import Finding, detect_injection, find_injection
from memdesk.core.guard.injection_rules import REVIEW, SUSPICIOUS
from memdesk.core.guard.meaning import MeaningStatus, meaning_status
from memdesk.core.guard.neighbours import (
    multiline_secret_lines,
    redact_across,
    redact_across_messages,
)
from memdesk.core.guard.normalise import plain_text, variants
from memdesk.core.guard.refusals import (
    is_chitchat,
    is_guess_or_draft,
    is_recalled_block,
    looks_like_tool_output,
)
from memdesk.core.guard.screen import (
    CLEARED_FLAG,
    FLAG_NAMES,
    Verdict,
    checked_texts,
    fingerprint,
    injection_in,
    prepare_screening,
    screen,
    secrets_in,
)
from memdesk.core.guard.secrets import (
    REDACTED_PREFIX,
    redact_data,
    redact_text,
    secret_kinds,
    shorten_home_paths,
)

__all__ = [
    "CLEARED_FLAG",
    "FLAG_NAMES",
    "REDACTED_PREFIX",
    "REVIEW",
    "SUSPICIOUS",
    "Finding",
    "MeaningStatus",
    "Verdict",
    "checked_texts",
    "detect_injection",
    "find_injection",
    "fingerprint",
    "injection_in",
    "is_chitchat",
    "is_guess_or_draft",
    "is_recalled_block",
    "looks_like_tool_output",
    "meaning_status",
    "multiline_secret_lines",
    "plain_text",
    "prepare_screening",
    "redact_across",
    "redact_across_messages",
    "redact_data",
    "redact_text",
    "screen",
    "secret_kinds",
    "secrets_in",
    "shorten_home_paths",
    "variants",
]
