"""Held-out injection attempts, approved by a careless reviewer, stay out of
`memdesk context`; the ordinary rules written to look like them stay in."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from memdesk.cli.main import main
from memdesk.core.entry import Entry
from memdesk.core.guard import find_injection
from memdesk.core.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from guard_heldout import HELD_OUT_CORPUS  # noqa: E402


def _context(capsys: pytest.CaptureFixture[str], root: Path) -> str:
    code = main(["--dir", str(root), "context", "--budget", "50000", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["text"]


def _probe(text: str) -> str:
    """The longest line of `text`: what a context block would carry of it."""
    return max(text.splitlines(), key=len).strip()


def test_flagged_attempts_never_reach_a_context_block(tmp_path: Path, capsys) -> None:
    store = Store.init(tmp_path)
    ids = [store.add(Entry(row.text, status="confirmed")).id for row in HELD_OUT_CORPUS]
    store.approve(ids)
    block = _context(capsys, tmp_path)
    for row in HELD_OUT_CORPUS:
        finding = find_injection(row.text)
        flagged = finding is not None and finding.suspicious
        if flagged:
            assert _probe(row.text) not in block, row.text
        if row.label == "attack" and row.split == "dev":
            assert flagged, row.text
        if row.label == "benign":
            assert not flagged, row.text
    # The hard negatives the store kept (none is hidden) reach the block.
    kept = {entry.summary for entry in store.entries() if not entry.suspicious}
    benign = [_probe(r.text) for r in HELD_OUT_CORPUS if r.label == "benign" and r.text in kept]
    assert len(benign) >= 40
    assert [probe for probe in benign if probe not in block] == []
