"""The seams: memdesk.core never imports textual or rich (checked two ways), the
import-linter contracts of pyproject.toml hold, and no module reaches into another
module's private (`_name`) functions or attributes."""

from __future__ import annotations

import ast
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


SOURCE_DIRS = ("core", "cli", "tui")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _names_defined(tree: ast.AST) -> set[str]:
    """Every name a file defines: functions, classes, variables, attributes it sets,
    parameters and keyword names."""
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
    return defined


def test_no_module_uses_another_modules_private_names() -> None:
    """`from memdesk.x import _name`, or `thing._name` where `_name` is defined in
    another memdesk file and not in this one (through `self`/`cls` is a class's own)."""
    root = Path(__file__).resolve().parents[1]
    files = [
        path
        for folder in SOURCE_DIRS
        for path in sorted((root / folder).rglob("*.py"))
        if "demo_project" not in path.parts
    ]
    trees = {path: ast.parse(path.read_text("utf-8")) for path in files}
    defined = {path: _names_defined(tree) for path, tree in trees.items()}
    ours = {name for names in defined.values() for name in names if _is_private(name)}
    offenders: list[str] = []
    for path, tree in trees.items():
        where = path.relative_to(root)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("memdesk"):
                offenders += [
                    f"{where}:{node.lineno}: imports {node.module}.{alias.name}"
                    for alias in node.names
                    if _is_private(alias.name)
                ]
            elif (
                isinstance(node, ast.Attribute)
                and node.attr in ours
                and node.attr not in defined[path]
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                offenders.append(f"{where}:{node.lineno}: uses .{node.attr}")
    assert offenders == []


MAX_LINES = 500


def test_no_python_file_is_over_500_lines() -> None:
    """One idea per file: a file past 500 lines holds more than one (tables go to data
    files). Every tracked Python file of the repository, tests and scripts included."""
    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=root, capture_output=True, text=True, timeout=60
    )
    paths = [root / p for p in listed.stdout.splitlines()] if listed.returncode == 0 else []
    if not paths:  # not a git checkout (an unpacked sdist): the source folders
        paths = [
            p
            for d in ("core", "cli", "tui", "tests", "scripts", "bench")
            for p in (root / d).rglob("*.py")
        ]
    long = {
        str(p.relative_to(root)): n
        for p in paths
        if p.is_file() and (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES
    }
    assert len(paths) > 100
    assert long == {}
