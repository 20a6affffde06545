"""Side-by-side differences between two texts, word-wise for English, char-wise for Chinese.

A diff by whole words does nothing useful for Chinese (a sentence is one "word"), and a
diff by characters is noisy for English. So the texts are cut into tokens first: one
token per CJK character, one per run of other letters/digits, one per whitespace run,
one per other symbol; then difflib aligns the token lists. Each side comes back as
spans marked equal or changed, ready to be coloured by a UI.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
    "\U00020000-\U0002ffff\u3000-\u303f\uff00-\uffef"  # + CJK punctuation, full-width forms
)
_TOKEN = re.compile(f"[{_CJK}]|(?:(?![{_CJK}])[^\\W_])+|\\s+|.", re.DOTALL)


@dataclass(frozen=True)
class Span:
    text: str
    changed: bool  # True: this side differs here (deleted, inserted or replaced)


def diff_tokens(text: str) -> list[str]:
    """Tokens that concatenate back to `text` exactly."""
    return _TOKEN.findall(text)


def side_by_side(left: str, right: str) -> tuple[list[Span], list[Span]]:
    """Spans of `left` and of `right`, each marked changed where the other side differs."""
    a, b = diff_tokens(left), diff_tokens(right)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out_a: list[Span] = []
    out_b: list[Span] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        changed = op != "equal"
        _append(out_a, "".join(a[i1:i2]), changed)
        _append(out_b, "".join(b[j1:j2]), changed)
    return out_a, out_b


def _append(spans: list[Span], text: str, changed: bool) -> None:
    if not text:
        return
    if spans and spans[-1].changed == changed:
        spans[-1] = Span(spans[-1].text + text, changed)
    else:
        spans.append(Span(text, changed))


def value_text(value: Any) -> str:
    """A field value as readable text: lists one item a line, tables `key: value`."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(f"- {value_text(v)}" for v in value)
    if isinstance(value, dict):
        return "\n".join(
            f"{k}: {value_text(v) if not isinstance(v, list) else json.dumps(v, ensure_ascii=False)}"
            for k, v in value.items()
            if v not in (None, "", [], {})
        )
    return str(value)


def similarity(left: str, right: str) -> float:
    """0..1 share of tokens the two texts have in common, in order."""
    a, b = diff_tokens(left), diff_tokens(right)
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
