"""Gather from transcripts: extraction heuristics, a plug-in command, its failure.

These need the extraction package (`memdesk.core.extract`); without it gather works
from the candidate queue (see test_consolidate_phases) and these are skipped.
"""

from __future__ import annotations

import json
import sys

import pytest
from memdesk.core.consolidate import SessionMemoryCache, apply, build_plan
from memdesk.core.store import Store
from memdesk.core.trust import allow, requests

pytest.importorskip("memdesk.core.extract.run")

MESSAGES = [
    {
        "session_id": "s-1",
        "role": "user",
        "content": "帮我看看 sitemap 的斜杠问题",
        "timestamp": "2026-11-20T09:00:00+00:00",
    },
    {
        "session_id": "s-1",
        "role": "user",
        "content": "记住：base_url 必须以 / 结尾，拼接的时候要先 trim",
        "timestamp": "2026-11-20T09:05:00+00:00",
    },
    {
        "session_id": "s-2",
        "role": "user",
        "content": "Remember: always run cargo insta review after template changes",
        "timestamp": "2026-11-21T10:00:00+00:00",
    },
]


def project(tmp_path, extra_settings: str = "") -> Store:
    store = Store.init(tmp_path)
    (tmp_path / "transcripts").mkdir()
    (tmp_path / "transcripts" / "a.jsonl").write_text(
        "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in MESSAGES)
    )
    settings = store.settings_path
    settings.write_text(
        settings.read_text()
        + '\n[sources]\ntranscripts = ["transcripts/*.jsonl"]\n'
        + extra_settings
    )
    allow(tmp_path, requests(store.settings, tmp_path))  # the person allowed the command
    return Store.open(tmp_path)


def test_heuristics_on_transcripts_propose_additions(tmp_path):
    store = project(tmp_path)
    plan = build_plan(store)
    assert "heuristic: no extractor configured" in plan.notes
    adds = [p for p in plan.proposals if p.action == "add"]
    assert adds and all(p.entry.status == "candidate" for p in adds)
    assert {p.entry.source.session_id for p in adds} <= {"s-1", "s-2"}
    assert any("base_url" in p.entry.summary for p in adds)
    assert {s.session_id for s in plan.sessions} == {"s-1", "s-2"}
    assert plan.orientation["sessions"]
    # the same plan twice names its additions the same way (ids are fresh, text is not)
    assert {p.id for p in adds} == {p.id for p in build_plan(store).proposals if p.action == "add"}
    result = apply(store, plan)
    assert result.metrics.added == len(adds)
    from memdesk.core.consolidate import load_state

    assert sorted(load_state(store.meta_dir).sessions_seen) == ["s-1", "s-2"]
    cached = SessionMemoryCache(store.meta_dir).all_sessions()
    assert {s.session_id for s in cached} == {"s-1", "s-2"}
    assert cached[0].user_input.startswith("帮我看看")
    # applied: the next plan proposes nothing new from the same (now old) messages
    assert not [p for p in build_plan(Store.open(tmp_path)).proposals if p.action == "add"]


def test_plugin_command_answers_candidates(tmp_path):
    script = tmp_path / "extract.py"
    script.write_text(
        "import json, sys\n"
        "msgs = json.load(sys.stdin)\n"
        "print(json.dumps([{'summary': 'Sitemap joins need a trimmed base_url', 'kind': 'experience',"
        " 'source': {'session_id': msgs[0]['session_id']}}]))\n"
    )
    store = project(tmp_path, f'[extractor]\ncommand = ["{sys.executable}", "{script}"]\n')
    plan = build_plan(store)
    assert any(n.startswith("extractor: ") for n in plan.notes)
    adds = [p for p in plan.proposals if p.action == "add"]
    assert [p.entry.summary for p in adds] == ["Sitemap joins need a trimmed base_url"]


def test_failing_plugin_falls_back_to_heuristics(tmp_path):
    store = project(
        tmp_path, f'[extractor]\ncommand = ["{sys.executable}", "-c", "import sys; sys.exit(3)"]\n'
    )
    plan = build_plan(store)
    assert any(n.startswith("heuristic: extractor") and "failed" in n for n in plan.notes)
    assert any(p.action == "add" for p in plan.proposals)


