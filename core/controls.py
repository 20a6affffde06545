"""Terminal control characters in stored text: dropped on the way in, shown on the way out.

An agent's memory line can carry `ESC ] 52 ; ... BEL` (a clipboard write), `ESC [ 8 m`
(concealed text) or a bare carriage return that draws over what came before. A memory
text never needs them: the store drops them from what it writes (`strip_controls`),
and the command line shows any that still reach it (old entries, file names, texts
typed at a verb) as visible symbols (`show_controls`), never as terminal commands.
Tab and newline are text and stay.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, and the C1 controls (U+0080..U+009F: some
# terminals read U+009B as CSI, the same as ESC [).
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    """`text` without terminal control characters (tab and newline stay); a carriage
    return before a newline goes with the rest."""
    if CONTROLS.search(text) is None:
        return text
    return CONTROLS.sub("", text)


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ESC is shown as "␛"
    if code == 0x7F:
        return "\u2421"  # "␡"
    return f"\\u{code:04x}"  # C1 has no pictures; inside a JSON string this is itself


def show_controls(text: str) -> str:
    """`text` with each control character shown as a visible symbol instead."""
    if CONTROLS.search(text) is None:
        return text
    return CONTROLS.sub(_shown, text)
