"""Cross-lingual semantic scores: comparing a question with entries in another language.

Multilingual sentence encoders put a language's texts near each other whatever they
say: an English question is closer to an unrelated English entry than to the Chinese
entry that answers it (measured on the bilingual dev set: multilingual-e5-small puts
the answer in the top 5 for a fifth of cross-lingual questions). Subtracting each
language's mean vector removes most of that shared "which language" direction
(Libovický et al., "On the language neutrality of pre-trained multilingual
representations", 2020), which is what cross-lingual retrieval needs but blurs
distinctions within one language. So:

- entries in the question's language keep their plain cosine;
- entries in another language are compared after centring both sides on their own
  language's mean (computed from the entries themselves, at run time);
- each group's scores become z-scores within the group, so the best match in each
  language is judged by how far it stands out from its own language's entries.

With entries in one language only (or none detected) the plain cosines are returned
unchanged. Languages are told apart by script: CJK characters, or not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search.vector_matrix import cosines

LATIN, CJK = 0, 1
_CJK_CHAR = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]")
_SAMPLE = 300  # characters looked at: the start of a text says which language it is in
_CHUNK = 4096
# Fewer entries than this in a language: its mean is too noisy to centre on.
MIN_GROUP = 8


def language_of(text: str) -> int:
    """CJK when CJK characters are at least a quarter of the letters (one CJK character
    carries about as much as a short English word), else LATIN."""
    sample = text[:_SAMPLE]
    cjk = len(_CJK_CHAR.findall(sample))
    if not cjk:  # most texts: one regex pass that finds nothing
        return LATIN
    letters = len(_LETTER.findall(sample))
    return CJK if cjk * 4 >= letters else LATIN


class LanguageCentering:
    """Per-language mean vectors of the stored entries and the row norms after centring;
    `refresh` after the vectors change, `scores` per query."""

    def __init__(self) -> None:
        self.active = False
        self._labels = np.zeros(0, np.int8)
        self._means: dict[int, np.ndarray] = {}
        self._row_mean_dot = np.zeros(0, np.float32)  # v . mean(language of v)
        self._row_norm = np.zeros(0, np.float32)  # |v - mean(language of v)|

    def refresh(self, codes: np.ndarray, scales: np.ndarray, labels: Sequence[int]) -> None:
        self._labels = np.asarray(labels, np.int8)
        counts = np.bincount(self._labels, minlength=2) if len(self._labels) else [0, 0]
        self.active = bool(min(counts[LATIN], counts[CJK]) >= MIN_GROUP)
        self._means = {}
        known = [label for label in (LATIN, CJK) if counts[label] >= MIN_GROUP]
        if not known:
            return
        sums = {label: np.zeros(codes.shape[1], np.float64) for label in known}
        for start in range(0, len(codes), _CHUNK):
            block = codes[start : start + _CHUNK].astype(np.float32)
            block *= scales[start : start + _CHUNK, None]
            part = self._labels[start : start + _CHUNK]
            for label in known:
                sums[label] += block[part == label].sum(axis=0)
        self._means = {label: (sums[label] / counts[label]).astype(np.float32) for label in sums}
        if not self.active:
            return  # one language: the means only serve `centre`
        self._row_mean_dot = np.empty(len(codes), np.float32)
        mean_sq = np.empty(len(codes), np.float32)
        for label, mean in self._means.items():
            rows = self._labels == label
            self._row_mean_dot[rows] = cosines(codes, scales, mean)[rows]
            mean_sq[rows] = float(mean @ mean)
        # Stored vectors are unit length: |v - m|^2 = 1 - 2 v.m + m.m
        self._row_norm = np.sqrt(np.maximum(1.0 - 2.0 * self._row_mean_dot + mean_sq, 1e-6))

    def scores(
        self,
        plain: np.ndarray,
        codes: np.ndarray,
        scales: np.ndarray,
        query: np.ndarray,
        asked_in: int,
    ) -> np.ndarray:
        """Ranking scores for every row: `plain` cosines when inactive, else z-scores of
        the plain cosine (rows in the question's language) or the centred cosine (rows
        in another)."""
        if not self.active or len(plain) != len(self._labels):
            return plain
        centred_query = query - self._means[asked_in]
        centred_query /= np.linalg.norm(centred_query) or 1.0
        # One pass over the matrix (selecting rows first would copy them).
        dots = cosines(codes, scales, centred_query)
        out = np.empty_like(plain)
        for label, mean in self._means.items():
            rows = self._labels == label
            if label == asked_in:
                group = plain[rows]
            else:
                group = (dots[rows] - float(mean @ centred_query)) / self._row_norm[rows]
            out[rows] = (group - group.mean()) / (group.std() or 1.0)
        return out

    def centre(
        self,
        vectors: np.ndarray,
        labels: Sequence[int],
        fallback: Mapping[int, np.ndarray] | None = None,
    ) -> np.ndarray:
        """`vectors` minus their language's mean, unit length again: cosines between
        them spread over [-1, 1] instead of crowding near a model's typical similarity
        (multilingual-e5 puts unrelated texts at 0.8), so the pair finder's thresholds
        mean the same for every model. A language with too few entries to know its mean
        uses `fallback` (the mean of built-in sample sentences), else stays as it is."""
        out = np.array(vectors, dtype=np.float32, copy=True)
        means = {**(fallback or {}), **self._means}
        for label, mean in means.items():
            rows = np.asarray(labels) == label
            out[rows] -= mean
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class CentredVectors(Mapping[str, np.ndarray]):
    """An id -> vector view whose vectors are centred on their language's mean."""

    centred_on_language = True  # the pair finders cut these with their `centred` row

    def __init__(
        self,
        vectors: Mapping[str, np.ndarray],
        centring: LanguageCentering,
        label_of: Callable[[str], int],
        fallback: Mapping[int, np.ndarray] | None = None,
    ) -> None:
        self._vectors = vectors
        self._centring = centring
        self._label_of = label_of
        self._fallback = fallback

    def __getitem__(self, entry_id: str) -> np.ndarray:
        return self.stack([entry_id])[0]

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._vectors

    def __iter__(self) -> Iterator[str]:
        return iter(self._vectors)

    def __len__(self) -> int:
        return len(self._vectors)

    def stack(self, entry_ids: Sequence[str]) -> np.ndarray:
        stack = getattr(self._vectors, "stack", None)
        plain = (
            stack(entry_ids)
            if callable(stack)
            else np.stack([self._vectors[i] for i in entry_ids]).astype(np.float32)
        )
        labels = [self._label_of(i) for i in entry_ids]
        return self._centring.centre(plain, labels, self._fallback)


