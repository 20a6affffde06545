"""No secret reaches disk through any write path: each path is run end to end on a
temporary store, then every file under the working directory is searched for every
secret of the corpus (the person's own input files excepted)."""

from __future__ import annotations

import json
from pathlib import Path

from guard_corpus import SECRETS
from memdesk.cli.main import main as cli_main
from memdesk.core.entry import Entry, Source
from memdesk.core.extract.flush import flush
from memdesk.core.extract.inbox import ingest_sources
from memdesk.core.merge import MergeConflict
from memdesk.core.store import GuardRefused, Store


def leaks(root: Path, needles: list[tuple[str, str]], skip: tuple[Path, ...] = ()) -> list[str]:
    """Kinds whose needle is in any file under `root` (JSON escapes undone)."""
    found: set[str] = set()
    for path in root.rglob("*"):
        if not path.is_file() or path in skip or "index" in path.relative_to(root).parts:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        plain = text.replace("\\n", "\n").replace('\\"', '"')
        for kind, needle in needles:
            if needle in text or needle in plain:
                found.add(f"{kind} in {path.relative_to(root)}")
    return sorted(found)


ALL = [(kind, needle) for kind, needle, _ in SECRETS]


def halves() -> list[tuple[str, str]]:
    out = []
    for kind, needle, _ in SECRETS:
        for half in (needle[: len(needle) // 2], needle[len(needle) // 2 :]):
            if len(half) >= 5:
                out.append((kind, half))
    return out


def test_add_and_edit_store_no_secret_in_any_field(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    for kind, _, text in SECRETS:
        entry = Entry(
            f"Ops note about {kind}: {text}",
            facts=[text],
            tags=[kind],
            source=Source(
                origin="cli",
                excerpt=text,
                files=[text[:200]],
                commands=[text],
                locator=text,
                session_id=text[:80],
            ),
        )
        try:
            added = store.add(entry)
        except GuardRefused:
            added = store.add(Entry(f"Ops note about {kind}: rotate it monthly"))
        try:
            store.edit(added.id, {"summary": f"Edited {kind} note: {text}", "facts": [text]})
        except GuardRefused:
            pass
    assert leaks(tmp_path, ALL) == []


def test_import_stores_no_secret(tmp_path: Path) -> None:
    root, source = tmp_path / "wd", tmp_path / "in.jsonl"
    root.mkdir()
    Store.init(root)
    source.write_text(
        "".join(
            json.dumps(
                {
                    "summary": f"Imported fact about {kind}: {text}",
                    "facts": [text],
                    "source": {"origin": "import", "excerpt": text, "commands": [text]},
                }
            )
            + "\n"
            for kind, _, text in SECRETS
        )
    )
    assert cli_main(["--dir", str(root), "import", str(source)]) == 0
    assert leaks(root, ALL) == []


def _transcript(path: Path, texts: list[str]) -> None:
    path.write_text(
        "".join(json.dumps({"role": "user", "content": t}) + "\n" for t in texts), "utf-8"
    )


def _remember(kind: str, text: str) -> str:
    return f"Remember: for {kind} we always use this value {text}"


def test_extract_stores_no_secret_nor_an_excerpt_tail(tmp_path: Path) -> None:
    root, transcript = tmp_path / "wd", tmp_path / "session.jsonl"
    root.mkdir()
    Store.init(root)
    statement = "Remember: the release checklist always lives in docs/release.md"
    messages = []
    for kind, _, text in SECRETS:
        messages.append(_remember(kind, text))
        # The excerpt's 600-character cut falls inside the secret.
        filler = "x " * ((600 - len(statement) - len(text) // 2 - 2) // 2)
        messages.append(f"{statement} ({kind}) {filler}{text} " + "y " * 300)
    _transcript(transcript, messages)
    assert cli_main(["--dir", str(root), "extract", str(transcript)]) == 0
    assert len(Store.open(root).entries()) > 0
    assert leaks(root, ALL + [(k, n) for k, n in halves() if len(n) >= 8]) == []


def test_flush_of_secrets_split_over_two_messages_stores_no_half(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    messages = []
    for kind, needle, text in SECRETS:
        at = text.index(needle) + len(needle) // 2
        messages.append({"role": "user", "content": _remember(kind, text[:at])})
        messages.append({"role": "user", "content": text[at:] + " — always use it for deploys"})
    flush(messages, store=store, session_id="s1")
    assert leaks(tmp_path, ALL + halves()) == []


def test_inbox_ingest_stores_no_secret(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    inbox_file = store.inbox_dir / "agent.jsonl"
    _transcript(inbox_file, [_remember(kind, text) for kind, _, text in SECRETS])
    candidates = store.inbox_dir / "candidates.jsonl"
    candidates.write_text(
        "".join(
            json.dumps({"summary": f"Fact about {kind}: {text}", "facts": [text]}) + "\n"
            for kind, _, text in SECRETS
        )
    )
    ingest_sources(store)
    # The inbox files are what the person dropped there; nothing memdesk wrote may leak.
    assert leaks(tmp_path, ALL, skip=(inbox_file, candidates)) == []


def test_memory_md_ingest_keeps_no_secret_in_memory_md_or_retired(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    keep = store.add(Entry("Use pnpm, not npm", status="confirmed"))
    assert keep.status == "confirmed"
    memory = tmp_path / "MEMORY.md"
    with memory.open("a", encoding="utf-8") as handle:
        for _kind, _, text in SECRETS:
            for line in text.split("\n"):  # a key block arrives one line at a time
                handle.write(f"- {line}\n" if not line.startswith("-----") else f"{line}\n")
        handle.write("- Tests run with pytest -x\n")
    added = store.ingest_memory_md()
    assert any(e.summary == "Tests run with pytest -x" for e in added)
    assert leaks(tmp_path, ALL) == []
    assert "Use pnpm, not npm" in memory.read_text()
    store.render_memory_md()  # the old inode goes to .memdesk/retired/
    assert leaks(tmp_path, ALL) == []


def test_memory_md_key_block_appended_in_separate_ingests_is_refused(tmp_path: Path) -> None:
    from guard_corpus import PEM_RSA

    store = Store.init(tmp_path)
    memory = tmp_path / "MEMORY.md"
    store.render_memory_md()
    for line in PEM_RSA.split("\n"):
        with memory.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        store.ingest_memory_md()
    body = [line for line in PEM_RSA.split("\n") if not line.startswith("-----")]
    assert leaks(tmp_path, [("pem", b) for b in body]) == []
    assert store.entries() == []


def test_a_concurrent_edit_conflict_is_saved_without_secrets(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    for kind, _, text in SECRETS:
        entry = store.add(Entry(f"Rotation policy for {kind} keys"))
        store.edit(entry.id, {"summary": f"Rotation policy for {kind} keys is monthly"})
        try:
            store.edit(
                entry.id,
                {"summary": f"Rotation for {kind}: {text}", "facts": [text]},
                base_version=1,
            )
        except MergeConflict as exc:
            path = store.save_conflict(exc.conflict)
            assert path.exists()
            assert all(needle not in str(exc.conflict.to_json()) for _, needle in ALL)
        except GuardRefused:
            continue
    assert list((tmp_path / ".memdesk" / "conflicts").glob("*.json"))
    assert leaks(tmp_path, ALL) == []
