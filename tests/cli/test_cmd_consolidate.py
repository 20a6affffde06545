"""`memdesk consolidate` as a user runs it, on the demo project."""

from __future__ import annotations

import datetime as dt
import json

from memdesk.core.demo import DEMO_TODAY
from memdesk.core.store import Store


def test_dry_run_lists_sensible_proposals(cli, demo_dir):
    done = cli("--dir", str(demo_dir), "consolidate", "--dry-run")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "heuristic: no extractor configured" in out
    # the Golden Week notice; the demo's dates move with today, as `memdesk demo` does
    passed = dt.date(2026, 10, 8) + (dt.date.today() - DEMO_TODAY)
    assert f"valid until {passed.isoformat()} has passed" in out
    assert "newer cand-002 supersedes older lan-010" in out  # npm replaces pnpm
    assert "merge     lan-003 cand-003" in out  # the nextest rule said twice
    assert "low confidence" in out
    # the demo transcript's new rules are proposed as additions, linked to what is known
    assert "add       " in out and "from session 5b7c1e02-demo-lantern-build" in out


def test_dry_run_json_is_a_list_of_proposals(cli, demo_dir):
    before = {e.id: e.version for e in Store.open(demo_dir).entries()}
    done = cli("--dir", str(demo_dir), "consolidate", "--dry-run", "--json")
    assert done.returncode == 0, done.stderr
    proposals = json.loads(done.stdout)
    assert isinstance(proposals, list) and proposals
    for p in proposals:
        assert p["action"] in ("add", "merge", "supersede", "expire", "delete")
        assert p["entry_ids"] and p["reason"] and p["evidence"]
    actions = {(p["action"], tuple(p["entry_ids"])) for p in proposals}
    assert ("supersede", ("lan-010", "cand-002")) in actions
    assert ("expire", ("cand-013",)) in actions
    assert {e.id: e.version for e in Store.open(demo_dir).entries()} == before


def test_apply_only_some_then_undo(cli, demo_dir):
    proposals = json.loads(cli("--dir", str(demo_dir), "consolidate", "--dry-run", "--json").stdout)
    supersede = next(p for p in proposals if p["action"] == "supersede")
    done = cli("--dir", str(demo_dir), "consolidate", "--apply", "--only", supersede["id"])
    assert done.returncode == 0, done.stderr
    assert "applied 1 of" in done.stdout and "1 superseded" in done.stdout
    store = Store.open(demo_dir)
    assert store.get("lan-010").status == "superseded"
    assert store.get("cand-013").status == "candidate"  # not accepted: untouched
    metrics = json.loads(cli("--dir", str(demo_dir), "consolidate", "--metrics", "--json").stdout)
    assert metrics["runs"] == 1 and metrics["totals"]["superseded"] == 1
    assert cli("--dir", str(demo_dir), "undo").returncode == 0
    assert Store.open(demo_dir).get("lan-010").status == "confirmed"


def test_check_and_explicit_message(cli, demo_dir):
    done = cli("--dir", str(demo_dir), "consolidate", "--check", "--json", "--message", "保存进度")
    data = json.loads(done.stdout)
    assert data["due"] and any(r.startswith("explicit") for r in data["reasons"])


def test_user_errors(cli, demo_dir):
    bad = cli("--dir", str(demo_dir), "consolidate", "--apply", "--only", "p-nothing")
    assert bad.returncode == 1 and "no proposal with id 'p-nothing'" in bad.stderr
    assert cli("--dir", str(demo_dir), "consolidate", "--only", "x").returncode == 1
    settings = demo_dir / ".memdesk" / "settings.toml"
    settings.write_text(settings.read_text() + "\n[consolidation]\nretention_days = 0\n")
    bad = cli("--dir", str(demo_dir), "consolidate", "--dry-run")
    assert bad.returncode == 1 and "consolidation.retention_days" in bad.stderr


def test_auto_apply_safe_applies_only_date_expiry(cli, demo_dir):
    settings = demo_dir / ".memdesk" / "settings.toml"
    settings.write_text(settings.read_text() + "\n[consolidation]\nauto_apply_safe = true\n")
    done = cli("--dir", str(demo_dir), "consolidate")
    assert done.returncode == 0, done.stderr
    assert "applied 2 of" in done.stdout and "2 expired" in done.stdout
    store = Store.open(demo_dir)
    assert store.get("cand-013").status == "expired" and store.get("lan-010").status == "confirmed"
    dry = cli("--dir", str(demo_dir), "consolidate", "--dry-run")
    assert "cand-013" not in dry.stdout


def test_apply_if_due_for_hooks(cli, demo_dir):
    first = cli("--dir", str(demo_dir), "consolidate", "--apply", "--if-due", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["applied"]  # never consolidated: due, applied
    again = cli("--dir", str(demo_dir), "consolidate", "--apply", "--if-due", "--json")
    assert json.loads(again.stdout) == {"due": False, "applied": []}
    check = json.loads(cli("--dir", str(demo_dir), "consolidate", "--check", "--json").stdout)
    assert check["due"] is False and check["hours_since"] < 1
