"""`memdesk search` / `--batch` / `reindex` / `duplicates`: output shapes and errors,
on a real store (the embedding model is switched off in its settings, so these tests
exercise the CLI, not the model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.cli import main as cli_main
from memdesk.core.entry import Entry
from memdesk.core.store import Store


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    real = Store.init(tmp_path)
    real.settings_path.write_text('[search]\nmodel = "none"\n', "utf-8")
    real.add_many(
        [
            Entry(summary="跑测试用 uv run pytest -x", id="m-1", status="confirmed"),
            Entry(summary="Running the linter: ruff check", id="m-2"),
            Entry(summary="use pnpm for installs", id="m-3"),
            Entry(summary="Use pnpm for installs", id="m-4"),
        ],
        actor="cli",
    )
    monkeypatch.chdir(tmp_path)
    return real


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json_is_an_array_of_hits(store, capsys) -> None:
    code, out, err = _run(capsys, "search", "测试", "--json", "--mode", "text")
    assert code == 0, err
    hits = json.loads(out)
    assert isinstance(hits, list) and hits[0]["entry_id"] == "m-1"
    assert {"entry_id", "id", "score", "reason", "matched_terms", "similarity"} <= set(hits[0])
    assert hits[0]["matched_terms"] == ["测试"]


def test_search_says_once_that_there_is_no_model(store, capsys) -> None:
    code, out, err = _run(capsys, "search", "linter", "--json")
    assert code == 0
    assert err.count("semantic search is off") == 1
    assert [h["entry_id"] for h in json.loads(out)] == ["m-2"]


def test_search_human_output_and_filters(store, capsys) -> None:
    code, out, _ = _run(capsys, "search", "pnpm", "--status", "confirmed")
    assert code == 0 and out.strip() == "no matches"
    code, out, _ = _run(capsys, "search", "pnpm", "--limit", "1")
    assert code == 0 and "matched pnpm" in out and out.count("m-") == 1


def test_search_batch_prints_one_json_line_per_query(store, capsys, tmp_path: Path) -> None:
    batch = tmp_path / "queries.jsonl"
    batch.write_text(
        '{"id": "q1", "query": "测试"}\n\n{"id": "q2", "query": "ruff"}\n', encoding="utf-8"
    )
    code, out, err = _run(capsys, "search", "--batch", str(batch))
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2"]
    assert lines[0]["hits"][0]["entry_id"] == "m-1"
    assert lines[1]["hits"][0]["entry_id"] == "m-2"


def test_search_errors_are_one_line(store, capsys, tmp_path: Path) -> None:
    code, _, err = _run(capsys, "search")
    assert code == 1 and "QUERY" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    code, _, err = _run(capsys, "search", "--batch", str(bad))
    assert code == 1 and "bad.jsonl:1" in err
    store.settings_path.write_text('[search]\nmodel = "none"\nrrf_k = -1\n', "utf-8")
    code, _, err = _run(capsys, "search", "x")
    assert code == 1 and "search.rrf_k" in err


def test_reindex_and_duplicates(store, capsys) -> None:
    code, out, _ = _run(capsys, "reindex")
    assert code == 0 and "indexed 4 entries" in out
    code, out, _ = _run(capsys, "duplicates", "--json")
    assert code == 0
    # The JSON shape keeps its keys; "method" (how the pair was found) was added.
    assert json.loads(out) == [
        {
            "a": "m-3",
            "b": "m-4",
            "type": "exact",
            "score": 1.0,
            "reason": "same normalised text",
            "method": "hash",
        }
    ]


def test_search_time_filters(store, capsys) -> None:
    code, out, _ = _run(capsys, "search", "pnpm", "--since", "2000-01-01", "--json")
    assert code == 0 and {h["entry_id"] for h in json.loads(out)} == {"m-3", "m-4"}
    code, out, _ = _run(capsys, "search", "pnpm", "--until", "2000-01-01", "--json")
    assert code == 0 and json.loads(out) == []
    code, _, err = _run(capsys, "search", "pnpm", "--since", "yesterday")
    assert code == 2 and "YYYY-MM-DD" in err
