"""`memdesk edit ID --tag T` from several processes at once: no acknowledged tag lost
(the tags are read and written under the store lock)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.store import Store

TAGGER = """
import sys
from memdesk.cli.main import main
root, entry_id, name = sys.argv[1:4]
for k in range(8):
    assert main(["--dir", root, "edit", entry_id, "--tag", f"{name}-{k}"]) == 0
"""


def test_concurrent_tagging_loses_nothing(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    entry = store.add(Entry(summary="Run the tests with pytest -q"), actor="cli")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", TAGGER, str(tmp_path), entry.id, f"p{n}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for n in range(4)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    tags = set(Store.open(tmp_path).get(entry.id).tags)
    assert tags == {f"p{n}-{k}" for n in range(4) for k in range(8)}
