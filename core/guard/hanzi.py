"""Traditional Chinese read as Simplified, so the Chinese patterns are written once.

OpenCC's `tw2sp` conversion maps characters and Taiwan phrasing (使用者 -> 用户,
訊息 -> 信息) to mainland Simplified. Text without Han characters is returned as is,
without calling the converter. Without OpenCC installed the text is returned unchanged
(Simplified Chinese is still screened; Traditional only by the patterns that share
characters), and `have_converter()` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@lru_cache(maxsize=1)
def _converter() -> Callable[[str], str] | None:
    try:
        import opencc  # noqa: PLC0415 - optional, loaded on first Chinese text
    except ImportError:
        return None
    return opencc.OpenCC("tw2sp").convert


def have_converter() -> bool:
    """Whether Traditional Chinese is converted (OpenCC is installed)."""
    return _converter() is not None


def simplified(text: str) -> str:
    """`text` with Traditional Chinese written as Simplified (unchanged without Han)."""
    if text.isascii() or not _HAN.search(text):
        return text
    convert = _converter()
    return convert(text) if convert is not None else text
