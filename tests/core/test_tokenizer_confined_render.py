"""`[context] tokenizer` outside the working directory (hostile round 9, F3): every verb
that renders MEMORY.md (render, add, approve, edit, undo, consolidate --apply, the desk)
confines it as `memdesk context` does: not opened without `memdesk trust` here, one
line says so, and the default tokenizer counts instead."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
from memdesk.core.context import tokens
from memdesk.core.entry import Entry
from memdesk.core.store import Store
from memdesk.core.trust import allow, requests

TOKENIZER = '{"version":"1.0","model":{"type":"WordLevel","vocab":{"a":0},"unk_token":"a"}}'


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every tokenizer.json a counter opens (the real loader is not needed here)."""
    seen: list[str] = []

    class Recording:
        def __init__(self, path: Path) -> None:
            seen.append(os.path.realpath(path))
            raise ValueError("recorded")  # the default counts instead, as for a bad file

    monkeypatch.setattr(tokens, "HFTokenizerCounter", Recording)
    monkeypatch.setattr(tokens, "_COUNTERS", {})
    return seen


def _store(tmp_path: Path, tokenizer: str) -> tuple[Store, Path]:
    outside = tmp_path / "elsewhere" / "tokenizer.json"
    outside.parent.mkdir(exist_ok=True)
    outside.write_text(TOKENIZER)
    store = Store.init(tmp_path / "repo")
    (store.root / "tok.json").symlink_to(outside)
    value = tokenizer.replace("OUTSIDE", str(outside))
    (store.root / ".memdesk/settings.toml").write_text(f'[context]\ntokenizer = "{value}"\n')
    return store, outside


FORMS = [
    "OUTSIDE",  # absolute
    "../elsewhere/tokenizer.json",
    "tok.json",  # an in-repo link out
]
if sys.platform.startswith("linux"):
    FORMS.append("/proc/self/cwd/../elsewhere/tokenizer.json")


@pytest.mark.parametrize("tokenizer", FORMS)
def test_render_does_not_open_an_outside_tokenizer(
    tmp_path: Path,
    tokenizer: str,
    opened: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, outside = _store(tmp_path, tokenizer)
    monkeypatch.chdir(store.root)  # /proc/self/cwd is the working directory
    store.add(Entry("Always run make check before pushing", status="confirmed"))
    [candidate] = [store.add(Entry("Use pnpm, not npm"))]
    store.approve([candidate.id])
    store.render_memory_md()
    assert "Use pnpm, not npm" in (store.root / "MEMORY.md").read_text()
    assert str(outside.resolve()) not in opened


def test_the_desk_settings_confine_the_tokenizer(tmp_path: Path, opened: list[str]) -> None:
    from memdesk.core.settings import load

    store, outside = _store(tmp_path, "OUTSIDE")
    assert load(store.root).context.tokenizer == "auto"


def test_render_says_once_why_and_reads_it_once_allowed(
    tmp_path: Path, opened: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    store, outside = _store(tmp_path, "OUTSIDE")
    with caplog.at_level(logging.WARNING):
        store.add(Entry("Always run make check before pushing", status="confirmed"))
        store.render_memory_md()
    lines = [r.getMessage() for r in caplog.records if "context.tokenizer" in r.getMessage()]
    assert len(lines) == 1 and "not allowed on this machine" in lines[0], lines
    assert opened == []
    allow(store.root, requests(store.settings, store.root))
    (store.root / "MEMORY.md").unlink()
    store.render_memory_md()
    assert opened == [str(outside.resolve())]
