"""core/plain_file.py: a repository file is read only when it is a plain file, and only
up to a limit; anything else is one line naming the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core import plain_file
from memdesk.core.jsonfile import read_json


def test_reads_a_plain_file(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_bytes(b"x = 1\r\ny = 2\n")
    assert plain_file.read_bytes(path) == b"x = 1\r\ny = 2\n"
    assert plain_file.read_text(path) == "x = 1\ny = 2\n"  # as Path.read_text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    os.mkfifo(path)
    with pytest.raises(plain_file.NotPlainFile) as caught:
        plain_file.read_bytes(path)
    assert str(caught.value) == f"{path}: is a named pipe (FIFO), not a file; not read"
    with pytest.raises(OSError):
        plain_file.open_plain(path)
    with pytest.raises(OSError):
        read_json(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "settings.toml"
    link.symlink_to("/dev/zero")
    with pytest.raises(plain_file.NotPlainFile, match="is a device"):
        plain_file.read_bytes(link)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        plain_file.read_bytes(tmp_path)


def test_a_larger_file_is_too_large(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(b"#" * 2000)
    assert plain_file.read_bytes(path, 2000) == b"#" * 2000
    with pytest.raises(plain_file.NotPlainFile, match="too large"):
        plain_file.read_bytes(path, 1999)


def test_missing_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        plain_file.read_bytes(tmp_path / "nothing")
