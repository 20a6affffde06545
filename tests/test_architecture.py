"""The core/UI split: memdesk.core never imports textual or rich (checked two ways)."""

from __future__ import annotations

import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import memdesk.core

CORE_DIR = Path(memdesk.core.__file__).parent
UI_IMPORT = re.compile(r"^\s*(?:from|import)\s+(textual|rich)\b", re.M)


def core_modules() -> list[str]:
    return sorted(
        m.name for m in pkgutil.walk_packages(memdesk.core.__path__, prefix="memdesk.core.")
    )


def test_importing_all_of_core_loads_no_ui_library() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for name in {core_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    assert len(core_modules()) > 10


def test_no_core_source_file_mentions_a_ui_import() -> None:
    offenders = [
        str(path.relative_to(CORE_DIR))
        for path in CORE_DIR.rglob("*.py")
        if UI_IMPORT.search(path.read_text("utf-8"))
    ]
    assert offenders == []


def test_import_contracts_in_pyproject_hold() -> None:
    """The import-linter contracts of pyproject.toml, run as CI runs them."""
    from importlinter.cli import lint_imports

    root = Path(__file__).resolve().parents[1]
    code = lint_imports(config_filename=str(root / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, "an import contract in pyproject.toml is broken (run lint-imports)"
