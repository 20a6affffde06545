"""All of `.memdesk/settings.toml` as one typed object, read and checked in one place.

Every table the file may hold is listed in `SECTIONS` with the parser its component
owns (the `[context]` parser lives beside the assembler, `[search]` beside the search
service, ...). `parse` runs every one of them, whatever the caller imported, and names
each problem in one line with the file and the key; a table that is wrong falls back to
its defaults so the rest still applies. A table nobody knows is a problem too (a typo
such as `[serach]` would otherwise be ignored in silence).

`SettingsFile` keeps the parsed object for as long as the file is unchanged: readers
that ask often (the desk, the context preview on every keystroke) get the same object
back and pay for one `stat`, and an edit to the file is picked up on the next ask.

The file's format is unchanged; components that still take the raw mapping get it as
`MemdeskSettings.raw`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core import plain_file
from memdesk.core.agent_api import AgentCallError, AgentSettings
from memdesk.core.consolidate.settings import ConsolidationSettings, parse_consolidation
from memdesk.core.context.settings import (
    ContextSettings,
    SettingsError,
    confine_tokenizer,
    parse_context,
    settings_path,
)
from memdesk.core.extract.settings import (
    ExtractorSettings,
    ExtractSettings,
    SourcesSettings,
    parse_extractor,
    parse_sources,
)
from memdesk.core.memfiles.settings import MemfilesSettings, parse_memfiles
from memdesk.core.search.settings import SearchSettings, SearchSettingsError
from memdesk.core.toml_errors import describe_toml_error, loads_toml

# What each component raises for a bad value of its table.
_SECTION_ERRORS = (SettingsError, SearchSettingsError, AgentCallError)


def parse_keys(value: Any) -> dict[str, str]:
    """`[keys]`: binding id = key(s). Which ids exist is the desk's to say (tui/keymap.py);
    here only the shape: a table."""
    if not isinstance(value, Mapping):
        raise SettingsError("keys", 'must be a table of binding id = "key"')
    return dict(value)


def _parse_search(value: Any) -> SearchSettings:
    if not isinstance(value, Mapping):
        raise SettingsError("search", f"must be a table, got {value!r}")
    return SearchSettings.from_mapping({"search": value})


def _parse_mcp(value: Any) -> AgentSettings:
    return AgentSettings.from_mapping({"mcp": value})


# Every table of settings.toml: its name and the parser of the component that owns it.
SECTIONS: dict[str, Callable[[Any], Any]] = {
    "context": parse_context,
    "search": _parse_search,
    "extractor": parse_extractor,
    "sources": parse_sources,
    "consolidation": parse_consolidation,
    "memfiles": parse_memfiles,
    "mcp": _parse_mcp,
    "keys": parse_keys,
}


@dataclass(frozen=True)
class MemdeskSettings:
    """settings.toml, every table checked; a table that was wrong holds its defaults."""

    path: Path | None = None
    context: ContextSettings = field(default_factory=ContextSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    extractor: ExtractorSettings = field(default_factory=ExtractorSettings)
    sources: SourcesSettings = field(default_factory=SourcesSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)
    memfiles: MemfilesSettings = field(default_factory=MemfilesSettings)
    mcp: AgentSettings = field(default_factory=AgentSettings)
    keys: dict[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)
    # One line per problem: "<file>: <key>: what is wrong; what is allowed".
    problems: tuple[str, ...] = ()
    # table -> its problem line ("" for the file as a whole: not TOML).
    problem_of: Mapping[str, str] = field(default_factory=dict)

    def problem_with(self, table: str) -> str:
        """Why `table` holds its defaults instead of what the file says ("" if it does not)."""
        return self.problem_of.get(table) or self.problem_of.get("", "")

    @property
    def extract(self) -> ExtractSettings:
        """`[extractor]` and `[sources]` together, as ingestion takes them."""
        return ExtractSettings(self.extractor, self.sources)


def _problem_line(path: Path | None, exc: Exception) -> str:
    message = str(exc)
    for prefix in ("settings.toml: ", "settings: "):
        message = message.removeprefix(prefix)
    return f"{path}: {message}" if path is not None else message


def parse(data: Mapping[str, Any], *, path: Path | None = None) -> MemdeskSettings:
    """Check every table of `data`; problems are collected, not raised."""
    problems: dict[str, str] = {}
    values: dict[str, Any] = {}
    for name, parser in SECTIONS.items():
        try:
            values[name] = parser(data.get(name, {}))
        except _SECTION_ERRORS as exc:
            problems[name] = _problem_line(path, exc)
    unknown = [name for name in data if name not in SECTIONS]
    for name in unknown:
        allowed = ", ".join(SECTIONS)
        problems[name] = _problem_line(
            path, SettingsError(name, f"unknown table; allowed: {allowed}")
        )
    context = values.get("context")
    if path is not None and isinstance(context, ContextSettings):
        # Relative to the working directory; outside it only with `memdesk trust`.
        confine_tokenizer(context, path)
    return MemdeskSettings(
        path=path,
        raw=dict(data),
        problems=tuple(problems.values()),
        problem_of=problems,
        **values,
    )


def load(root: Path | str) -> MemdeskSettings:
    """Read and check settings.toml (`root`: the working directory, its `.memdesk/`, or
    the file). A missing file is all defaults; a file that is not TOML is all defaults
    and one problem naming the line."""
    path = settings_path(root)
    try:
        data = loads_toml(plain_file.read_text(path))
    except FileNotFoundError:
        return MemdeskSettings(path=path)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        line = describe_toml_error(path, exc)
        return MemdeskSettings(path=path, problems=(line,), problem_of={"": line})
    except plain_file.NotPlainFile as exc:  # a FIFO, a device, too large
        line = str(exc)
        return MemdeskSettings(path=path, problems=(line,), problem_of={"": line})
    except OSError as exc:  # unreadable: said like any other problem
        line = f"{path}: cannot be read ({exc.strerror or exc})"
        return MemdeskSettings(path=path, problems=(line,), problem_of={"": line})
    return parse(data, path=path)


def check(root: Path | str) -> MemdeskSettings:
    """`load`, raising `SettingsError` with every problem (one per line) if there is one."""
    settings = load(root)
    if settings.problems:
        raise SettingsError("", "\n".join(settings.problems))
    return settings


class SettingsFile:
    """settings.toml of one working directory, parsed again only when the file changed."""

    def __init__(self, root: Path | str) -> None:
        self.path = settings_path(root)
        self._seen: tuple[int, int, int] | None = None
        self._settings: MemdeskSettings | None = None

    def _stamp(self) -> tuple[int, int, int]:
        try:
            stat = self.path.stat()
        except OSError:
            return (0, 0, 0)
        return (stat.st_ino, stat.st_mtime_ns, stat.st_size)

    def current(self) -> MemdeskSettings:
        stamp = self._stamp()
        if self._settings is None or stamp != self._seen:
            self._settings = load(self.path)
            self._seen = stamp
        return self._settings
