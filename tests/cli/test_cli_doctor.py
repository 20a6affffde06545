"""`memdesk doctor`: exit 0 when nothing is risky, 1 with one line per finding."""

from __future__ import annotations

import json
from pathlib import Path


def test_doctor_reports_and_exits_non_zero_when_risky(tmp_path: Path, cli) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("--dir", str(root), "init").returncode == 0
    clean = cli("--dir", str(root), "doctor")
    assert clean.returncode == 0 and "nothing risky found" in clean.stdout

    (root / ".memdesk/inbox/passwd").symlink_to("/etc/passwd")
    settings = root / ".memdesk/settings.toml"
    settings.write_text(settings.read_text() + '\n[extractor]\ncommand = "my-llm --json"\n')
    risky = cli("--dir", str(root), "doctor")
    assert risky.returncode == 1 and "Traceback" not in risky.stderr
    lines = risky.stdout.splitlines()
    assert any(".memdesk/inbox/passwd: is a symbolic link to /etc/passwd" in x for x in lines)
    assert any("extractor.command = my-llm --json" in x and "trust" in x for x in lines)
    data = json.loads(cli("--dir", str(root), "doctor", "--json").stdout)
    assert data["risky"] is True
    assert {f["kind"] for f in data["findings"]} == {"symlink", "untrusted"}

    assert cli("--dir", str(root), "trust").returncode == 0
    (root / ".memdesk/inbox/passwd").unlink()
    assert cli("--dir", str(root), "doctor").returncode == 0


def test_doctor_on_a_store_that_does_not_open(tmp_path: Path, cli) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("--dir", str(root), "init").returncode == 0
    (root / ".memdesk/lock").unlink(missing_ok=True)
    (root / ".memdesk/lock").symlink_to(tmp_path / "lockfile")
    done = cli("--dir", str(root), "doctor")
    assert done.returncode == 1 and ".memdesk/lock: is a symbolic link to" in done.stdout
    assert not (tmp_path / "lockfile").exists()
