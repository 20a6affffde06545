"""A generated store with planted consolidation cases, for tests and the benchmark.

Background entries are distinct statements (Chinese, English and mixed) built from
random identifiers, so they are neither duplicates nor contradictions of each other.
Planted among them, in known pairs / ids:

- exact:         a copy differing in case, spacing or a list bullet (same sha256),
- near:          a copy differing in punctuation or word order (cosine ~1, other hash),
- contradiction: a later statement giving another value with change wording
                 ("now listens on port 9090", "端口改为 9090"),
- expired:       valid_until in the past,
- stale:         low confidence, untouched for 60 days,
- session:       a session summary 200 days old,
- unused:        not read or updated for 120 days (past the 90-day retention).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry, Source, now
from memdesk.core.entry_files import entry_to_toml
from memdesk.core.store import Store

CLASSES: tuple[str, ...] = (
    "exact",
    "near",
    "contradiction",
    "expired",
    "stale",
    "session",
    "unused",
)
_SYLLABLES = (
    "ka", "ri", "to", "mun", "zel", "vor", "pi", "lan", "tek", "sor", "dra", "quo", "bel",
    "nix", "fa", "gor", "hel", "jin", "yu", "wex", "ost", "pra", "cul", "ded", "ium",
)  # fmt: skip
_TOOLS = ("pnpm", "cargo", "poetry", "uv", "make", "bazel", "gradle", "deno", "bun", "tox")
_CN_TOPICS = ("缓存", "日志", "索引", "队列", "网关", "鉴权", "调度", "快照", "配置", "监控")
_CN_VERBS = ("依赖", "调用", "读取", "写入", "封装", "监听", "同步", "校验")


_USED: set[str] = set()


def _name(rng: random.Random) -> str:
    """A made-up identifier, unique within one generated store (background facts must
    not share names by accident, or they would be related facts, not distinct ones)."""
    while True:
        name = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(3, 5)))
        if name not in _USED:
            _USED.add(name)
            return name


def _statement(rng: random.Random) -> tuple[str, str]:
    """(summary, kind) of a distinct background statement."""
    a, b, c = _name(rng), _name(rng), _name(rng)
    tool = rng.choice(_TOOLS)
    shape = rng.randrange(5)
    if shape == 0:
        return f"Module {a} builds with {tool}; its entry point is src/{b}/{c}.rs", "project"
    if shape == 1:
        return f"Run `{tool} {a} --{b}` before touching the {c} fixtures", "workflow"
    if shape == 2:
        topic, verb = rng.choice(_CN_TOPICS), rng.choice(_CN_VERBS)
        return f"{a} 服务的{topic}{verb} {b} 表，出问题先查 {c} 任务", "project"
    if shape == 3:
        return f"{a} 的 {b} 接口超时是因为 {c} 连接池太小，调大后恢复", "experience"
    return f"I prefer {a} reviews to start from {b} tests, then the {c} code", "preference"


def _port(rng: random.Random, low: int, high: int) -> int:
    while True:
        port = rng.randint(low, high)
        if str(port) not in _USED:
            _USED.add(str(port))
            return port


def _contradiction_pair(rng: random.Random) -> tuple[str, str, str]:
    service = _name(rng)
    old, new = _port(rng, 1000, 4999), _port(rng, 5000, 9999)
    if rng.random() < 0.5:
        return (
            f"The {service} server listens on port {old}",
            f"The {service} server now listens on port {new}",
            "project",
        )
    return f"{service} 服务的端口是 {old}", f"{service} 服务的端口改为 {new}", "project"


def _near_copy(text: str, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return text + ("。" if any("\u4e00" <= ch <= "\u9fff" for ch in text[-3:]) else ".")
    return text.replace(" ", "  ", 1) + " !"


@dataclass
class Planted:
    """Which ids were planted as what: pairs for duplicates/contradictions, ids otherwise."""

    pairs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # (older, newer)
    ids: dict[str, list[str]] = field(default_factory=dict)
    total: int = 0

    def count(self, cls: str) -> int:
        return len(self.pairs.get(cls, [])) + len(self.ids.get(cls, []))


def generate_store(
    root: Path, total: int = 10_000, per_class: int = 50, seed: int = 7
) -> tuple[Store, Planted]:
    """Create a store under `root` holding `total` entries with `per_class` of each class."""
    rng = random.Random(seed)
    _USED.clear()
    store = Store.init(root)
    at = now()
    planted = Planted(pairs={c: [] for c in CLASSES[:3]}, ids={c: [] for c in CLASSES[3:]})
    entries: list[Entry] = []
    counter = 0

    def make(
        summary: str,
        kind: str,
        age_days: float,
        *,
        status: str = "confirmed",
        confidence: str = "",
        updated: dt.datetime | None = None,
        **extra: object,
    ) -> Entry:
        nonlocal counter
        counter += 1
        created = at - dt.timedelta(days=age_days, seconds=counter)
        drawn = rng.choice(("medium", "high"))  # drawn even when given: the same stream
        entry = Entry(
            summary=summary,
            kind=kind,
            status=status,
            confidence=confidence or drawn,
            id=f"g-{counter:06d}",
            created=created,
            updated=updated or created,
            source=Source(origin="generated", session_id=f"s-{counter % 97:03d}"),
        )
        for key, value in extra.items():
            setattr(entry, key, value)
        entries.append(entry)
        return entry

    def recent() -> float:
        return rng.uniform(1, 20)  # days; inside every prune window

    for _ in range(per_class):
        text, kind = _statement(rng)
        a = make(text, kind, recent() + 5)  # the older of a pair is always older
        variant = rng.choice((text.upper(), "- " + text, text.replace(" ", "   ")))
        b = make(variant, kind, recent(), status="candidate")
        planted.pairs["exact"].append((a.id, b.id))
        text, kind = _statement(rng)
        a = make(text, kind, recent() + 5)
        b = make(_near_copy(text, rng), kind, recent(), status="candidate")
        planted.pairs["near"].append((a.id, b.id))
        old_text, new_text, kind = _contradiction_pair(rng)
        a = make(old_text, kind, 15 + rng.uniform(0, 10))
        b = make(new_text, kind, rng.uniform(0, 10), status="candidate")
        planted.pairs["contradiction"].append((a.id, b.id))
        text, kind = _statement(rng)
        past = (at - dt.timedelta(days=rng.randint(1, 60))).date()
        planted.ids["expired"].append(make(text, "event", recent(), valid_until=past).id)
        text, kind = _statement(rng)
        stale = at - dt.timedelta(days=rng.uniform(45, 80))
        planted.ids["stale"].append(
            make(text, kind, 85, confidence="low", updated=stale, last_access=stale).id
        )
        text, _ = _statement(rng)
        planted.ids["session"].append(make("Session: " + text, "session", rng.uniform(190, 300)).id)
        text, kind = _statement(rng)
        old = at - dt.timedelta(days=rng.uniform(100, 150))
        planted.ids["unused"].append(make(text, kind, 160, updated=old, last_access=old).id)
    while len(entries) < total:
        text, kind = _statement(rng)
        future = (at + dt.timedelta(days=30)).date() if rng.random() < 0.05 else None
        seen = at - dt.timedelta(days=rng.uniform(0, 20))
        make(text, kind, rng.uniform(0, 28), valid_until=future, last_access=seen)
    for entry in entries:
        (store.entries_dir / f"{entry.id}.toml").write_bytes(entry_to_toml(entry))
    planted.total = len(entries)
    return Store.open(root), planted


def recall(plan_json: list[dict[str, Any]], planted: Planted) -> dict[str, tuple[int, int]]:
    """class -> (found, planted) for a plan given as `[p.to_json() ...]`."""
    merges = [set(p["entry_ids"]) for p in plan_json if p["action"] == "merge"]
    supersedes = {tuple(p["entry_ids"]) for p in plan_json if p["action"] == "supersede"}
    by_action: dict[str, set[str]] = {}
    for p in plan_json:
        if p["action"] in ("expire", "delete"):
            by_action.setdefault(p["action"], set()).update(p["entry_ids"])
    out: dict[str, tuple[int, int]] = {}
    for cls in ("exact", "near"):
        pairs = planted.pairs[cls]
        out[cls] = (sum(1 for a, b in pairs if any({a, b} <= m for m in merges)), len(pairs))
    pairs = planted.pairs["contradiction"]
    out["contradiction"] = (sum(1 for pair in pairs if pair in supersedes), len(pairs))
    for cls, action in (
        ("expired", "expire"),
        ("stale", "delete"),
        ("session", "delete"),
        ("unused", "expire"),
    ):
        ids = planted.ids[cls]
        out[cls] = (sum(1 for i in ids if i in by_action.get(action, set())), len(ids))
    return out


def false_positives(plan_json: list[dict[str, Any]], planted: Planted) -> int:
    """Proposals touching only background entries (none of them is planted)."""
    planted_ids = {i for pairs in planted.pairs.values() for pair in pairs for i in pair}
    planted_ids |= {i for ids in planted.ids.values() for i in ids}
    return sum(1 for p in plan_json if not set(p["entry_ids"]) & planted_ids)
