"""`memdesk context` with `[context] tokenizer` aimed at a file that is no tokenizer, or
outside the project: one line naming the setting, the memory still served (round 8, C4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import run_cli


@pytest.mark.parametrize("value", ["/etc/passwd", "notes.txt"], ids=["outside", "inside"])
def test_context_names_the_setting_and_still_serves_memory(tmp_path: Path, value: str) -> None:
    assert run_cli("--dir", str(tmp_path), "init").returncode == 0
    added = run_cli("--dir", str(tmp_path), "add", "Use pnpm, not npm", "--status", "confirmed")
    assert added.returncode == 0, added.stderr
    (tmp_path / "notes.txt").write_text("not a tokenizer\n")
    settings = tmp_path / ".memdesk" / "settings.toml"
    text = settings.read_text()
    settings.write_text(text.replace("[context]\n", f'[context]\ntokenizer = "{value}"\n', 1))
    done = run_cli("--dir", str(tmp_path), "context")
    assert done.returncode == 0, done.stderr
    assert "Use pnpm" in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "context.tokenizer" in lines[0], done.stderr
    assert "unexpected" not in done.stderr
