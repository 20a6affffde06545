"""The `[search]` table of `.memdesk/settings.toml`: defaults and validation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from memdesk.core.search.embedder import DEFAULT_MODEL
from memdesk.core.search.fusion import FUSIONS


class SearchSettingsError(ValueError):
    """A bad value in `[search]`; the message names the key and what is allowed."""


@dataclass(frozen=True)
class SearchSettings:
    # "e5-multilingual", "use-multilingual", "minilm-int8", "none", or a fastembed model id.
    model: str = DEFAULT_MODEL
    # Semantic hits below this cosine are dropped (so unrelated queries return nothing
    # from the semantic side). Model-specific; None means the model's tuned default.
    min_similarity: float | None = None
    # How the full-text and semantic lists are fused (bench/search_bilingual.py and
    # bench/search_locomo.py measured "convex" best): "convex" = text_weight * BM25/best
    # BM25 + (1 - text_weight) * min-max scaled cosine; "rrf" = reciprocal rank fusion;
    # "coverage-rrf" = RRF with each full-text hit weighted by the share of query terms
    # it matches.
    fusion: str = "convex"
    text_weight: float = 0.5
    # Reciprocal rank fusion constant (Cormack et al. use 60).
    rrf_k: int = 60
    # Pair thresholds: None = the shared row of the vectors compared (core/pairs/
    # thresholds.py: near-duplicates from 0.95; a contradiction from 0.5 on a model's raw
    # cosines, from 0.3 on the centred vectors of e5). A value set here overrides the row.
    duplicate_similarity: float | None = None
    contradiction_similarity: float | None = None

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any] | None) -> SearchSettings:
        """Read `settings["search"]` (or a flat mapping of the same keys)."""
        table = (settings or {}).get("search", settings or {})
        if not isinstance(table, Mapping):
            raise SearchSettingsError("settings: [search] must be a table")
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key not in known:
                if "search" in (settings or {}):
                    raise SearchSettingsError(
                        f"settings: unknown key search.{key}; allowed: {', '.join(sorted(known))}"
                    )
                continue  # a flat mapping may carry other tables' keys
            values[key] = value
        out = cls(**values)
        out._validate()
        return out

    def _validate(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise SearchSettingsError(
                "settings: search.model must be text: 'e5-multilingual', 'use-multilingual', "
                "'minilm-int8', 'none' or a fastembed model id"
            )
        if (
            isinstance(self.text_weight, bool)
            or not isinstance(self.text_weight, int | float)
            or not 0 <= self.text_weight <= 1
        ):
            raise SearchSettingsError(
                f"settings: search.text_weight must be a number from 0 to 1, got {self.text_weight!r}"
            )
        for key in ("min_similarity", "duplicate_similarity", "contradiction_similarity"):
            value = getattr(self, key)
            if value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not -1 <= value <= 1
            ):
                raise SearchSettingsError(
                    f"settings: search.{key} must be a number from -1 to 1, got {value!r}"
                )
        if not isinstance(self.fusion, str) or self.fusion not in FUSIONS:
            raise SearchSettingsError(
                f"settings: search.fusion must be one of {', '.join(FUSIONS)}, got {self.fusion!r}"
            )
        if isinstance(self.rrf_k, bool) or not isinstance(self.rrf_k, int) or self.rrf_k < 1:
            raise SearchSettingsError(
                f"settings: search.rrf_k must be a whole number >= 1, got {self.rrf_k!r}"
            )
