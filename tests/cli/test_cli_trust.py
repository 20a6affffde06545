"""`memdesk trust`: allow, list and revoke what the settings ask to run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCRIPT = "import json, pathlib, sys; pathlib.Path(sys.argv[1]).write_text('ran'); print('[]')"


def test_trust_allows_lists_and_revokes(tmp_path: Path, cli, trust_file: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert cli("--dir", str(root), "init").returncode == 0
    mark = tmp_path / "ran.txt"
    settings = root / ".memdesk/settings.toml"
    command = json.dumps([sys.executable, "-c", SCRIPT, str(mark)])
    settings.write_text(settings.read_text() + f"\n[extractor]\ncommand = {command}\n", "utf-8")
    transcript = root / "t.jsonl"
    transcript.write_text(
        json.dumps({"role": "user", "content": "remember: ports start at 8000"}) + "\n"
    )

    extracted = cli("--dir", str(root), "extract", str(transcript))
    assert extracted.returncode == 0 and not mark.exists()
    assert "is not allowed on this machine" in extracted.stderr
    assert "trust" in extracted.stderr and "Traceback" not in extracted.stderr
    assert "ports start at 8000" in extracted.stdout  # the built-in extractor ran

    allowed = cli("--dir", str(root), "trust")
    assert allowed.returncode == 0 and "allowed: extractor.command" in allowed.stdout
    listed = cli("--dir", str(root), "trust", "--list", "--json")
    [record] = json.loads(listed.stdout)["allow"]
    assert record["dir"] == str(root.resolve()) and record["allowed"][0].startswith("sha256:")
    assert trust_file.is_file()

    transcript.write_text(
        json.dumps({"role": "user", "content": "remember: logs go to stderr"}) + "\n"
    )
    assert cli("--dir", str(root), "extract", str(transcript)).returncode == 0
    assert mark.read_text() == "ran"

    revoked = cli("--dir", str(root), "trust", "--revoke")
    assert revoked.returncode == 0 and "revoked" in revoked.stdout
    assert "nothing allowed" in cli("--dir", str(root), "trust", "--list").stdout
