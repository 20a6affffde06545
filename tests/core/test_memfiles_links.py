"""Agents' memory files that are links: a symbolic link out of the working directory is
never adopted, a manifest naming a path outside is never opened, and a hard-linked
MEMORY.md is never written through (round 8, hostile repository escapes 1, 2 and 4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memdesk.core.store import Store

OUTSIDE_TEXT = "- aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY1\n"


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "proj"
    root.mkdir()
    return root, outside


def test_a_hard_linked_memory_md_is_scrubbed_on_a_new_inode(dirs: tuple[Path, Path]) -> None:
    root, outside = dirs
    store = Store.init(root)
    (root / "MEMORY.md").unlink(missing_ok=True)
    notes = outside / "notes.md"
    text = "# Notes\n\n- fact one\n- the staging db password is Zz8qPw0rdXy12abc\n"
    notes.write_text(text, "utf-8")
    os.link(notes, root / "MEMORY.md")
    store.ingest_memory_md()
    assert notes.read_text("utf-8") == text  # the other name keeps what it had
    assert "Zz8qPw0rdXy12abc" not in (root / "MEMORY.md").read_text("utf-8")
    assert os.stat(root / "MEMORY.md").st_ino != os.stat(notes).st_ino


def _plant(root: Path, outside: Path) -> None:
    (outside / "private-notes.md").write_text(OUTSIDE_TEXT, "utf-8")
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n", "utf-8")
    (outside / "dir").mkdir()
    (outside / "dir" / "notes.md").write_text("- the outside folder's note\n", "utf-8")
    (root / "CLAUDE.md").symlink_to(outside / "private-notes.md")
    (root / "AGENTS.md").symlink_to(outside / "passwd")
    (root / "memory").symlink_to(outside / "dir")


def test_discovery_refuses_links_out_and_adopts_nothing_of_them(dirs: tuple[Path, Path]) -> None:
    from memdesk.core.memfiles.adopt import adopt
    from memdesk.core.memfiles.discover import discover
    from memdesk.core.store import StoreError

    root, outside = dirs
    store = Store.init(root)
    _plant(root, outside)
    (root / "GEMINI.md").write_text("- builds run on ci\n", "utf-8")
    (root / "CLAUDE.local.md").symlink_to(root / "GEMINI.md")  # inside: fine
    found = {f.path.name: f for f in discover(root, store.meta_dir, {})}
    for name in ("CLAUDE.md", "AGENTS.md", "memory"):
        assert "outside the working directory" in found[name].refused, name
        assert "\n" not in found[name].refused
    assert not found["GEMINI.md"].refused and not found["CLAUDE.local.md"].refused
    assert "notes.md" not in found  # the outside folder is not even listed
    for name in ("CLAUDE.md", "AGENTS.md", "memory/notes.md"):
        with pytest.raises(StoreError, match="outside the working directory"):
            adopt(store, root / name)
    adopt(store, root / "GEMINI.md")
    stored = "".join(p.read_text("utf-8") for p in store.meta_dir.rglob("*") if p.is_file())
    assert "wJalrXUtnFEMI" not in stored and "root:x:0:0" not in stored
    assert "the outside folder" not in stored
    from memdesk.core.trust import trust_file

    assert not trust_file().exists() or "private-notes" not in trust_file().read_text("utf-8")
    shown = {p.path: p.message for p in store.problems}
    for name in ("CLAUDE.md", "AGENTS.md", "memory"):
        assert "outside the working directory" in shown[name], shown


@pytest.mark.parametrize("forged", ["../../outside/passwd", "/etc/shadow", "ABS", "CLIMB"])
def test_a_manifest_naming_a_path_outside_is_not_opened(
    dirs: tuple[Path, Path], forged: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdesk.core.memfiles.adopt import adopt
    from memdesk.core.memfiles.manifest import files_dir
    from memdesk.core.memfiles.status import file_statuses
    from memdesk.core.memfiles.sync import sync_all

    root, outside = dirs
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n" * 7, "utf-8")
    forged = {
        "ABS": str(outside / "passwd"),
        "CLIMB": f"{root}/../outside/passwd",
    }.get(forged, forged)
    store = Store.init(root)
    (root / "CLAUDE.md").write_text("- uses pnpm\n", "utf-8")
    adopt(store, root / "CLAUDE.md")
    (path,) = files_dir(store.meta_dir).glob("*.json")
    data = json.loads(path.read_text("utf-8"))
    data["path"] = forged
    path.write_text(json.dumps(data), "utf-8")
    monkeypatch.chdir(root / ".memdesk")  # a relative path would resolve from here
    opened: list[str] = []
    real_open = open

    def watch(file: object, *args: object, **kwargs: object) -> object:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    import builtins

    monkeypatch.setattr(builtins, "open", watch)
    before = (outside / "passwd").stat()
    (status,) = file_statuses(store)
    results = sync_all(store)
    assert status.lines == 0 and status.bytes == 0 and status.refused
    assert results[0].refused
    assert not [p for p in opened if "passwd" in p or "shadow" in p]
    assert (outside / "passwd").stat().st_mtime_ns == before.st_mtime_ns
    where = f".memdesk/files/{path.name}"
    if not forged.startswith("/"):
        assert any(p.path == where for p in store.problems)
        from memdesk.core.memfiles.outside import outside_requests

        assert outside_requests(store.meta_dir, root) == []  # `trust` never offers it
