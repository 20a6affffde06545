"""The one threshold set of the pair finders, one row per similarity measure.

A threshold only means something on the scale of the similarity it cuts, so each
measure has its row; every finder (queue flags, conflict screen, `duplicates`,
consolidation) reads the row of the measure it used, so one pair gets one verdict.

- `model`: cosine of the search model's vectors. Near-duplicates at 0.95 (the original
  rule), a contradiction from 0.5 with change wording or a differing number, a
  rephrasing (same slot, same subject, nothing changed) from 0.7 (the demo's nextest
  rule said twice: 0.71; different facts from one template are kept apart by the names
  each side has alone, not by the score: they reach 0.92). Similarity alone never
  makes a contradiction: a rephrasing scores as high ("Run the test suite with pytest -x
  before every commit" / "Before each commit, run pytest -x on the whole suite": 0.86).
- `centred`: cosine of the stored vectors of a model whose cosines crowd together (e5: every
  pair near 0.8), after centring each language on its mean (search/languages.py). The
  spread is wider and lower: the demo's "pnpm, not npm" / "switch to npm, drop pnpm"
  decision scores 0.33 (raw 0.89) and unrelated pairs stay under about 0.25, so a
  contradiction (which also needs change wording or a differing number) starts at 0.3;
  the nextest rule said twice scores 0.74, a rephrasing from 0.7 as for `model`.
- `words`: cosine of token counts (word overlap), used when no model is loaded and for
  the live queue (exact, incremental per entry). A reworded fact with the same tools
  scores ≥ 0.75; "npm instead of pnpm" against "pnpm, not npm" ≈ 0.5.
- `tfidf`: cosine of IDF-weighted hashed features (pairs/lexical_vectors.py), used by
  consolidation at store scale without a model: a reworded decision scores 0.37, two
  facts from one template 0.69, so a rephrasing needs 0.7.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MEASURES: tuple[str, ...] = ("model", "centred", "words", "tfidf")


@dataclass(frozen=True)
class PairThresholds:
    duplicate: float  # near-duplicate from this similarity on, whatever the wording
    contradiction: float  # different values + change wording, from this on
    number_contradiction: float  # different numbers on each side, no change wording
    rephrase: float  # same slot and subject, nothing changed: the same fact reworded

    def with_settings(
        self,
        duplicate: float | None = None,
        contradiction: float | None = None,
        *,
        number_contradiction: float | None = None,
        rephrase: float | None = None,
    ) -> PairThresholds:
        """This row with the `[search]` (or `[consolidation]`) overrides a person set."""
        wanted = {
            "duplicate": duplicate,
            "contradiction": contradiction,
            "number_contradiction": number_contradiction,
            "rephrase": rephrase,
        }
        return replace(self, **{k: v for k, v in wanted.items() if v is not None})


THRESHOLDS: dict[str, PairThresholds] = {
    "model": PairThresholds(
        duplicate=0.95, contradiction=0.5, number_contradiction=0.5, rephrase=0.7
    ),
    "centred": PairThresholds(
        duplicate=0.95, contradiction=0.3, number_contradiction=0.3, rephrase=0.7
    ),
    "words": PairThresholds(
        duplicate=0.75, contradiction=0.45, number_contradiction=0.45, rephrase=0.75
    ),
    "tfidf": PairThresholds(
        duplicate=0.95, contradiction=0.3, number_contradiction=0.5, rephrase=0.7
    ),
}
# "About the same subject": this share of the shorter statement's value words in common.
SAME_SUBJECT_SHARE = 0.3
