"""Full-text search: Chinese substrings, English stemming, lenient syntax, corrupt index."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.search import SearchService
from memdesk.core.search.tokenizer import query_terms, tokenize


def _service(tmp_path: Path, entries: list[Entry]) -> SearchService:
    service = SearchService(tmp_path / "index", embedder=None)
    service.sync(entries)
    return service


def _ids(hits) -> list[str]:
    return [h.entry_id for h in hits]


def test_tokenizer_splits_cjk_characters_and_stems_english() -> None:
    assert tokenize("运行测试 Running tests v3.12") == [
        "运",
        "行",
        "测",
        "试",
        "run",
        "test",
        "v3",
        "12",
    ]
    assert [t.display for t in query_terms("运行测试")] == ["运行", "行测", "测试"]


def test_chinese_two_character_query_finds_its_entry(tmp_path: Path) -> None:
    entries = [
        Entry(summary="运行测试之前先启动数据库", id="zh"),
        Entry(summary="部署到生产环境", id="other"),
    ]
    hits = _service(tmp_path, entries).search("测试", mode="text")
    assert _ids(hits) == ["zh"]
    assert hits[0].matched_terms == ["测试"]
    assert "测试" in hits[0].reason


def test_chinese_bigram_must_be_contiguous(tmp_path: Path) -> None:
    # "测" and "试" both occur but never next to each other: no phrase match.
    entries = [
        Entry(summary="测量一下，再试试", id="apart"),
        Entry(summary="单元测试", id="together"),
    ]
    assert _ids(_service(tmp_path, entries).search("测试", mode="text")) == ["together"]


def test_english_stemming_matches_inflections(tmp_path: Path) -> None:
    entries = [
        Entry(summary="Running the tests needs docker", id="en"),
        Entry(summary="Deploys happen on Fridays", id="other"),
    ]
    service = _service(tmp_path, entries)
    assert _ids(service.search("run", mode="text")) == ["en"]
    assert _ids(service.search("tested", mode="text")) == ["en"]


def test_mixed_language_entry_found_by_either_language(tmp_path: Path) -> None:
    entries = [
        Entry(summary="跑测试用 uv run pytest -x", id="mixed"),
        Entry(summary="lint with ruff", id="o"),
    ]
    service = _service(tmp_path, entries)
    assert _ids(service.search("pytest", mode="text")) == ["mixed"]
    assert _ids(service.search("跑测试", mode="text")) == ["mixed"]


def test_bad_query_syntax_falls_back_to_lenient_parse(tmp_path: Path) -> None:
    entries = [Entry(summary="foo bar baz", id="foo"), Entry(summary="unrelated", id="x")]
    service = _service(tmp_path, entries)
    for query in ("foo AND (", 'foo "unclosed', "foo OR OR", "(((", "AND"):
        hits = service.search(query, mode="text")  # never raises
        assert _ids(hits) in (["foo"], [])
    assert _ids(service.search("foo AND (", mode="text")) == ["foo"]


def test_explicit_syntax_is_honoured_when_it_parses(tmp_path: Path) -> None:
    entries = [
        Entry(summary="deploy with docker compose", id="a"),
        Entry(summary="deploy with kubernetes", id="b"),
    ]
    service = _service(tmp_path, entries)
    assert _ids(service.search("deploy AND docker", mode="text")) == ["a"]
    assert _ids(service.search('"with kubernetes"', mode="text")) == ["b"]


def test_dash_in_plain_query_is_not_exclusion(tmp_path: Path) -> None:
    entries = [Entry(summary="run uv run pytest -x before pushing", id="a")]
    assert _ids(_service(tmp_path, entries).search("pytest -x", mode="text")) == ["a"]


def test_filters_on_status_kind_scope(tmp_path: Path) -> None:
    entries = [
        Entry(summary="use pnpm", id="c1", status="confirmed", kind="preference", scope="user"),
        Entry(summary="use pnpm please", id="c2", status="candidate", kind="workflow"),
    ]
    service = _service(tmp_path, entries)
    assert _ids(service.search("pnpm", mode="text", status=["confirmed"])) == ["c1"]
    assert _ids(service.search("pnpm", mode="text", kind=["workflow"])) == ["c2"]
    assert _ids(service.search("pnpm", mode="text", scope=["user"])) == ["c1"]
    assert service.search("pnpm", mode="text", status=["expired"]) == []


def test_update_and_remove_keep_the_index_current(tmp_path: Path) -> None:
    entry = Entry(summary="cache lives in redis", id="a")
    service = _service(tmp_path, [entry])
    changed = entry.copy(summary="cache lives in memcached", version=2)
    service.update(changed)
    assert _ids(service.search("redis", mode="text")) == []
    assert _ids(service.search("memcached", mode="text")) == ["a"]
    service.remove("a")
    assert service.search("memcached", mode="text") == []


def test_sync_indexes_only_what_changed(tmp_path: Path) -> None:
    entries = [Entry(summary=f"note number {i}", id=f"n{i}") for i in range(5)]
    first = SearchService(tmp_path / "index", embedder=None).sync(entries)
    assert (first.added, first.updated, first.removed) == (5, 0, 0)
    entries[2] = entries[2].copy(summary="note changed", version=2)
    second = SearchService(tmp_path / "index", embedder=None).sync(entries[:4])
    assert (second.added, second.updated, second.removed) == (0, 1, 1)


def test_corrupt_text_index_is_rebuilt_not_fatal(tmp_path: Path) -> None:
    entries = [Entry(summary="运行测试 with pytest", id="a")]
    _service(tmp_path, entries)
    text_dir = tmp_path / "index" / "text"
    for path in text_dir.iterdir():
        if path.is_file():
            path.write_bytes(b"\x00garbage")
    service = SearchService(tmp_path / "index", embedder=None)
    report = service.sync(entries)
    assert report.rebuilt_text_index
    assert _ids(service.search("测试", mode="text")) == ["a"]


def test_deleted_text_index_is_rebuilt_from_entries(tmp_path: Path) -> None:
    import shutil

    entries = [Entry(summary="alpha beta", id="a")]
    _service(tmp_path, entries)
    shutil.rmtree(tmp_path / "index" / "text")
    service = SearchService(tmp_path / "index", embedder=None)
    service.sync(entries)
    assert _ids(service.search("alpha", mode="text")) == ["a"]


def test_single_updates_survive_a_restart_without_reindexing(tmp_path: Path) -> None:
    entries = [Entry(summary=f"note {i}", id=f"n{i}") for i in range(3)]
    service = _service(tmp_path, entries)
    changed = entries[1].copy(summary="note changed", version=2)
    service.update(changed)
    service.remove("n2")
    added = Entry(summary="brand new note", id="n9")
    service.update(added)
    report = SearchService(tmp_path / "index", embedder=None).sync([entries[0], changed, added])
    assert (report.added, report.updated, report.removed) == (0, 0, 0)


def test_two_services_on_one_index_share_work(tmp_path: Path) -> None:
    # Two processes (TUI and CLI) on the same store: the second sees the first's work.
    entries = [Entry(summary=f"shared note {i}", id=f"n{i}") for i in range(4)]
    early = SearchService(tmp_path / "index", embedder=None)
    SearchService(tmp_path / "index", embedder=None).sync(entries)
    report = early.sync(entries)
    assert (report.added, report.updated, report.removed) == (0, 0, 0)
    assert _ids(early.search("note", mode="text", limit=10)) != []


def test_a_busy_index_writer_is_not_fatal(tmp_path: Path) -> None:
    entries = [Entry(summary="first note", id="a")]
    service = _service(tmp_path, entries)
    service.text.lock_wait = 0.1
    other = SearchService(tmp_path / "index", embedder=None)
    held = other.text.index.writer(15_000_000, 1)  # another process is writing
    added = Entry(summary="second note about kafka", id="b")
    service.update(added)  # no exception
    assert service.sync([*entries, added]).text_index_busy
    del held
    import gc

    gc.collect()
    service.sync([*entries, added])
    assert _ids(service.search("kafka", mode="text")) == ["b"]
