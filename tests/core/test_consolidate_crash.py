"""Kill -9 in the middle of applying a big plan: the store is exactly before or after.

A child process builds the plan of a generated store and applies it in one batch; the
parent kills it at random moments (some while the batch's entry files are being
written) and then opens the store, which must hold either the state before the plan or
the state after it, never a mix. `updated` time stamps are left out of the comparison
(they record when a write happened, so two runs differ in them by design).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memdesk.core.consolidate.synthetic import generate_store
from memdesk.core.store import Store

CHILD = r"""
import sys, time
from memdesk.core.store import Store
from memdesk.core.consolidate import build_plan, apply

store = Store.open(sys.argv[1])
plan = build_plan(store)
real_commit = store.commit

def announced_commit(*args, **kwargs):
    print("commit", time.monotonic(), flush=True)
    return real_commit(*args, **kwargs)

store.commit = announced_commit
print("ready", len(plan.proposals), flush=True)
apply(store, plan)
print("done", time.monotonic(), flush=True)
"""


def snapshot(root: Path) -> dict[str, dict]:
    store = Store.open(root)
    return {e.id: {k: v for k, v in e.to_json().items() if k != "updated"} for e in store.entries()}


def start(script: Path, root: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(script), str(root)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


@pytest.mark.slow
def test_sigkill_mid_apply_leaves_before_or_after(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    generate_store(base, total=400, per_class=25, seed=5)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    before = snapshot(base)

    full = tmp_path / "full"
    shutil.copytree(base, full)
    child = start(script, full)
    lines = [line.split() for line in child.stdout]  # type: ignore[union-attr]
    assert child.wait() == 0
    commit_at = next(float(w[1]) for w in lines if w[0] == "commit")
    done_at = next(float(w[1]) for w in lines if w[0] == "done")
    commit_span = max(done_at - commit_at, 0.01)
    after = snapshot(full)
    assert after != before and int(lines[0][1]) > 150

    rng = random.Random(2026)
    outcomes: list[str] = []
    mid_commit = 0
    for attempt in range(5):
        root = tmp_path / f"kill{attempt}"
        shutil.copytree(base, root)
        child = start(script, root)
        first = child.stdout.readline().split()  # type: ignore[union-attr]
        assert first[0] == "ready"
        if attempt % 3 != 2:  # most kills land inside the commit (files being written)
            assert child.stdout.readline().split()[0] == "commit"  # type: ignore[union-attr]
            time.sleep(rng.uniform(0, commit_span * 0.9))
        else:  # others while the plan is being staged in memory
            time.sleep(rng.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait()
        if (root / ".memdesk" / "pending-batch.json").exists():
            mid_commit += 1
        state = snapshot(root)  # Store.open rolls an interrupted batch back
        assert state in (before, after), f"kill {attempt}: a mix of before and after"
        assert not (root / ".memdesk" / "pending-batch.json").exists()
        outcomes.append("before" if state == before else "after")
    assert mid_commit >= 1, "no kill landed while the batch was being written"
    assert "before" in outcomes
    print("outcomes", outcomes, "killed mid-commit", mid_commit)
