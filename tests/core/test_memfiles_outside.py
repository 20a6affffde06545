"""Managed files outside the working directory (an agent's home folder): kept in step
only where the person adopted them on this machine, never because a cloned
repository's `.memdesk/` names them."""

from __future__ import annotations

from pathlib import Path

import pytest
from memdesk.core.doctor import examine
from memdesk.core.memfiles.adopt import adopt
from memdesk.core.memfiles.outside import outside_requests
from memdesk.core.store import Store
from memdesk.core.trust import load_records

MEMORY = "# Memory\n\n- The API lives in `api/`\n"


def adopted_outside(tmp_path: Path) -> tuple[Store, Path]:
    home = tmp_path / "home" / ".claude" / "projects" / "-work" / "memory"
    home.mkdir(parents=True)
    path = home / "MEMORY.md"
    path.write_text(MEMORY, "utf-8")
    work = tmp_path / "work"
    work.mkdir()
    store = Store.init(work)
    adopt(store, path)
    return store, path


def test_adopting_a_file_outside_allows_it_here_and_appends_are_read(tmp_path: Path) -> None:
    store, path = adopted_outside(tmp_path)
    assert [r.what for r in load_records()] == [[f"memfiles.file = {path.resolve()}"]]
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- Deploy with `make ship`\n")
    added = store.ingest_memory_md()
    assert [(e.summary, e.status) for e in added] == [("Deploy with `make ship`", "candidate")]
    store.approve([added[0].id])
    assert path.read_text("utf-8") == MEMORY + "- Deploy with `make ship`\n"


def test_a_manifest_from_a_clone_naming_an_outside_file_touches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, path = adopted_outside(tmp_path)
    # Another machine: the repository (and its .memdesk/) arrives, the trust file does not.
    monkeypatch.setenv("MEMDESK_TRUST_FILE", str(tmp_path / "other-machine-trust.toml"))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- a line someone else's agent wrote\n")
    before = path.read_bytes()
    assert store.ingest_memory_md() == []
    entry = next(e for e in store.entries() if "api/" in e.summary)
    store.edit(entry.id, {"summary": "The API lives in `server/`"})
    assert path.read_bytes() == before  # neither read nor written
    assert not any("someone else" in e.summary for e in store.entries())
    findings = [f for f in examine(store.root).findings if f.kind == "untrusted"]
    assert [f.path for f in findings] == [".memdesk/files"]
    assert "not adopted on this machine" in findings[0].message
    # `memdesk trust` lists it, so allowing the working directory allows it again.
    assert [r.value for r in outside_requests(store.meta_dir, store.root)] == [str(path.resolve())]


def test_a_file_inside_the_working_directory_needs_no_trust(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(MEMORY, "utf-8")
    store = Store.init(tmp_path)
    adopt(store, path)
    assert load_records() == []
    assert outside_requests(store.meta_dir, store.root) == []
