"""Terminal escapes in stored text (round 8, R1): an OSC 52 clipboard write or concealed
text in an agent's MEMORY.md line is dropped as it is stored, and whatever control
character still reaches the command line (a file name, an old entry) is printed as a
visible symbol, never as a terminal command."""

from __future__ import annotations

from pathlib import Path

from cli_process import run_cli
from memdesk.cli.safe_output import SafeStream
from memdesk.core.controls import show_controls, strip_controls
from memdesk.core.entry import Entry

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"
LINE = f"- Run make lint{OSC52}\x1b[8m HIDDEN\x1b[0m\n"
RAW = ("\x1b", "\x07", "\x9b", "\r")


def _no_controls(text: str) -> None:
    for char in RAW:
        assert char not in text, repr(text)


def test_memory_md_escapes_are_neither_stored_nor_printed(tmp_path: Path) -> None:
    assert run_cli("--dir", str(tmp_path), "init").returncode == 0
    with (tmp_path / "MEMORY.md").open("a") as handle:
        handle.write(LINE)
    ingest = run_cli("--dir", str(tmp_path), "ingest")
    assert ingest.returncode == 0, ingest.stderr
    listed = run_cli("--dir", str(tmp_path), "list")
    assert "Run make lint" in listed.stdout and "HIDDEN" in listed.stdout  # not concealed
    entry_id = listed.stdout.split()[0]
    for args in (["show", entry_id], ["list", "--json"], ["context"], ["search", "lint"]):
        done = run_cli("--dir", str(tmp_path), *args)
        _no_controls(done.stdout + done.stderr)
    _no_controls(ingest.stdout + ingest.stderr)
    for path in (tmp_path / ".memdesk" / "entries").rglob("*"):
        if path.is_file():
            _no_controls(path.read_text("utf-8"))


def test_a_control_character_that_reaches_the_output_is_shown(tmp_path: Path) -> None:
    assert run_cli("--dir", str(tmp_path), "init").returncode == 0
    name = f"drop{OSC52}.jsonl"
    (tmp_path / ".memdesk" / "inbox" / name).write_text("not a transcript\n")
    done = run_cli("--dir", str(tmp_path), "extract", "--sources")
    _no_controls(done.stdout + done.stderr)
    assert "drop\u241b]52;c;cm0gLXJmIH4K\u2407.jsonl" in done.stderr


def test_show_controls_keeps_tab_and_newline_and_shows_the_rest() -> None:
    assert show_controls("a\tb\nc") == "a\tb\nc"
    assert show_controls("\x1b[8m\x7f\x9b\r") == "\u241b[8m\u2421\\u009b\u240d"
    assert strip_controls(f"x{OSC52}\x1b[8my\r\n") == "x]52;c;cm0gLXJmIH4K[8my\n"


def test_safe_stream_lets_a_progress_carriage_return_through() -> None:
    written: list[str] = []

    class Inner:
        def write(self, text: str) -> int:
            written.append(text)
            return len(text)

    stream = SafeStream(Inner())  # type: ignore[arg-type]
    stream.write("3/10")
    stream.write("\r")
    stream.write("a\rb")
    assert written == ["3/10", "\r", "a\u240db"]


def test_an_entry_read_or_written_drops_control_characters() -> None:
    entry = Entry.from_dict(
        {"id": "m-1", "summary": f"Use pnpm{OSC52}", "facts": ["\x1b[8mhidden\x1b[0m"]}
    )
    assert entry.summary == "Use pnpm]52;c;cm0gLXJmIH4K"
    assert entry.facts == ["[8mhidden[0m"]
