"""Build the bundled demo project (core/demo_project/) from the entry table in
scripts/demo_entries.toml and the transcript and MEMORY.md lines below.

Run `python scripts/build_demo.py` after changing them; the output is committed so
`memdesk demo` works offline with no setup. The world: a user, 林晓 (Lin Xiao), and her
project `lantern`, a static-site generator (Rust core, TypeScript preview UI).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tomllib
from pathlib import Path

from memdesk.core.entry import Entry, Source
from memdesk.core.entry_files import entry_to_toml

ROOT = Path(__file__).resolve().parent.parent / "core" / "demo_project"
ENTRIES_FILE = Path(__file__).resolve().parent / "demo_entries.toml"
BASE = dt.datetime(2026, 9, 1, 9, 0, tzinfo=dt.UTC)

S1 = "5b7c1e02-demo-lantern-build"
S3 = "c1e8a7b5-demo-personal"
ROW_FIELDS = ("id", "kind", "scope", "status", "confidence", "summary")


def load_rows() -> list[tuple]:
    """(id, kind, scope, status, confidence, summary, extra) per entry, in file order."""
    with open(ENTRIES_FILE, "rb") as handle:
        tables = tomllib.load(handle)["entry"]
    return [
        (*(t[name] for name in ROW_FIELDS), {k: v for k, v in t.items() if k not in ROW_FIELDS})
        for t in tables
    ]


E = load_rows()
# The entry with git conflict markers: two branches edited lan-008's port and wording.
CONFLICTED_ID = "lan-033"


def build_entry(index: int, row: tuple) -> Entry:
    entry_id, kind, scope, status, confidence, summary, extra = row
    created = BASE + dt.timedelta(hours=7 * index)
    session = extra.get("session", S1 if kind != "profile" else S3)
    return Entry(
        id=entry_id,
        kind=kind,
        scope=scope,
        status=status,
        confidence=confidence,
        summary=summary,
        facts=list(extra.get("facts", [])),
        tags=list(extra.get("tags", [])),
        valid_until=dt.date.fromisoformat(extra["valid_until"]) if "valid_until" in extra else None,
        supersedes=list(extra.get("supersedes", [])),
        superseded_by=extra.get("superseded_by", ""),
        flags=dict(extra.get("flags", {})),
        source=Source(
            origin="transcript" if entry_id.startswith("cand") else "import",
            session_id=session,
            timestamp=created.isoformat(),
            files=list(extra.get("files", [])),
            commands=list(extra.get("commands", [])),
            locator=f"transcripts/lantern-session.jsonl#{index}"
            if entry_id.startswith("cand")
            else "",
            excerpt=summary if entry_id.startswith("cand") else "",
        ),
        version=1,
        created=created,
        updated=created,
    )


def conflicted_file() -> str:
    base = build_entry(
        len(E),
        (
            CONFLICTED_ID,
            "project",
            "project",
            "confirmed",
            "medium",
            "Drafts (draft = true in front matter) are built only with `lantern build --drafts`.",
            {"commands": ["lantern build --drafts"], "tags": ["lantern", "drafts"]},
        ),
    )
    ours = base.copy(
        version=2,
        summary=(
            "Drafts (draft = true in front matter) are built only with `lantern build --drafts`; "
            "the preview server always shows them."
        ),
    )
    theirs = base.copy(
        version=2,
        summary=("草稿（front matter 里 draft = true）只有 `lantern build --drafts` 才会构建"),
        confidence="high",
    )
    a = entry_to_toml(ours).decode().splitlines(keepends=True)
    b = entry_to_toml(theirs).decode().splitlines(keepends=True)
    out: list[str] = []
    hunk_a: list[str] = []
    hunk_b: list[str] = []
    for la, lb in [*zip(a, b, strict=True), ("", "")]:
        if la != lb:
            hunk_a.append(la)
            hunk_b.append(lb)
            continue
        if hunk_a:  # adjacent changed lines form one hunk, as git writes them
            out += ["<<<<<<< HEAD\n", *hunk_a, "=======\n", *hunk_b, ">>>>>>> feature/drafts-zh\n"]
            hunk_a, hunk_b = [], []
        out.append(la)
    return "".join(out)


TRANSCRIPT = [
    ("user", "帮我看看为什么 sitemap 里的链接多了一个斜杠"),
    ("assistant", "I'll check how URLs are joined in crates/lantern-core/src/sitemap.rs."),
    (
        "tool",
        "$ rg 'base_url' crates/lantern-core/src/sitemap.rs\n42:    format!(\"{}/{}\", base_url, path)",
    ),
    (
        "assistant",
        "The sitemap joins base_url and the path with '/', and base_url already ends with '/'. "
        "Fix: trim the trailing slash before joining.",
    ),
    ("user", "记住：base_url 必须以 / 结尾，拼接的时候要先 trim"),
    ("user", "以后改完模板一定要跑 cargo insta review 看快照"),
    ("assistant", "Done. `cargo nextest run --workspace` passes."),
    ("user", "thanks! that's all for today"),
]

MEMORY_EXTRA = [
    "- remember: the preview UI needs Node 20 or newer (pnpm 9 refuses Node 18)",
    "- 注意：lantern.toml 里的 base_url 必须以 / 结尾",
    "- Always run cargo nextest run --workspace before pushing; cargo test misses the snapshot tests.",
]


def main() -> None:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    entries_dir = ROOT / "memdesk" / "entries"
    entries_dir.mkdir(parents=True)
    for index, row in enumerate(E):
        entry = build_entry(index, row)
        (entries_dir / f"{entry.id}.toml").write_bytes(entry_to_toml(entry))
    (entries_dir / f"{CONFLICTED_ID}.toml").write_text(conflicted_file(), "utf-8")
    (ROOT / "memdesk" / "inbox").mkdir()
    (ROOT / "memdesk" / "inbox" / ".keep").write_text("")
    (ROOT / "memdesk" / "settings.toml").write_text(
        "# memdesk settings for the demo project\n\n"
        '[context]\npurpose = "coding"\nbudget = 1200\nunit = "tokens"\n\n'
        '[sources]\ntranscripts = ["transcripts/*.jsonl"]\n',
        "utf-8",
    )
    transcripts = ROOT / "transcripts"
    transcripts.mkdir()
    with open(transcripts / "lantern-session.jsonl", "w", encoding="utf-8") as handle:
        for i, (role, content) in enumerate(TRANSCRIPT):
            stamp = (BASE + dt.timedelta(days=60, minutes=3 * i)).isoformat()
            handle.write(
                json.dumps(
                    {"session_id": S1, "role": role, "content": content, "timestamp": stamp},
                    ensure_ascii=False,
                )
                + "\n"
            )
    # MEMORY.md as an agent left it: memdesk's render plus lines appended by agents.
    from memdesk.core.memory_render import render_memory_text

    entries = [build_entry(i, row) for i, row in enumerate(E)]
    text = render_memory_text(entries, {})
    (ROOT / "MEMORY.md").write_text(text + "\n".join(MEMORY_EXTRA) + "\n", "utf-8")
    (ROOT / "memdesk" / "memory_md.json").write_text(
        json.dumps({"rendered": sorted(_hashes(text)), "ingested": [], "retired": {}}, indent=1)
    )
    print(f"demo project written to {ROOT} ({len(E) + 1} entries)")


def _hashes(text: str) -> set[str]:
    from memdesk.core.entry import text_hash
    from memdesk.core.memory_md import is_content_line, line_text

    return {text_hash(line_text(line)) for line in text.splitlines() if is_content_line(line)}


if __name__ == "__main__":
    main()
