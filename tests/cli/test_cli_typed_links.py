"""A file named on the command line inside the project that a link leads out of is not
read (`import`, `extract FILE`, `search --batch`), as `adopt` refuses it; the same file
named by its own path outside is the person's to read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXPORT = [{"summary": "The outside text must not come in through a link", "kind": "project"}]


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("--dir", str(root), "init").returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "export.json").write_text(json.dumps(EXPORT), "utf-8")
    (outside / "session.jsonl").write_text(
        json.dumps({"role": "user", "content": "Remember: the outside session is secret"}) + "\n"
    )
    (outside / "queries.jsonl").write_text(json.dumps({"id": "q", "query": "outside"}) + "\n")
    for name in ("export.json", "session.jsonl", "queries.jsonl"):
        (root / name).symlink_to(outside / name)
    return root


@pytest.mark.parametrize(
    "verb",
    [
        ("import", "export.json"),
        ("extract", "session.jsonl"),
        ("search", "--batch", "queries.jsonl"),
    ],
)
def test_a_name_inside_that_leads_out_is_refused(project: Path, cli, verb: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    *args, name = verb
    done = cli("--dir", str(project), *args, str(project / name))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "outside the working directory" in done.stderr
    listed = cli("--dir", str(project), "list", "--json")
    assert "outside" not in listed.stdout


def test_the_outside_path_itself_is_read(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    outside = project.parent / "outside" / "export.json"
    done = cli("--dir", str(project), "import", str(outside))
    assert done.returncode == 0, done.stderr
    assert "The outside text" in cli("--dir", str(project), "list").stdout
