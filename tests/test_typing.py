"""mypy holds on the library: `[tool.mypy]` of pyproject.toml, run as CI runs it."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_core() -> None:
    from mypy import api

    # An incremental cache per checkout outside the tree: a second run takes seconds.
    tag = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"memdesk-mypy-{tag}"
    config = str(ROOT / "pyproject.toml")
    out, err, status = api.run(["--config-file", config, "--cache-dir", str(cache)])
    assert status == 0, f"mypy found errors (run `mypy` at the repository root):\n{out}{err}"
