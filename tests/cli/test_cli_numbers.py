"""A number option given a number past what the code under it holds is refused at the
option, in one line naming it, never "unexpected OverflowError" (round 8, C3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import run_cli

HUGE = "99999999999999999999"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("numbers")
    assert run_cli("--dir", str(root), "init").returncode == 0
    assert run_cli("--dir", str(root), "add", "Use pnpm, not npm").returncode == 0
    return root


@pytest.mark.parametrize(
    "args",
    [
        ["search", "pnpm", "--limit", HUGE],
        ["search", "pnpm", "--limit", "0"],
        ["context", "--budget", HUGE],
        ["flush", "--max", HUGE],
        ["edit", "m-1", "--summary", "x", "--base-version", HUGE],
    ],
    ids=["limit", "limit-0", "budget", "max", "base-version"],
)
def test_a_number_out_of_range_is_refused_at_the_option(project: Path, args: list[str]) -> None:
    done = run_cli("--dir", str(project), *args, stdin="[]")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unexpected" not in done.stderr
    assert f"argument {args[-2]}: must be " in done.stderr


def test_a_batch_limit_out_of_range_names_the_line(project: Path) -> None:
    batch = '{"id": 1, "query": "pnpm", "limit": ' + HUGE + "}\n"
    done = run_cli("--dir", str(project), "search", "--batch", "-", stdin=batch)
    assert done.returncode == 1
    assert done.stderr.strip() == f"memdesk: -:1: limit must be from 1 to 100,000, got {HUGE}"


def test_a_number_in_range_still_works(project: Path) -> None:
    done = run_cli("--dir", str(project), "search", "pnpm", "--limit", "100000")
    assert done.returncode == 0, done.stderr
    assert "pnpm" in done.stdout
