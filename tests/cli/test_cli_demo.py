"""`memdesk demo --path DIR --no-open`: copies once, then reuses the copy; never a
traceback on a folder that is already there."""

from __future__ import annotations

from pathlib import Path


def test_demo_copy_then_reuse(tmp_path: Path, cli) -> None:
    target = tmp_path / "demo"
    first = cli("demo", "--path", str(target), "--no-open")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == str(target)
    assert (target / ".memdesk" / "entries").is_dir()
    # A change made in the copy survives a second `demo --path` on it.
    added = cli("--dir", str(target), "add", "A note kept in my demo copy")
    assert added.returncode == 0, added.stderr
    again = cli("demo", "--path", str(target), "--no-open")
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert "already there" in again.stderr
    assert "A note kept in my demo copy" in cli("--dir", str(target), "list").stdout


def test_demo_refuses_a_folder_with_other_files(tmp_path: Path, cli) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = cli("demo", "--path", str(tmp_path), "--no-open")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "not empty" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_no_tui_still_works(tmp_path: Path, cli) -> None:
    result = cli("demo", "--path", str(tmp_path / "d"), "--no-tui")
    assert result.returncode == 0, result.stderr
