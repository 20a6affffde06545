"""A symbolic link (or a special file) among `.memdesk/files/*.json` (hostile round 9, F4):
never opened as a manifest by `files`, `ingest`, `render`, `doctor` or the desk, and named
by `memdesk problems` and `memdesk doctor` as a symlink refusal."""

from __future__ import annotations

import builtins
import io
import json
import os
from pathlib import Path

import pytest
from memdesk.core.store import Store


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real_open = builtins.open
    real_os_open = os.open

    def watch(file: object, *args: object, **kwargs: object) -> object:
        seen.append(os.path.realpath(str(file)) if isinstance(file, str | Path) else str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def watch_os(file: object, *args: object, **kwargs: object) -> int:
        seen.append(os.path.realpath(str(file)))
        return real_os_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "open", watch)
    monkeypatch.setattr(io, "open", watch)
    monkeypatch.setattr(os, "open", watch_os)
    return seen


def _store(tmp_path: Path) -> tuple[Store, Path, Path]:
    from memdesk.core.memfiles.adopt import adopt
    from memdesk.core.memfiles.manifest import files_dir

    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "proj"
    root.mkdir()
    store = Store.init(root)
    (root / "CLAUDE.md").write_text("# P\n\n- Use pnpm not npm for installs\n", "utf-8")
    adopt(store, root / "CLAUDE.md")
    (real,) = files_dir(store.meta_dir).glob("*.json")
    # A valid manifest outside, so that reading it would also be believed.
    secret = outside / "secret.json"
    secret.write_text(real.read_text("utf-8"), "utf-8")
    return store, secret, real


def test_a_manifest_link_out_is_never_opened_and_is_named(
    tmp_path: Path, opened: list[str]
) -> None:
    from memdesk.core.doctor import examine
    from memdesk.core.memfiles.manifest import all_manifests, files_dir
    from memdesk.core.memfiles.secrets_left import secrets_in_managed_files
    from memdesk.core.memfiles.status import file_statuses
    from memdesk.core.memfiles.sync import sync_all

    store, secret, _ = _store(tmp_path)
    link = files_dir(store.meta_dir) / "zz-link.json"
    link.symlink_to(secret)
    opened.clear()
    assert len(all_manifests(store.meta_dir)) == 1  # the real one only
    file_statuses(store)
    sync_all(store)
    store.ingest_memory_md()
    store.render_memory_md()
    secrets_in_managed_files(store.root, files_dir(store.meta_dir))
    where = ".memdesk/files/zz-link.json"
    problems = [p for p in store.problems if p.path == where]
    assert [p.kind for p in problems] == ["symlink"], store.problems
    assert "symbolic link" in problems[0].message
    report = examine(store.root)
    assert any(f.path == where and f.risky for f in report.findings), report.findings
    assert str(secret.resolve()) not in opened


def test_a_manifest_link_inside_or_a_fifo_is_not_read_either(tmp_path: Path) -> None:
    from memdesk.core.memfiles.manifest import (
        all_manifests,
        files_dir,
        has_managed_files,
        is_managed,
        read_manifest,
    )

    store, _, real = _store(tmp_path)
    folder = files_dir(store.meta_dir)
    moved = store.root / "elsewhere.json"
    real.rename(moved)
    real.symlink_to(moved)  # a link that stays inside is refused too
    assert not has_managed_files(store.meta_dir)
    assert not is_managed(store.meta_dir, store.root / "CLAUDE.md")
    assert read_manifest(real) is None
    assert all_manifests(store.meta_dir) == []
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "fifo.json")
        assert all_manifests(store.meta_dir) == []  # would block forever if opened
        kinds = {p.path: p.kind for p in store.problems}
        assert ".memdesk/files/fifo.json" in kinds
    assert json.loads(moved.read_text("utf-8"))  # the file itself is left alone