# Everyday statements of the kinds a memory holds, per language: their mean vector
# stands in for a language's mean while the store has too few entries in it.
SAMPLE_SENTENCES: dict[int, tuple[str, ...]] = {
    LATIN: (
        "Run the tests before every commit.",
        "The service is deployed with Docker on Fridays.",
        "She prefers tea to coffee in the morning.",
        "Use the staging database for manual checks.",
        "The meeting moved to Wednesday afternoon.",
        "Logs are kept for thirty days.",
        "He went hiking with friends last weekend.",
        "API keys live in the secrets manager, never in the repo.",
        "The build fails when the lockfile is out of date.",
        "Reply briefly and give the answer first.",
        "We switched from npm to pnpm last year.",
        "Her daughter started school in September.",
    ),
    CJK: (
        "每次提交前先跑测试。",
        "服务每周五用 Docker 部署。",
        "她早上更喜欢喝茶而不是咖啡。",
        "手动检查请用预发环境的数据库。",
        "周会改到了周三下午。",
        "日志保留三十天。",
        "他上周末和朋友去爬山了。",
        "密钥放在密钥管理服务里，不要放进代码仓库。",
        "锁文件过期时构建会失败。",
        "回答要简洁，先给结论。",
        "去年我们从 npm 换成了 pnpm。",
        "她的女儿九月开始上学。",
    ),
}


def sample_means(embed: Callable[[Sequence[str]], np.ndarray]) -> dict[int, np.ndarray]:
    """Each language's mean over the sample sentences, embedded by the model in use."""
    return {label: embed(list(texts)).mean(axis=0) for label, texts in SAMPLE_SENTENCES.items()}


class EntryLanguages:
    """Each entry's language (worked out once per Entry object) and the centring of the
    vectors as they are now, recomputed when `stamp` says they changed."""

    def __init__(self) -> None:
        self.centring = LanguageCentering()
        self._known: dict[str, tuple[Entry | None, int]] = {}
        self._stamp: object = None

    def label(self, entry_id: str) -> int:
        known = self._known.get(entry_id)
        return known[1] if known else LATIN

    def refresh(
        self,
        codes: np.ndarray,
        scales: np.ndarray,
        ids: Sequence[str],
        entries: Mapping[str, Entry],
        stamp: object,
    ) -> LanguageCentering:
        if stamp != self._stamp:
            labels = []
            for entry_id in ids:
                entry = entries.get(entry_id)
                known = self._known.get(entry_id)
                if known is None or known[0] is not entry:
                    known = (entry, language_of(entry.search_text()) if entry else LATIN)
                    self._known[entry_id] = known
                labels.append(known[1])
            for gone in [i for i in self._known if i not in entries]:
                del self._known[gone]
            self.centring.refresh(codes, scales, labels)
            self._stamp = stamp
        return self.centring
