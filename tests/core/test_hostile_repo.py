"""A repository you pull cannot reach outside its working directory.

Each test builds a working directory as a hostile branch could leave it (forged ids in
the pending batch, the journal, conflict files and MEMORY.md's state; symbolic links in
and around `.memdesk/`), runs the verbs a person would run, and checks that no file
outside the working directory was read, written or deleted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store

SECRET = "outside-file-content-that-must-never-be-read"


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `folder` with its bytes and modification time."""
    out: dict[str, tuple[bytes, int]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[path.relative_to(folder).as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the working directory, with files an attacker would aim at."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.toml").write_text(f'secret = "{SECRET}"\n', "utf-8")
    (folder / "passwd").write_text(
        "\n".join(f"user{i}:x:{i}:{i}:{SECRET}:/home/u{i}:/bin/sh" for i in range(25)) + "\n",
        "utf-8",
    )
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    Store.init(root)
    return root


# Relative ids that climb from .memdesk/entries/ (or .memdesk/conflicts/) to outside/.
CLIMB = "../../../outside/victim"
CLIMB_NEW = "../../../outside/pwned"


def assert_untouched(before: dict[str, tuple[bytes, int]], outside: Path) -> None:
    assert snapshot(outside) == before
    assert not (outside / "pwned.toml").exists()


def nothing_read_into(root: Path) -> None:
    """The outside files' text reached no file of the working directory."""
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert SECRET.encode() not in path.read_bytes(), path


# -- ids from data ------------------------------------------------------------------------


def test_pending_batch_id_cannot_delete_outside(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    pending = {"group": "g1", "ops": [{"entry_id": CLIMB, "before": None, "after": {}}]}
    (repo / ".memdesk/pending-batch.json").write_text(json.dumps(pending), "utf-8")
    listed = cli("--dir", str(repo), "list")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    assert_untouched(before, outside)
    problems = cli("--dir", str(repo), "problems")
    assert "pending-batch.json" in problems.stdout and "not an entry id" in problems.stdout


def test_journal_delete_record_cannot_create_outside(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    forged = Entry(summary="planted by a branch", id="x1").to_json()
    record = {
        "op": "delete",
        "entry_id": CLIMB_NEW,
        "actor": "cli",
        "group": "g2",
        "before": forged,
        "version_before": 1,
    }
    with (repo / ".memdesk/journal.jsonl").open("a", encoding="utf-8") as journal:
        journal.write(json.dumps(record) + "\n")
    undone = cli("--dir", str(repo), "undo")
    assert undone.returncode == 1
    assert "not an entry id" in undone.stderr and "Traceback" not in undone.stderr
    assert_untouched(before, outside)
    problems = cli("--dir", str(repo), "problems")
    assert "journal.jsonl:1" in problems.stdout and "not an entry id" in problems.stdout


def test_conflict_file_cannot_unlink_or_write_outside(repo: Path, outside: Path) -> None:
    before = snapshot(outside)
    store = Store.open(repo)
    entry = store.add(Entry(summary="the build uses make"))
    forged = {
        "entry_id": CLIMB,
        "base": None,
        "ours": entry.to_json(),
        "theirs": entry.to_json(),
        "fields": [],
        "merged": entry.to_json(),
        "kind": "conflict-markers",
        "path": "../outside/victim.toml",
    }
    (repo / ".memdesk/conflicts/x.json").write_text(json.dumps(forged), "utf-8")
    forged_path = {**forged, "entry_id": entry.id}
    (repo / ".memdesk/conflicts/y.json").write_text(json.dumps(forged_path), "utf-8")
    assert store.open_conflicts() == []  # neither is offered
    kinds = {(p.path, p.kind) for p in store.problems}
    assert (".memdesk/conflicts/x.json", "unsafe-id") in kinds
    assert (".memdesk/conflicts/y.json", "unsafe-path") in kinds
    from memdesk.core.merge import Conflict
    from memdesk.core.store import StoreError

    for data in (forged, forged_path):
        with pytest.raises(StoreError, match="refused"):
            store.resolve_conflict(Conflict.from_json(data), entry.to_json())
    assert_untouched(before, outside)


def test_memory_md_state_names_cannot_delete_outside(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    state = {
        "rendered": [],
        "ingested": [],
        "retired": {"../../outside/passwd": 0},
        "live": [0, 0],
        "drained": ["../../outside/victim.toml"],
    }
    (repo / ".memdesk/memory_md.json").write_text(json.dumps(state), "utf-8")
    (repo / "MEMORY.md").write_text("- the tests run with pytest\n", "utf-8")
    problems = cli("--dir", str(repo), "problems").stdout
    assert problems.count("memory_md.json: ") == 2
    assert "is not a retired MEMORY.md file name" in problems
    assert cli("--dir", str(repo), "ingest").returncode == 0
    assert cli("--dir", str(repo), "render").returncode == 0
    assert_untouched(before, outside)
    nothing_read_into(repo)


def test_ids_typed_at_the_cli_cannot_reach_outside(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    for verb in (["show"], ["delete"], ["reject"], ["approve"], ["edit", "--summary", "x"]):
        done = cli("--dir", str(repo), *verb, CLIMB)
        assert done.returncode == 1, (verb, done.stdout)
        assert "Traceback" not in done.stderr
    assert_untouched(before, outside)


# -- symbolic links -----------------------------------------------------------------------


def test_inbox_link_to_an_outside_file_gives_no_candidates(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    (repo / ".memdesk/inbox/notes.txt").symlink_to(outside / "passwd")
    (repo / ".memdesk/inbox/etc-passwd.txt").symlink_to("/etc/passwd")
    done = cli("--dir", str(repo), "extract", "--sources")
    assert "Traceback" not in done.stderr
    listed = cli("--dir", str(repo), "list", "--json")
    assert "root:x" not in listed.stdout and SECRET not in listed.stdout
    nothing_read_into(repo)
    assert_untouched(before, outside)
    problems = cli("--dir", str(repo), "problems").stdout
    assert ".memdesk/inbox/notes.txt: is a symbolic link to" in problems
    assert ".memdesk/inbox/etc-passwd.txt" in problems


def test_memory_md_link_outside_is_neither_ingested_nor_rewritten(
    repo: Path, outside: Path, cli
) -> None:
    before = snapshot(outside)
    (repo / "MEMORY.md").symlink_to(outside / "passwd")
    store = Store.open(repo)
    entry = store.add(Entry(summary="deploys go through the staging branch"))
    store.approve([entry.id])  # renders MEMORY.md
    assert store.ingest_memory_md() == []
    for verb in ("ingest", "render"):
        assert cli("--dir", str(repo), verb).returncode == 0
    assert (repo / "MEMORY.md").is_symlink()
    assert_untouched(before, outside)
    nothing_read_into(repo)
    assert "MEMORY.md: is a symbolic link to" in cli("--dir", str(repo), "problems").stdout


@pytest.mark.parametrize("name", ["entries", "inbox", "conflicts", "index", "retired"])
def test_memdesk_folder_linked_outside_is_refused(
    repo: Path, outside: Path, cli, name: str
) -> None:
    store = Store.open(repo)
    store.add(Entry(summary="the api listens on port 8080", id="e1"))
    target = outside / name
    target.mkdir()
    (target / "e1.toml").write_text((repo / ".memdesk/entries/e1.toml").read_text("utf-8"))
    before = snapshot(outside)
    folder = repo / ".memdesk" / name
    if folder.exists():
        import shutil

        shutil.rmtree(folder)
    folder.symlink_to(target)
    for verb in (
        ["edit", "e1", "--summary", "changed"],
        ["list"],
        ["render"],
        ["extract", "--sources"],
    ):
        done = cli("--dir", str(repo), *verb)
        assert done.returncode == 1, (verb, done.stdout)
        assert f".memdesk/{name}: is a symbolic link to" in done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    problems = cli("--dir", str(repo), "problems")
    assert problems.returncode == 1 and f".memdesk/{name}: is a symbolic link" in problems.stdout
    assert_untouched(before, outside)


@pytest.mark.parametrize("name", ["journal.jsonl", "lock", "settings.toml", "pending-batch.json"])
def test_memdesk_file_linked_outside_is_neither_read_nor_written(
    repo: Path, outside: Path, cli, name: str
) -> None:
    path = repo / ".memdesk" / name
    path.unlink(missing_ok=True)
    if name == "lock":  # a dangling link: opening it with O_CREAT would create outside
        path.symlink_to(outside / "created-by-lock")
    else:
        path.symlink_to(outside / "passwd")
    before = snapshot(outside)
    done = cli("--dir", str(repo), "add", "the cache lives in redis")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f".memdesk/{name}: is a symbolic link to" in done.stderr
    assert_untouched(before, outside)
    assert not (outside / "created-by-lock").exists()


def test_journal_and_lock_links_inside_are_not_followed_either(repo: Path) -> None:
    """O_NOFOLLOW: memdesk appends only to its own files, never through a link."""
    from memdesk.core.atomic import FileLock, append_line_durably
    from memdesk.core.safepath import UnsafePath

    other = repo / "notes.txt"
    other.write_text("mine\n", "utf-8")
    link = repo / "link"
    link.symlink_to(other)
    with pytest.raises(UnsafePath, match="symbolic link"):
        append_line_durably(link, "{}")
    with pytest.raises(UnsafePath, match="symbolic link"):
        FileLock(link).acquire()
    assert other.read_text("utf-8") == "mine\n"


def test_memdesk_folder_itself_linked_outside_is_refused(
    tmp_path: Path, outside: Path, cli
) -> None:
    Store.init(outside)
    before = snapshot(outside)
    root = tmp_path / "repo2"
    root.mkdir()
    (root / ".memdesk").symlink_to(outside / ".memdesk")
    done = cli("--dir", str(root), "add", "a fact")
    assert done.returncode == 1 and ".memdesk: is a symbolic link to" in done.stderr
    assert cli("--dir", str(root), "init").returncode == 1
    assert_untouched(before, outside)


def test_entry_file_link_outside_is_refused(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    (repo / ".memdesk/entries/victim.toml").symlink_to(outside / "victim.toml")
    assert "victim" not in cli("--dir", str(repo), "list").stdout
    edited = cli("--dir", str(repo), "edit", "victim", "--summary", "x")
    assert edited.returncode == 1
    assert "symlink leads outside" in cli("--dir", str(repo), "problems").stdout
    assert_untouched(before, outside)


def test_conflict_and_retired_files_linked_outside_are_not_read(repo: Path, outside: Path) -> None:
    (outside / "c.json").write_text(json.dumps({"entry_id": "e9", "secret": SECRET}), "utf-8")
    before = snapshot(outside)
    (repo / ".memdesk/conflicts/e9.json").symlink_to(outside / "c.json")
    (repo / ".memdesk/retired").mkdir(exist_ok=True)
    (repo / ".memdesk/retired/MEMORY.md.12345").symlink_to(outside / "passwd")
    store = Store.open(repo)
    assert store.open_conflicts() == []
    assert store.ingest_memory_md() == []
    paths = {p.path for p in store.problems if p.kind == "symlink"}
    assert {".memdesk/conflicts/e9.json", ".memdesk/retired/MEMORY.md.12345"} <= paths
    nothing_read_into(repo)
    assert snapshot(outside) == before


# -- settings -----------------------------------------------------------------------------


def test_settings_command_does_not_run_until_allowed(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    settings = repo / ".memdesk/settings.toml"
    payload = f"import pathlib; pathlib.Path({str(outside / 'pwned.toml')!r}).write_text('x')"
    command = json.dumps(["python3", "-c", payload])
    settings.write_text(settings.read_text() + f"\n[extractor]\ncommand = {command}\n")
    (repo / ".memdesk/inbox/talk.jsonl").write_text(
        json.dumps({"role": "user", "content": "remember: the queue is rabbitmq"}) + "\n"
    )
    done = cli("--dir", str(repo), "extract", "--sources")
    assert "Traceback" not in done.stderr
    assert "extractor.command" in done.stderr and "is not allowed on this machine" in done.stderr
    assert_untouched(before, outside)
    (repo / "talk.jsonl").write_text((repo / ".memdesk/inbox/talk.jsonl").read_text())
    transcripts = f'\n[sources]\ntranscripts = ["{outside}/passwd", "talk.jsonl"]\n'
    settings.write_text(settings.read_text() + transcripts)
    for verb in (["extract", "--sources"], ["consolidate", "--dry-run"]):
        done = cli("--dir", str(repo), *verb)
        assert "Traceback" not in done.stderr, verb
        assert "sources.transcripts" in done.stderr and "not allowed" in done.stderr, verb
        assert "extractor.command" in done.stderr, verb
    nothing_read_into(repo)
    assert_untouched(before, outside)


def test_search_index_file_linked_outside_is_refused(repo: Path, outside: Path, cli) -> None:
    before = snapshot(outside)
    segments = repo / ".memdesk/index/vectors/model"
    segments.mkdir(parents=True)
    (segments / "seg-000001.npz").symlink_to(outside / "passwd")
    done = cli("--dir", str(repo), "search", "anything")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "seg-000001.npz: is a symbolic link to" in done.stderr and "rebuilt" in done.stderr
    assert_untouched(before, outside)


def test_inbox_subfolder_linked_outside_is_not_read(repo: Path, outside: Path) -> None:
    from memdesk.core.extract.inbox import ingest_path, ingest_sources

    before = snapshot(outside)
    (repo / ".memdesk/inbox/sub").symlink_to(outside)
    store = Store.open(repo)
    assert all(r.added == [] for r in ingest_sources(store))
    refused = ingest_path(store, repo / ".memdesk/inbox/sub/passwd")  # as a watcher would
    assert refused.added == [] and "outside the working directory" in refused.error
    assert store.entries() == []
    assert ".memdesk/inbox/sub" in {p.path for p in store.problems if p.kind == "symlink"}
    nothing_read_into(repo)
    assert snapshot(outside) == before
