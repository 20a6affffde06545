"""A `[sources] transcripts` glob does not list a folder outside through a link.

A repository can commit `transcripts -> /home/someone/private` and the glob
`transcripts/*.jsonl`: its text stays inside, but expanding it would list the folder
outside. Every expansion memdesk makes from the settings (extract --sources, the
desk's watcher, consolidation's gather, `memdesk trust`'s and doctor's look) refuses
to enter it until the person allows the glob here; `memdesk problems` names it.
"""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

import pytest
from memdesk.core.consolidate.extractor import transcript_paths
from memdesk.core.doctor import examine
from memdesk.core.extract.inbox import ingest_sources, source_files, unmatched_globs, watch_roots
from memdesk.core.live_ingest import PathClassifier
from memdesk.core.safe_glob import confined_glob
from memdesk.core.store import Store
from memdesk.core.trust import allow, glob_leaves, requests

LINE = json.dumps({"role": "user", "content": "remember: the S3 bucket is tidal-reports-prod"})
LINE += "\n"


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every folder listed (os.scandir, os.listdir), as its real path."""
    seen: list[str] = []
    real_scandir, real_listdir = os.scandir, os.listdir

    def scandir(path: object = ".") -> object:
        seen.append(os.path.realpath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    def listdir(path: object = ".") -> list[str]:
        seen.append(os.path.realpath(path))  # type: ignore[arg-type]
        return real_listdir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    return seen


def outside_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "victim" / "sessions"
    folder.mkdir(parents=True)
    (folder / "private.jsonl").write_text(LINE, "utf-8")
    return folder


def project(tmp_path: Path, globs: list[str]) -> Store:
    root = tmp_path / "repo"
    root.mkdir()
    store = Store.init(root)
    quoted = ", ".join(f'"{g}"' for g in globs)
    text = store.settings_path.read_text("utf-8") + f"[sources]\ntranscripts = [{quoted}]\n"
    store.settings_path.write_text(text, "utf-8")
    return store


def never_under(folder: Path, seen: list[str]) -> None:
    real = os.path.realpath(folder)
    assert not [p for p in seen if p == real or p.startswith(real + os.sep)], seen


def test_a_folder_linked_outside_is_not_listed_by_any_expansion(
    tmp_path: Path, listed: list[str]
) -> None:
    outside = outside_folder(tmp_path)
    store = project(tmp_path, ["transcripts/*.jsonl"])
    (store.root / "transcripts").symlink_to(outside, target_is_directory=True)
    listed.clear()
    assert source_files(store) == []
    assert unmatched_globs(store) == []  # its refusal is what is said about it
    assert all(r.added == [] for r in ingest_sources(store))
    assert transcript_paths(store.root, store.settings) == []
    assert outside.resolve() not in watch_roots(store)
    classifier = PathClassifier(store.root, ["transcripts/*.jsonl"])
    assert not any(is_under(d, outside) for d, _ in classifier.watch_dirs())
    assert glob_leaves("transcripts/*.jsonl", store.root)  # `memdesk trust` lists it
    problems = [p for p in store.problems if p.path == "transcripts"]
    assert len(problems) == 1 and problems[0].kind == "symlink"
    assert "not listed for [sources] transcripts 'transcripts/*.jsonl'" in problems[0].message
    assert str(outside) in problems[0].message
    findings = examine(store.root).findings
    assert [f for f in findings if f.kind == "symlink" and f.path == "transcripts"]
    never_under(outside, listed)
    # Allowed on this machine (`memdesk trust`): followed, and no longer a problem.
    allow(store.root, requests(store.settings, store.root))
    assert source_files(store) == [(outside / "private.jsonl").resolve()]
    assert not [p for p in store.problems if p.path == "transcripts"]
    assert outside.resolve() in watch_roots(store)
    assert any(is_under(d, outside) for d, _ in classifier.watch_dirs())


def test_a_link_deeper_down_is_not_followed_by_a_recursive_glob(
    tmp_path: Path, listed: list[str]
) -> None:
    outside = outside_folder(tmp_path)
    store = project(tmp_path, ["logs/**/*.jsonl", "logs/*/*.jsonl"])
    (store.root / "logs" / "day1").mkdir(parents=True)
    (store.root / "logs" / "day1" / "a.jsonl").write_text(LINE, "utf-8")
    (store.root / "logs" / "day2").symlink_to(outside, target_is_directory=True)
    (store.root / "logs" / "loop").symlink_to(store.root / "logs", target_is_directory=True)
    listed.clear()
    inside = (store.root / "logs" / "day1" / "a.jsonl").resolve()
    assert source_files(store) == [inside]
    assert [Path(p).resolve() for p in transcript_paths(store.root, store.settings)] == [inside]
    assert glob_leaves("logs/**/*.jsonl", store.root)
    assert {p.path for p in store.problems if p.kind == "symlink"} == {"logs/day2"}
    never_under(outside, listed)


def test_a_link_to_a_folder_inside_still_works(tmp_path: Path, listed: list[str]) -> None:
    store = project(tmp_path, ["transcripts/*.jsonl"])
    real = store.root / "agent-logs"
    real.mkdir()
    (real / "s.jsonl").write_text(LINE, "utf-8")
    (store.root / "transcripts").symlink_to(real, target_is_directory=True)
    assert source_files(store) == [(real / "s.jsonl").resolve()]
    assert unmatched_globs(store) == []
    assert not glob_leaves("transcripts/*.jsonl", store.root)
    assert not [p for p in store.problems if p.kind == "symlink"]
    assert sum(r.added != [] for r in ingest_sources(store)) == 1


def test_an_inbox_folder_linked_outside_is_not_listed(tmp_path: Path, listed: list[str]) -> None:
    outside = outside_folder(tmp_path)
    store = project(tmp_path, [])
    inbox = store.meta_dir / "inbox"
    inbox.mkdir(exist_ok=True)
    (inbox / "mine.jsonl").write_text(LINE, "utf-8")
    (inbox / "theirs").symlink_to(outside, target_is_directory=True)
    listed.clear()
    assert source_files(store) == [(inbox / "mine.jsonl").resolve()]
    never_under(outside, listed)


@pytest.mark.parametrize(
    "pattern",
    ["a/*.jsonl", "a/**/*.jsonl", "**/*.md", "*.jsonl", "a/b/y.jsonl", "a/?/*", "s/*/c/*.json"]
    + ["a/.*", "a/**/c/*.md", "none/*.x", "a/b/[xy].jsonl", "a/**"],
)
def test_inside_the_working_directory_it_matches_what_glob_matches(
    tmp_path: Path, pattern: str
) -> None:
    names = ["a/x.jsonl", "a/.h.jsonl", "a/b/y.jsonl", "a/b/c/z.md", "a/.hid/q.jsonl", "t.jsonl"]
    for name in [*names, "a/b/c/[x].md", "s/1/c/k.json", "s/2/c/m.json"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", "utf-8")
    full = str(tmp_path / pattern)
    expected = sorted(p.rstrip("/") for p in glob.glob(full, recursive=True))
    assert sorted(confined_glob(full, tmp_path).matches) == expected


def is_under(path: Path, folder: Path) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base + os.sep)


def test_an_agent_folder_the_settings_name_outside_is_not_listed_until_allowed(
    tmp_path: Path, listed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdesk.core.memfiles.discover import discover

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    victim = tmp_path / "victim"
    (victim / "memories").mkdir(parents=True)
    (victim / "memories" / "notes.md").write_text("- a private note\n", "utf-8")
    (victim / "projects").mkdir()
    store = project(tmp_path, [])
    text = store.settings_path.read_text("utf-8")
    text += f'[memfiles]\nclaude_dir = "{victim}"\ncodex_home = "{victim}"\n'
    store.settings_path.write_text(text, "utf-8")
    listed.clear()
    found = discover(store.root, store.meta_dir, store.settings)
    assert not [f for f in found if is_under(f.path, victim)]
    never_under(victim, listed)
    wanted = {str(r) for r in requests(store.settings, store.root)}
    assert wanted == {f"memfiles.claude_dir = {victim}", f"memfiles.codex_home = {victim}"}
    allow(store.root, requests(store.settings, store.root))
    found = discover(store.root, store.meta_dir, store.settings)
    assert [f.path for f in found if is_under(f.path, victim)] == [victim / "memories/notes.md"]


def test_the_desk_does_not_watch_the_folder_of_a_forged_manifest(tmp_path: Path) -> None:
    from memdesk.core.live_ingest import watch_plan
    from memdesk.core.memfiles.adopt import adopt
    from memdesk.core.memfiles.manifest import files_dir
    from memdesk.core.memfiles.outside import record_adoption

    outside = outside_folder(tmp_path)
    store = project(tmp_path, [])
    (store.root / "CLAUDE.md").write_text("- uses pnpm\n", "utf-8")
    adopt(store, store.root / "CLAUDE.md")
    (path,) = files_dir(store.meta_dir).glob("*.json")
    data = json.loads(path.read_text("utf-8"))
    data["path"] = str(outside / "private.jsonl")
    path.write_text(json.dumps(data), "utf-8")
    plan = watch_plan(store)
    assert plan.memory_files == []
    classifier = PathClassifier(store.root, memory_files=plan.memory_files)
    assert not any(is_under(d, outside) for d, _ in classifier.watch_dirs())
    record_adoption(store.root, outside / "private.jsonl")  # adopted on this machine
    assert watch_plan(store).memory_files == [outside / "private.jsonl"]
