"""What the command line prints goes through `show_controls`: a terminal escape stored in
an entry, a file name or a message is shown as "␛", never run by the terminal."""

from __future__ import annotations

from typing import Any, TextIO

from memdesk.core.controls import show_controls


class SafeStream:
    """A text stream that shows control characters instead of writing them."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        if text == "\r":  # print(..., end="\r"): a progress line of memdesk's own
            return self._inner.write(text)
        return self._inner.write(show_controls(text))

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...
        return getattr(self._inner, name)


def install(streams: Any) -> None:
    """Wrap `streams.stdout` and `streams.stderr` (the `sys` module) once."""
    for name in ("stdout", "stderr"):
        stream = getattr(streams, name)
        if stream is not None and not isinstance(stream, SafeStream):
            setattr(streams, name, SafeStream(stream))
