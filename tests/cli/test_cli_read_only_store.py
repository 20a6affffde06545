"""A store this process cannot write (a read-only mount, a shared checkout, CI):
reading verbs work, writing verbs say why in one line, nothing is a traceback.

Tested two ways (the tests run as root, where chmod stops nothing): a real read-only
bind mount in a private mount namespace when the machine allows it, and an audit hook
that fails every write Python makes under the store with EROFS."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from fs_faults import cli_on_read_only_mount, cli_with_failing_writes, read_only_mount_works

READING = [["list"], ["context"], ["search", "pytest"], ["stats"], ["problems"], ["export"]]
WRITING = [["add", "Deploys go through make release"], ["approve", "ID"], ["render"]]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from cli_process import run_cli

    root = tmp_path_factory.mktemp("ro") / "project"
    root.mkdir()
    assert run_cli("--dir", str(root), "init").returncode == 0
    confirmed = run_cli(
        "--dir", str(root), "add", "Run tests with pytest -q", "--status", "confirmed"
    )
    assert confirmed.returncode == 0, confirmed.stderr
    candidate = run_cli("--dir", str(root), "add", "The build uses make and ninja")
    return root, candidate.stdout.strip()


def _mount_runner(project, tmp_path: Path):  # type: ignore[no-untyped-def]
    if not read_only_mount_works(tmp_path):
        pytest.skip("no read-only bind mount here (needs root and unshare)")
    root, _ = project
    return lambda *args: cli_on_read_only_mount(root, tmp_path / "mnt", *args)


def _hook_runner(project, tmp_path: Path):  # type: ignore[no-untyped-def]
    root, _ = project
    return lambda *args: cli_with_failing_writes(root, errno.EROFS, *args)


@pytest.fixture(params=["mount", "audit-hook"])
def read_only_cli(request, project, tmp_path: Path):  # type: ignore[no-untyped-def]
    make = _mount_runner if request.param == "mount" else _hook_runner
    return make(project, tmp_path)


@pytest.mark.parametrize("verb", READING, ids=lambda v: v[0])
def test_reading_verbs_work(read_only_cli, verb: list[str]) -> None:
    result = read_only_cli(*verb)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_list_and_context_show_the_entries(read_only_cli, project) -> None:
    _, candidate = project
    assert candidate in read_only_cli("list").stdout
    assert "Run tests with pytest -q" in read_only_cli("context").stdout
    assert "Run tests with pytest -q" in read_only_cli("search", "pytest").stdout


@pytest.mark.parametrize("verb", WRITING, ids=lambda v: v[0])
def test_writing_verbs_say_why_in_one_line(read_only_cli, project, verb: list[str]) -> None:
    _, candidate = project
    result = read_only_cli(*[candidate if word == "ID" else word for word in verb])
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Read-only file system" in lines[0]
    assert "cannot write" in lines[0] or "cannot be written" in lines[0]


def test_nothing_changed_on_disk(read_only_cli, project) -> None:
    root, candidate = project
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "index" not in p.parts}
    read_only_cli("approve", candidate)
    read_only_cli("list")
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "index" not in p.parts}
    assert before == after


@pytest.fixture(scope="module")
def inbox_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cli_process import run_cli

    root = tmp_path_factory.mktemp("ro-inbox") / "project"
    root.mkdir()
    assert run_cli("--dir", str(root), "init").returncode == 0
    assert run_cli("--dir", str(root), "add", "Use pnpm, not npm").returncode == 0
    (root / ".memdesk" / "inbox" / "a.jsonl").write_text(
        '{"role":"user","content":"Always remember: lint before push."}\n'
    )
    return root


@pytest.fixture(params=["mount", "audit-hook"])
def read_only_inbox_cli(request, inbox_project: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    make = _mount_runner if request.param == "mount" else _hook_runner
    return make((inbox_project, ""), tmp_path)


def test_extract_sources_fails_in_one_line_when_nothing_read_can_be_kept(
    read_only_inbox_cli,
) -> None:  # type: ignore[no-untyped-def]
    # Round 8, R4: it said "added 0 candidate(s)" and exited 0 with an unread message.
    result = read_only_inbox_cli("extract", "--sources")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Read-only file system" in lines[0], result.stderr
    assert "the sources were not read" in lines[0]
    assert "added" not in result.stdout


def test_init_in_a_read_only_store_says_it_is_already_one(read_only_inbox_cli) -> None:  # type: ignore[no-untyped-def]
    result = read_only_inbox_cli("init")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("already initialised: ")
    assert "read-only here" in result.stdout and "Read-only file system" in result.stdout
