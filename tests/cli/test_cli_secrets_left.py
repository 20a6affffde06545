"""An adopted agent file keeps its own secrets: `init`, `adopt` and `doctor` say so.

memdesk stores what it adopts redacted and never rewrites a person's file to take a
secret out, so an agent reading the file itself still sees it (round 9: `init` over a
MEMORY.md with 30 secrets said nothing, and `doctor` found "nothing risky").
"""

from __future__ import annotations

import json
from pathlib import Path

PASSWORD = "Qv7$mTr2Lw9x"
TOKEN = "ghp_RwkQmZxLpVnTbaHqBc8yHd3Jf6Gs1Kq5Wt2E"


def test_init_over_a_memory_md_with_a_secret_warns_and_doctor_names_it(tmp_path: Path, cli) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    memory = root / "MEMORY.md"
    text = f"# Memory\n\n- We deploy with make ship\n- The staging db password is {PASSWORD}\n"
    memory.write_text(text)
    done = cli("--dir", str(root), "init")
    assert done.returncode == 0
    assert "MEMORY.md:4: 1 line(s) hold what looks like a secret (password)" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    assert memory.read_text() == text  # the person's file is kept as it is

    doctor = cli("--dir", str(root), "doctor", "--json")
    assert doctor.returncode == 1 and PASSWORD not in doctor.stdout
    found = [f for f in json.loads(doctor.stdout)["findings"] if f["path"] == "MEMORY.md"]
    assert [(f["kind"], f["line"]) for f in found] == [("secret", 4)]

    memory.write_text("# Memory\n\n- We deploy with make ship\n")
    assert cli("--dir", str(root), "doctor").returncode == 0


def test_adopt_warns_with_the_kind_never_the_value(tmp_path: Path, cli) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("--dir", str(root), "init").returncode == 0
    (root / "CLAUDE.md").write_text(f"# Rules\n\n- Use pnpm\n- ci token: {TOKEN}\n")
    done = cli("--dir", str(root), "adopt", str(root / "CLAUDE.md"))
    assert done.returncode == 0
    assert "CLAUDE.md:4: 1 line(s) hold what looks like a secret (github-token)" in done.stderr
    assert TOKEN not in done.stdout + done.stderr


def test_a_file_without_secrets_gives_no_warning(tmp_path: Path, cli) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- The password field is required\n")
    done = cli("--dir", str(root), "init")
    assert done.returncode == 0 and "secret" not in done.stderr
    assert cli("--dir", str(root), "doctor").returncode == 0
