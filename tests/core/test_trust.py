"""A command named by a repository's settings runs only once allowed on this machine."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from memdesk.core.extract.inbox import ingest_sources
from memdesk.core.extract.messages import Message
from memdesk.core.extract.run import run_extractor
from memdesk.core.extract.settings import ExtractSettings
from memdesk.core.store import Store
from memdesk.core.trust import (
    allow,
    allow_also,
    glob_leaves,
    is_allowed,
    load_records,
    record_for,
    requests,
    revoke,
    transcripts_request,
)

# A command that leaves a mark when it runs, and answers one candidate.
MARK_SCRIPT = """
import json, pathlib, sys
pathlib.Path(sys.argv[1]).write_text("ran")
print(json.dumps(["from the plug-in"]))
"""


def project(tmp_path: Path, settings: str) -> Store:
    root = tmp_path / "repo"
    root.mkdir(parents=True)
    store = Store.init(root)
    store.settings_path.write_text(store.settings_path.read_text() + settings, "utf-8")
    return store


def marking_command(tmp_path: Path) -> tuple[str, Path]:
    script = tmp_path / "plugin.py"
    script.write_text(MARK_SCRIPT, "utf-8")
    mark = tmp_path / "ran.txt"
    return f'[extractor]\ncommand = ["{sys.executable}", "{script}", "{mark}"]\n', mark


MESSAGES = [Message("user", "remember: the staging database is tidepool_stage")]


def test_untrusted_command_does_not_run_and_the_builtin_extractor_does(
    tmp_path: Path, trust_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings, mark = marking_command(tmp_path)
    store = project(tmp_path, settings)
    extractor = ExtractSettings.from_mapping(store.settings).extractor
    found = run_extractor(MESSAGES, extractor, cwd=store.root)
    assert not mark.exists()
    assert found.ok and found.name == "heuristic"
    assert [e.summary for e in found.candidates] == ["the staging database is tidepool_stage"]
    assert "is not allowed on this machine" in found.notice and "memdesk" in found.notice
    assert "trust" in found.notice and len(found.notice.splitlines()) == 1

    allow(store.root, requests(store.settings, store.root))
    found = run_extractor(MESSAGES, extractor, cwd=store.root)
    assert mark.read_text() == "ran" and found.name != "heuristic"
    assert [e.summary for e in found.candidates] == ["from the plug-in"]
    assert str(trust_file) and trust_file.is_file() and not trust_file.is_relative_to(store.root)


def test_a_changed_command_needs_allowing_again(tmp_path: Path) -> None:
    settings, mark = marking_command(tmp_path)
    store = project(tmp_path, settings)
    allow(store.root, requests(store.settings, store.root))
    text = store.settings_path.read_text()
    store.settings_path.write_text(text.replace(str(mark), str(mark) + ".2"), "utf-8")
    extractor = ExtractSettings.from_mapping(store.settings).extractor
    found = run_extractor(MESSAGES, extractor, cwd=store.root)
    assert found.name == "heuristic" and found.notice
    assert not Path(str(mark) + ".2").exists()


def test_trust_is_keyed_by_the_real_path(tmp_path: Path) -> None:
    settings, _ = marking_command(tmp_path)
    store = project(tmp_path, settings)
    [request] = requests(store.settings, store.root)
    allow(store.root, [request])
    link = tmp_path / "alias"
    link.symlink_to(store.root)
    assert is_allowed(link, request)  # the same folder reached through a link
    other = project(tmp_path / "clone", settings)  # the same settings, another clone
    assert not is_allowed(other.root, request)


def test_untrusted_callable_is_not_imported(tmp_path: Path) -> None:
    store = project(tmp_path, '[extractor]\ncallable = "no_such_module_here:extract"\n')
    extractor = ExtractSettings.from_mapping(store.settings).extractor
    found = run_extractor(MESSAGES, extractor, cwd=store.root)
    assert found.ok and found.name == "heuristic" and "extractor.callable" in found.notice


def test_revoke_and_list(tmp_path: Path) -> None:
    settings, _ = marking_command(tmp_path)
    store = project(tmp_path, settings)
    allow(store.root, requests(store.settings, store.root))
    assert record_for(store.root) is not None
    assert [r.dir for r in load_records()] == [str(store.root)]
    assert revoke(store.root) is True and revoke(store.root) is False
    assert load_records() == []


def test_outside_transcripts_are_read_only_when_allowed(tmp_path: Path) -> None:
    outside = tmp_path / "sessions"
    outside.mkdir()
    line = {"role": "user", "content": "remember: the deploy key rotates monthly"}
    (outside / "a.jsonl").write_text(json.dumps(line) + "\n", "utf-8")
    store = project(tmp_path, f'[sources]\ntranscripts = ["{outside}/*.jsonl"]\n')
    assert glob_leaves(f"{outside}/*.jsonl", store.root)
    assert not glob_leaves("notes/*.md", store.root)
    assert not glob_leaves("../repo/notes/*.md", store.root)
    assert glob_leaves("../*.jsonl", store.root)
    assert all(r.added == [] for r in ingest_sources(store))
    assert store.entries() == []
    allow(store.root, requests(store.settings, store.root))
    added = [e.summary for r in ingest_sources(store) for e in r.added]
    assert added == ["the deploy key rotates monthly"]


def test_a_settings_file_without_commands_asks_for_nothing(tmp_path: Path) -> None:
    store = project(tmp_path, '[sources]\ntranscripts = ["transcripts/*.jsonl"]\n')
    assert requests(store.settings, store.root) == []


def test_allow_also_adds_to_what_was_allowed_and_nothing_more(tmp_path: Path) -> None:
    first, second = transcripts_request("~/a/*.jsonl"), transcripts_request("~/b/*.jsonl")
    allow(tmp_path, [first])
    allow_also(tmp_path, [second])
    allow_also(tmp_path, [second])  # once is enough
    assert is_allowed(tmp_path, first) and is_allowed(tmp_path, second)
    assert not is_allowed(tmp_path, transcripts_request("~/.aws/*"))
    assert len(record_for(tmp_path).allowed) == 2


def test_an_outside_glob_not_allowed_is_refused_before_it_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Round 8, R5: the outside folder was listed (glob, scandir) before the refusal.
    import glob as glob_module

    from memdesk.core.extract.inbox import source_files, unmatched_globs, watch_roots

    outside = tmp_path / "sessions"
    outside.mkdir()
    (outside / "a.jsonl").write_text("{}\n", "utf-8")
    store = project(tmp_path, f'[sources]\ntranscripts = ["{outside}/*.jsonl", "t/*.jsonl"]\n')
    expanded: list[str] = []
    real_glob, real_iglob = glob_module.glob, glob_module.iglob
    monkeypatch.setattr(glob_module, "glob", lambda p, **k: expanded.append(p) or real_glob(p, **k))
    monkeypatch.setattr(
        glob_module, "iglob", lambda p, **k: expanded.append(p) or real_iglob(p, **k)
    )
    # Globs whose text stays inside are expanded without following links out.
    import memdesk.core.extract.source_globs as source_globs

    real_confined = source_globs.confined_glob
    monkeypatch.setattr(
        source_globs, "confined_glob", lambda p, r: expanded.append(p) or real_confined(p, r)
    )
    assert source_files(store) == []
    assert unmatched_globs(store) == ["t/*.jsonl"]
    assert all(r.added == [] for r in ingest_sources(store))
    assert not any(str(outside) in p for p in expanded), expanded
    assert any(p.endswith("t/*.jsonl") for p in expanded)  # the inside glob still is
    assert outside not in watch_roots(store)
    allow(store.root, requests(store.settings, store.root))
    assert source_files(store) == [(outside / "a.jsonl").resolve()]
    assert outside.resolve() in watch_roots(store)


def test_a_changed_script_inside_the_project_needs_allowing_again(tmp_path: Path) -> None:
    # Round 8, escape 5: trust covered the command line, not the script it runs.
    from memdesk.core.consolidate.extractor import run_plugin

    store = project(tmp_path, "")
    script = store.root / "tools" / "extract.py"
    script.parent.mkdir()
    script.write_text(MARK_SCRIPT, "utf-8")
    mark, pwned = tmp_path / "ran.txt", tmp_path / "PWNED"
    text = store.settings_path.read_text()
    store.settings_path.write_text(
        text + f'[extractor]\ncommand = ["{sys.executable}", "tools/extract.py", "{mark}"]\n'
    )
    allow(store.root, requests(store.settings, store.root))
    extractor = ExtractSettings.from_mapping(store.settings).extractor
    assert run_extractor(MESSAGES, extractor, cwd=store.root).name != "heuristic"
    assert mark.read_text() == "ran"
    # Consolidation runs it with its own timeout: still the thing allowed.
    assert run_plugin(store.settings, MESSAGES, store.root, timeout=5.0).candidates
    # A pull changes the script, not the command line.
    script.write_text(f"import pathlib; pathlib.Path({str(pwned)!r}).write_text('x')\n")
    found = run_extractor(MESSAGES, extractor, cwd=store.root)
    assert found.name == "heuristic" and "not allowed" in found.notice
    assert not run_plugin(store.settings, MESSAGES, store.root, timeout=5.0).candidates
    assert not pwned.exists()
    allow(store.root, requests(store.settings, store.root))  # allowed again, as it is now
    run_extractor(MESSAGES, extractor, cwd=store.root)
    assert pwned.exists()


def test_consolidation_does_not_list_an_outside_glob_not_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Consolidation's gather expands the same [sources] globs: a climbing one not allowed
    # here is not listed either (it was, before the refusal, in a second copy of the logic).
    import glob as glob_module

    from memdesk.core.consolidate.extractor import transcript_paths

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.jsonl").write_text("{}\n", "utf-8")
    store = project(tmp_path / "p", '[sources]\ntranscripts = ["../../outside/*.jsonl"]\n')
    expanded: list[str] = []
    real_glob = glob_module.glob
    monkeypatch.setattr(glob_module, "glob", lambda p, **k: expanded.append(p) or real_glob(p, **k))
    assert transcript_paths(store.root, store.settings) == []
    assert expanded == []
    allow(store.root, requests(store.settings, store.root))
    assert [Path(p).resolve() for p in transcript_paths(store.root, store.settings)] == [
        (outside / "a.jsonl").resolve()
    ]
