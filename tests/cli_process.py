"""Running `memdesk` as a user would, in a real process (shared by the test folders:
imported by name, never through `conftest`, which names a different module per folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(
    *args: str, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `memdesk ARGS` as a user would (a real process)."""
    return subprocess.run(
        [sys.executable, "-m", "memdesk.cli", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