def test_additions_link_to_what_is_already_known(tmp_path):
    from consolidate_helpers import put

    store = project(tmp_path)
    put(store, "known", "配置文件是项目根目录的 lantern.toml，base_url 必须以 / 结尾")
    put(store, "other", "The preview server listens on port 4317")
    plan = build_plan(Store.open(tmp_path))
    add = next(p for p in plan.proposals if p.action == "add" and "base_url" in p.entry.summary)
    assert add.entry.related == ["known"]
    assert "see related known" in add.reason
    assert any(line.startswith("related known") for line in add.evidence)


def test_plugin_topics_lead_orient_and_a_topics_only_answer_is_fine(tmp_path):
    script = tmp_path / "extract.py"
    script.write_text(
        "import json, sys\n"
        "json.load(sys.stdin)\n"
        "print(json.dumps({'topics': ['站点地图 sitemap', 'base_url'],"
        " 'candidates': [{'summary': 'Sitemap joins need a trimmed base_url'}]}))\n"
    )
    store = project(tmp_path, f'[extractor]\ncommand = ["{sys.executable}", "{script}"]\n')
    plan = build_plan(store)
    assert plan.orientation["topics"][:2] == ["站点地图 sitemap", "base_url"]
    assert plan.orientation["topics_from"] == "extractor"
    assert [p.entry.summary for p in plan.proposals if p.action == "add"] == [
        "Sitemap joins need a trimmed base_url"
    ]
    script.write_text(
        "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'topics': ['部署']}))\n"
    )
    # The script the allowed command runs changed: it is not run until allowed again.
    plan = build_plan(Store.open(tmp_path))
    assert plan.orientation["topics_from"] == "heuristic"
    assert any("not allowed on this machine" in n for n in plan.notes)
    store = Store.open(tmp_path)
    allow(tmp_path, requests(store.settings, tmp_path))
    plan = build_plan(Store.open(tmp_path))
    assert plan.orientation["topics"][0] == "部署"
    assert not [p for p in plan.proposals if p.action == "add"]
    assert any(n.startswith("extractor: ") for n in plan.notes)


def test_plugin_topics_of_the_wrong_shape_fall_back_to_heuristics(tmp_path):
    script = tmp_path / "extract.py"
    script.write_text(
        "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'topics': 'x', 'candidates': []}))\n"
    )
    store = project(tmp_path, f'[extractor]\ncommand = ["{sys.executable}", "{script}"]\n')
    plan = build_plan(store)
    assert plan.orientation["topics_from"] == "heuristic"
    assert any("'topics' must be a list of text" in n for n in plan.notes)


def test_the_session_cache_keeps_no_secret_of_the_first_message(tmp_path):
    store = Store.init(tmp_path)
    (tmp_path / "transcripts").mkdir()
    first = "the staging database password is hunter2x! " + "x" * 130 + " token ghp_" + "A1" * 18
    (tmp_path / "transcripts" / "a.jsonl").write_text(
        json.dumps({"role": "user", "content": first, "session_id": "s-9"}) + "\n"
    )
    store.settings_path.write_text(
        store.settings_path.read_text() + '\n[sources]\ntranscripts = ["transcripts/*.jsonl"]\n'
    )
    apply(Store.open(tmp_path), build_plan(Store.open(tmp_path)))
    cache = (tmp_path / ".memdesk" / "session_cache.jsonl").read_text()
    assert "hunter2x" not in cache and "ghp_A1A1" not in cache


def test_unticked_additions_come_back_in_the_next_plan(tmp_path):
    # Applying part of a plan moves the "since" mark past the messages its additions
    # came from; the additions a person left unticked are kept for the next plan.
    store = project(tmp_path)
    plan = build_plan(store)
    adds = [p for p in plan.proposals if p.action == "add"]
    assert len(adds) >= 2
    taken, left = adds[0], adds[1:]
    apply(store, plan, [taken.id])
    again = build_plan(Store.open(tmp_path))
    texts = {p.entry.summary for p in again.proposals if p.action == "add"}
    assert texts == {p.entry.summary for p in left}
    apply(Store.open(tmp_path), again)  # all taken now: nothing left over
    final = build_plan(Store.open(tmp_path))
    assert not [p for p in final.proposals if p.action == "add"]
