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
