"""The gate on managed files: what agents add becomes a candidate; approving, editing,
expiring or superseding changes only that entry's lines."""

from __future__ import annotations

import os
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.memfiles.adopt import adopt
from memdesk.core.store import Store
from memfiles_fixtures import NESTED


def managed(
    tmp_path: Path, text: str = NESTED, name: str = "CLAUDE.md", gate: str = ""
) -> tuple[Store, Path]:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    store = Store.init(tmp_path)
    if gate:
        settings = store.settings_path.read_text("utf-8")
        store.settings_path.write_text(settings + f'\n[memfiles]\ngate = "{gate}"\n', "utf-8")
    adopt(store, path)
    return store, path


def by_summary(store: Store, summary: str) -> Entry:
    return next(e for e in store.entries() if e.summary == summary)


def test_an_appended_line_is_held_then_approved_as_the_only_change(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- 回滚用 `rollback.sh`\n")
    added = store.ingest_memory_md()
    assert [(e.summary, e.status, e.section) for e in added] == [
        ("回滚用 `rollback.sh`", "candidate", ["Project notes", "部署"])
    ]
    assert path.read_text("utf-8") == NESTED  # held out of the file while it waits
    assert store.ingest_memory_md() == []  # read once
    store.approve([added[0].id])
    assert path.read_text("utf-8") == NESTED + "- 回滚用 `rollback.sh`\n"


def test_a_line_inserted_mid_file_comes_back_where_the_agent_put_it(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    edited = NESTED.replace(
        "- Lint with ruff before committing\n",
        "- Lint with ruff before committing\n- Type-check with mypy\n",
    )
    path.write_text(edited, encoding="utf-8")
    (candidate,) = store.ingest_memory_md()
    assert candidate.section == ["Project notes", "Build"]
    assert path.read_text("utf-8") == NESTED
    store.approve([candidate.id])
    assert path.read_text("utf-8") == edited


def test_an_added_bullet_with_its_code_is_one_candidate(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    addition = "\n## Release\n\n- Tag releases with\n  ```bash\n  git tag -s v2\n  ```\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(addition)
    (candidate,) = store.ingest_memory_md()
    assert candidate.summary == "Tag releases with" and candidate.facts == ["git tag -s v2"]
    assert candidate.section == ["Project notes", "Release"]
    store.approve([candidate.id])
    assert path.read_text("utf-8") == NESTED + addition


def test_keep_gate_leaves_the_candidate_in_place_and_reject_removes_it(tmp_path: Path) -> None:
    store, path = managed(tmp_path, gate="keep")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- a guess the agent made\n")
    (candidate,) = store.ingest_memory_md()
    assert path.read_text("utf-8") == NESTED + "- a guess the agent made\n"
    store.reject([candidate.id])
    assert path.read_text("utf-8") == NESTED


def test_edit_expire_and_supersede_change_only_that_entrys_lines(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    lint = by_summary(store, "Lint with ruff before committing")
    store.edit(lint.id, {"summary": "Lint with ruff and mypy before committing"})
    text = NESTED.replace("Lint with ruff before", "Lint with ruff and mypy before")
    assert path.read_text("utf-8") == text

    store.expire([by_summary(store, "Push to main directly").id])
    text = text.replace("- Push to main directly\n", "")
    assert path.read_text("utf-8") == text

    deploy = by_summary(store, "使用 `deploy.sh` 部署到生产环境")
    new = store.add(Entry(summary="使用 `ship.sh` 部署", status="candidate"))
    store.supersede(deploy.id, new.id)
    superseded = text.replace("- 使用 `deploy.sh` 部署到生产环境\n", "- 使用 `ship.sh` 部署\n")
    assert path.read_text("utf-8") == superseded

    store.undo()  # the supersede: the old entry is back in its place
    assert path.read_text("utf-8") == text


def test_crlf_file_keeps_its_line_endings(tmp_path: Path) -> None:
    crlf = NESTED.replace("\n", "\r\n")
    store, path = managed(tmp_path, crlf)
    with open(path, "ab") as handle:
        handle.write(b"- use CRLF here\r\n")
    (candidate,) = store.ingest_memory_md()
    assert path.read_bytes() == crlf.encode()
    store.approve([candidate.id])
    assert path.read_bytes() == crlf.encode() + b"- use CRLF here\r\n"
    store.edit(candidate.id, {"facts": ["on Windows checkouts"]})
    assert path.read_bytes().endswith(b"- use CRLF here\r\n  - on Windows checkouts\r\n")


def test_no_final_newline_and_a_half_written_line(tmp_path: Path) -> None:
    text = NESTED.rstrip("\n")
    store, path = managed(tmp_path, text)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("\n- half a li")  # still being written: left alone
    assert store.ingest_memory_md() == []
    assert path.read_text("utf-8") == text + "\n- half a li"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("ne\n")
    (candidate,) = store.ingest_memory_md()
    assert candidate.summary == "half a line"
    assert path.read_text("utf-8") == text
    store.approve([candidate.id])
    assert path.read_text("utf-8") == text + "\n- half a line\n"


def test_a_late_append_to_the_replaced_file_is_not_lost(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    held_open = open(path, "a", encoding="utf-8")  # noqa: SIM115 - an agent's open handle
    try:
        held_open.write("- first append\n")
        held_open.flush()
        (first,) = store.ingest_memory_md()  # rewrites the file: a new inode
        held_open.write("- written to the old inode\n")
        held_open.flush()
    finally:
        held_open.close()
    late = store.ingest_memory_md()
    assert [e.summary for e in late] == ["written to the old inode"]
    assert first.summary == "first append"
    retired = tmp_path / ".memdesk" / "files" / "retired"
    assert not any(retired.iterdir())  # drained and let go


def test_an_agent_rewriting_the_file_whole_is_diffed_not_reingested(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    rewritten = NESTED.replace("## 部署\n", "## 部署\n\n- 先跑 `smoke.sh`\n")
    tmp = tmp_path / "tmp.md"
    tmp.write_text(rewritten, encoding="utf-8")
    os.replace(tmp, path)  # how editors and agents save
    added = store.ingest_memory_md()
    assert [e.summary for e in added] == ["先跑 `smoke.sh`"]
    assert len(store.entries()) == 7


def test_merging_a_candidate_adds_its_fact_under_the_entry_keeping_the_code(
    tmp_path: Path,
) -> None:
    store, path = managed(tmp_path)
    target = by_summary(store, "Run the tests with `make test`")
    candidate = store.add(Entry(summary="the tests take ten minutes"))
    store.merge_into(candidate.id, target.id)
    assert path.read_text("utf-8") == NESTED.replace(
        "  ```\n- Lint", "  ```\n  - the tests take ten minutes\n- Lint"
    )


def test_a_line_the_agent_changed_is_a_candidate_related_to_the_old_entry(
    tmp_path: Path,
) -> None:
    store, path = managed(tmp_path)
    old = by_summary(store, "Lint with ruff before committing")
    path.write_text(NESTED.replace("Lint with ruff before", "Lint with ruff --fix before"), "utf-8")
    (candidate,) = store.ingest_memory_md()
    assert candidate.summary == "Lint with ruff --fix before committing"
    assert candidate.related == [old.id]
    assert path.read_text("utf-8") == NESTED  # held; the old line stands meanwhile
    store.supersede(old.id, candidate.id)
    assert path.read_text("utf-8") == NESTED.replace("ruff before", "ruff --fix before")


def test_a_removed_file_is_not_written_again(tmp_path: Path) -> None:
    store, path = managed(tmp_path)
    path.unlink()
    store.edit(by_summary(store, "Push to main directly").id, {"summary": "Never push to main"})
    assert not path.exists()


def test_a_managed_file_turned_into_a_link_out_is_neither_read_nor_written(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    store, path = managed(work)
    elsewhere = tmp_path / "someone-elses.md"
    elsewhere.write_text("- a line from outside the working directory\n", "utf-8")
    path.unlink()
    path.symlink_to(elsewhere)  # as a pulled branch could leave it
    assert store.ingest_memory_md() == []
    store.render_memory_md()
    assert elsewhere.read_text("utf-8") == "- a line from outside the working directory\n"
    assert not any("outside the working" in e.summary for e in store.entries())


def test_forged_retired_names_in_a_manifest_are_never_opened_or_deleted(tmp_path: Path) -> None:
    import json

    from memdesk.core.memfiles.manifest import manifest_path

    work = tmp_path / "work"
    work.mkdir()
    store, path = managed(work)
    victim = tmp_path / "victim.txt"
    victim.write_text("- keep me\n", "utf-8")
    record = manifest_path(store.meta_dir, path)
    data = json.loads(record.read_text("utf-8"))
    data["retired"] = {"../../../victim.txt": 0, "../../../../victim.txt": 0}
    (store.meta_dir / "files" / "retired").mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(data), "utf-8")
    assert store.ingest_memory_md() == []
    assert victim.read_text("utf-8") == "- keep me\n"
    assert not any("keep me" in e.summary for e in store.entries())
