"""The person's own cache folder for memdesk: outside every repository, so what is kept
there (token counters, the key that signs kept guard verdicts) is never carried by a
clone. `MEMDESK_CACHE_DIR` wins, then `$XDG_CACHE_HOME/memdesk`, then `~/.cache/memdesk`."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    configured = os.environ.get("MEMDESK_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memdesk"
