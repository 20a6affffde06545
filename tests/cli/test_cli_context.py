"""`memdesk context` on the demo project: JSON shape, budget, explanation, errors."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from memdesk.cli.main import main
from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store


@pytest.fixture()
def demo(tmp_path):
    return copy_demo_project(tmp_path / "demo", today=dt.date.today())


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_object_with_every_decision(demo, capsys):
    code, out, _ = run(capsys, "--dir", str(demo), "context", "--budget", "800", "--json")
    assert code == 0
    data = json.loads(out)
    assert {"text", "tokens", "budget", "unit", "counter", "included", "excluded"} <= set(data)
    assert data["budget"] == 800 and data["unit"] == "tokens"
    assert data["tokens"] <= 800
    assert data["counter"] in ("o200k_base", "estimate-o200k-v1")
    assert data["text"].startswith("<agent_memory")
    ids = [i["id"] for i in data["included"]] + [e["id"] for e in data["excluded"]]
    stored = {e.id for e in Store.open(demo).entries()}
    assert len(ids) == len(set(ids)) and set(ids) == stored
    reasons = {e["reason"] for e in data["excluded"]}
    assert {"superseded", "expired", "status", "suspicious", "budget"} <= reasons
    superseded = [e for e in data["excluded"] if e["reason"] == "superseded"]
    assert all(e["superseded_by"] for e in superseded)


def test_explain_prints_the_block_then_every_left_out_entry(demo, capsys):
    code, out, _ = run(
        capsys, "--dir", str(demo), "context", "--purpose", "coding", "--budget", "800", "--explain"
    )
    assert code == 0
    block, _, explanation = out.partition("</agent_memory>")
    assert block.startswith("<agent_memory")
    assert "Left out:" in explanation
    _, out_json, _ = run(capsys, "--dir", str(demo), "context", "--budget", "800", "--json")
    assert json.loads(out_json)["excluded"]
    for excluded in json.loads(out_json)["excluded"]:
        assert f"- {excluded['id']}: " in explanation


def test_chars_unit_and_markdown_format(demo, capsys):
    code, out, _ = run(
        capsys, "--dir", str(demo), "context", "--unit", "chars", "--budget", "500",
        "--format", "markdown", "--json",
    )  # fmt: skip
    data = json.loads(out)
    assert data["counter"] == "chars" and len(data["text"]) == data["tokens"] <= 500
    assert data["text"].startswith("# Memory (coding)")


def test_query_and_scope(demo, capsys):
    code, out, _ = run(
        capsys, "--dir", str(demo), "context", "--query", "模板引擎 MiniJinja",
        "--scope", "project", "workspace", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["query"] == "模板引擎 MiniJinja" and data["relevance"]
    scoped_out = [e for e in data["excluded"] if e["reason"] == "scope"]
    assert scoped_out and all("not in project, workspace" in e["detail"] for e in scoped_out)
    assert "MiniJinja" in data["text"]


def test_settings_default_budget_applies(demo, capsys):
    # the demo's settings.toml says budget = 1200
    _, out, _ = run(capsys, "--dir", str(demo), "context", "--json")
    assert json.loads(out)["budget"] == 1200


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--purpose", "poetry"], "unknown purpose 'poetry'; allowed: chat, coding"),
        (["--scope", "galaxy"], "unknown scope 'galaxy'; allowed: user"),
        (["--budget", "-5"], "--budget must be >= 0"),
    ],
)
def test_user_errors_are_one_line(demo, capsys, argv, message):
    code, out, err = run(capsys, "--dir", str(demo), "context", *argv)
    assert code == 1 and out == ""
    assert message in err and err.count("\n") == 1


def test_bad_settings_name_the_key(demo, capsys):
    path = demo / ".memdesk" / "settings.toml"
    path.write_text('[context]\nunit = "words"\n', "utf-8")
    code, _, err = run(capsys, "--dir", str(demo), "context")
    assert code == 1 and "context.unit" in err and "tokens, chars" in err


def test_lexical_relevance_skips_the_search_index(demo, capsys):
    code, out, _ = run(
        capsys, "--dir", str(demo), "context", "--query", "MiniJinja", "--lexical", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["relevance"] == "lexical"
    assert "MiniJinja" in data["text"]


def test_metadata_only_on_request_and_explain_says_why_each_is_in(demo, capsys):
    _, plain, _ = run(capsys, "--dir", str(demo), "context", "--budget", "800")
    assert "kind=" not in plain
    code, out, _ = run(capsys, "--dir", str(demo), "context", "--budget", "800", "--explain")
    block, _, explanation = out.partition("</agent_memory>")
    assert code == 0 and "kind=" not in block  # the block itself is what the agent gets
    assert block + "</agent_memory>\n" == plain
    assert "Put in:" in explanation and "kind=" in explanation and "ranked 1 of" in explanation
    _, with_meta, _ = run(capsys, "--dir", str(demo), "context", "--budget", "800", "--metadata")
    assert "kind=" in with_meta.partition("</agent_memory>")[0]
    _, out_json, _ = run(capsys, "--dir", str(demo), "context", "--budget", "800", "--json")
    data = json.loads(out_json)
    assert data["metadata"] is False
    assert all({"path", "reason", "facts_kept"} <= set(i) for i in data["included"])
