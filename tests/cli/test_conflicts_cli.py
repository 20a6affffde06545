"""`memdesk conflicts` and `memdesk resolve` on the demo project."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path


def test_list_then_resolve_each_kind(demo_dir: Path, cli) -> None:
    out = cli("--dir", str(demo_dir), "conflicts", "--json")
    assert out.returncode == 0, out.stderr
    kinds = [c["kind"] for c in json.loads(out.stdout)["conflicts"]]
    assert kinds == ["conflict-markers", "contradiction", "near-duplicate"]

    out = cli("--dir", str(demo_dir), "resolve", "lan-033", "--take", "ours")
    assert out.returncode == 0, out.stderr
    data = tomllib.loads((demo_dir / ".memdesk/entries/lan-033.toml").read_text("utf-8"))
    assert data["summary"].startswith("Drafts (draft = true in front matter)")

    out = cli("--dir", str(demo_dir), "resolve", "lan-010", "--keep", "cand-002")
    assert out.returncode == 0, out.stderr
    out = cli("--dir", str(demo_dir), "resolve", "pair:cand-003:lan-003", "--dismiss")
    assert out.returncode == 0, out.stderr
    out = cli("--dir", str(demo_dir), "conflicts")
    assert out.stdout.strip() == "no open conflicts"


def test_resolve_errors_are_one_line(demo_dir: Path, cli) -> None:
    out = cli("--dir", str(demo_dir), "resolve", "usr-001", "--take", "ours")
    assert out.returncode == 1 and "no open conflict 'usr-001'" in out.stderr
    out = cli("--dir", str(demo_dir), "resolve", "lan-010", "--take", "ours")
    assert out.returncode == 1 and "not a field conflict" in out.stderr
    out = cli("--dir", str(demo_dir), "resolve", "lan-033", "--keep", "lan-033")
    assert out.returncode == 1 and "lan-033" in out.stderr
