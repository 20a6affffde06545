"""`[context]` of `.memdesk/settings.toml`, and the strict loader of the whole file.

Each top-level table (`[context]`, `[search]`, ...) belongs to one component; the one
list of tables and their parsers is `memdesk.core.settings.SECTIONS`, and every table in
it is checked whatever the caller imported. `load_settings` / `save_settings` stop at
the first bad value (a `SettingsError` naming the key and what is allowed); tables no
component knows are kept as plain data (the typed loader, `memdesk.core.settings`,
names them). Readers that want every problem at once, or read often, use
`memdesk.core.settings.load` / `SettingsFile`.
"""

from __future__ import annotations

import dataclasses
import logging
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from memdesk.core import plain_file
from memdesk.core.toml_errors import describe_toml_error, loads_toml

log = logging.getLogger("memdesk.context")

SETTINGS_FILE = "settings.toml"

UNITS: tuple[str, ...] = ("tokens", "chars")
TOKENIZER_NAMES: tuple[str, ...] = ("auto", "estimate", "o200k_base", "cl100k_base")
FORMATS: tuple[str, ...] = ("agent", "markdown")
# Section names an assembly can place entries in; see assembler.SECTION_OF_KIND.
SECTION_NAMES: tuple[str, ...] = (
    "project",
    "commands",
    "experience",
    "preferences",
    "events",
    "resources",
)
BUILTIN_PURPOSES: dict[str, tuple[str, ...]] = {
    # Seed 004: project facts/architecture > commands/environment > debugging/experience >
    # user preferences > global resources. Events are not in the seed's coding list; they
    # go last so they only fill space nothing else wants.
    "coding": ("project", "commands", "experience", "preferences", "resources", "events"),
    # Seed 004: profile/preferences > current events > recent experiences > project facts >
    # large resources. Commands travel with project facts here.
    "chat": ("preferences", "events", "experience", "project", "commands", "resources"),
}


class SettingsError(ValueError):
    """A bad value in settings.toml; the message names the key and what is allowed."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(f"settings: {key}: {message}" if key else message)


@dataclass
class ContextSettings:
    purpose: str = "coding"
    budget: int = 800
    unit: str = "tokens"
    half_life_days: float = 30.0
    include_candidates: bool = False
    format: str = "agent"
    # "auto" (a real BPE tokenizer when one is installed, else the calibrated estimate),
    # "estimate", "o200k_base", "cl100k_base", or a path to a tokenizer.json.
    tokenizer: str = "auto"
    cache_ttl_seconds: float = 300.0
    # Write each entry's kind, scope, source and time into the block (costs tokens;
    # `memdesk context --explain` shows them beside the block instead).
    metadata: bool = False
    # User-defined purposes (and overrides of the built-in ones): name -> section order.
    purposes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def sections_for(self, purpose: str) -> tuple[str, ...]:
        if purpose in self.purposes:
            return self.purposes[purpose]
        if purpose in BUILTIN_PURPOSES:
            return BUILTIN_PURPOSES[purpose]
        raise SettingsError(
            "context.purpose",
            f"unknown purpose {purpose!r}; allowed: {', '.join(self.purpose_names())}",
        )

    def purpose_names(self) -> list[str]:
        return sorted({*BUILTIN_PURPOSES, *self.purposes})

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "purposes"
        }
        if self.purposes:
            out["purposes"] = {name: {"sections": list(s)} for name, s in self.purposes.items()}
        return out


def _expect(value: Any, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise SettingsError(key, f"must be {what}, got {value!r}")
    if not isinstance(value, kind):
        raise SettingsError(key, f"must be {what}, got {value!r}")
    return value


def check_table(value: Any, section: str, allowed: Sequence[str]) -> Mapping[str, Any]:
    """A settings section must be a table of known keys; the error names the first
    unknown key and lists `allowed` in the order given. Shared by every section parser."""
    if not isinstance(value, Mapping):
        raise SettingsError(section, f"must be a table, got {value!r}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise SettingsError(
            f"{section}.{unknown[0]}", f"unknown key; allowed: {', '.join(allowed)}"
        )
    return value


def parse_context(table: Mapping[str, Any]) -> ContextSettings:
    """Validate `[context]`; every default applies when a key is missing."""
    check_table(table, "context", sorted(f.name for f in dataclasses.fields(ContextSettings)))
    out = ContextSettings()
    purposes: dict[str, tuple[str, ...]] = {}
    raw_purposes = table.get("purposes", {})
    _expect(raw_purposes, "context.purposes", Mapping, "a table of [context.purposes.NAME]")
    for name, spec in raw_purposes.items():
        key = f"context.purposes.{name}"
        _expect(spec, key, Mapping, "a table with `sections = [...]`")
        extra = sorted(set(spec) - {"sections"})
        if extra:
            raise SettingsError(f"{key}.{extra[0]}", "unknown key; allowed: sections")
        sections = _expect(spec.get("sections"), f"{key}.sections", list, "a list of section names")
        bad = [s for s in sections if s not in SECTION_NAMES]
        if bad or not sections:
            raise SettingsError(
                f"{key}.sections",
                f"unknown section {bad[0]!r}; allowed: {', '.join(SECTION_NAMES)}"
                if bad
                else f"must name at least one section; allowed: {', '.join(SECTION_NAMES)}",
            )
        purposes[str(name)] = tuple(dict.fromkeys(sections))
    out.purposes = purposes
    if "purpose" in table:
        out.purpose = _expect(table["purpose"], "context.purpose", str, "text")
        if out.purpose not in out.purpose_names():
            raise SettingsError(
                "context.purpose",
                f"unknown purpose {out.purpose!r}; allowed: {', '.join(out.purpose_names())}",
            )
    if "budget" in table:
        out.budget = _expect(table["budget"], "context.budget", int, "a whole number >= 1")
        if out.budget < 1:
            raise SettingsError("context.budget", f"must be a whole number >= 1, got {out.budget}")
    if "unit" in table:
        out.unit = _choice(table["unit"], "context.unit", UNITS)
    if "format" in table:
        out.format = _choice(table["format"], "context.format", FORMATS)
    if "half_life_days" in table:
        value = _expect(table["half_life_days"], "context.half_life_days", (int, float), "days > 0")
        if value <= 0:
            raise SettingsError("context.half_life_days", f"must be days > 0, got {value}")
        out.half_life_days = float(value)
    if "include_candidates" in table:
        out.include_candidates = _expect(
            table["include_candidates"], "context.include_candidates", bool, "true or false"
        )
    if "metadata" in table:
        out.metadata = _expect(table["metadata"], "context.metadata", bool, "true or false")
    if "tokenizer" in table:
        out.tokenizer = _expect(
            table["tokenizer"],
            "context.tokenizer",
            str,
            "auto, estimate, o200k_base, cl100k_base or a path to tokenizer.json",
        )
    if "cache_ttl_seconds" in table:
        value = _expect(
            table["cache_ttl_seconds"], "context.cache_ttl_seconds", (int, float), "seconds >= 0"
        )
        if value < 0:
            raise SettingsError("context.cache_ttl_seconds", f"must be seconds >= 0, got {value}")
        out.cache_ttl_seconds = float(value)
    return out


def _choice(value: Any, key: str, allowed: tuple[str, ...]) -> str:
    if isinstance(value, str) and value in allowed:
        return value
    raise SettingsError(key, f"must be one of {', '.join(allowed)}; got {value!r}")


# -- the strict loader ----------------------------------------------------------------
@dataclass
class Settings:
    """All of settings.toml: parsed tables for the known sections, raw data for the rest."""

    raw: dict[str, Any] = field(default_factory=dict)
    parsed: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def context(self) -> ContextSettings:
        return self.parsed.get("context") or ContextSettings()

    def section(self, name: str) -> Any:
        if name in self.parsed:
            return self.parsed[name]
        return self.raw.get(name, {})


def parse_settings(data: Mapping[str, Any], *, path: Path | None = None) -> Settings:
    if not isinstance(data, Mapping):
        raise SettingsError("(file)", f"must be a TOML table, got {type(data).__name__}")
    parsed: dict[str, Any] = {}
    if set(data) <= {"context"}:
        # Only [context] (the file `init` writes): the loop below would parse just that
        # table, so skip loading every component's parser; `memdesk context`, the
        # agents' SessionStart hook, stays light (tests/cli/test_cli_light_start.py).
        parsed["context"] = parse_context(data.get("context", {}))
        return Settings(raw=dict(data), parsed=parsed, path=path)
    from memdesk.core.settings import SECTIONS  # the one list of tables (it imports us)

    for name, parser in SECTIONS.items():
        if name in data or name == "context":
            try:
                parsed[name] = parser(data.get(name, {}))
            except SettingsError:
                raise
            except ValueError as exc:  # a component's own error type: same one line
                raise SettingsError("", str(exc)) from exc
    return Settings(raw=dict(data), parsed=parsed, path=path)


def settings_path(root: Path | str) -> Path:
    """`root` may be the working directory, its `.memdesk/`, or the file itself."""
    root = Path(root)
    if root.suffix == ".toml":
        return root
    if root.name == ".memdesk":
        return root / SETTINGS_FILE
    return root / ".memdesk" / SETTINGS_FILE


def load_settings(root: Path | str) -> Settings:
    """Read settings.toml; a missing file means all defaults."""
    path = settings_path(root)
    try:
        data = loads_toml(plain_file.read_text(path))
    except FileNotFoundError:
        return parse_settings({}, path=path)
    except plain_file.NotPlainFile as exc:
        raise SettingsError("", str(exc)) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError("", describe_toml_error(path, exc)) from exc
    settings = parse_settings(data, path=path)
    confine_tokenizer(settings.context, path)
    return settings


def confine_tokenizer(ctx: ContextSettings, settings_file: Path) -> ContextSettings:
    """`ctx` with its tokenizer as every verb must open it: a relative path resolved
    against the working directory (not the process's), and "auto" in place of a path
    that leaves it (absolute, `../`, a link out) without `memdesk trust` here (one line
    says so). Every reader of `[context]` that may count tokens goes through here."""
    if ctx.tokenizer in TOKENIZER_NAMES:
        return ctx
    if not Path(ctx.tokenizer).expanduser().is_absolute():
        # A relative tokenizer.json path means: relative to the working directory (store root).
        ctx.tokenizer = str(settings_file.parent.parent / ctx.tokenizer)
    ctx.tokenizer = _confined_tokenizer(ctx.tokenizer, settings_file)
    return ctx


def store_context_settings(raw: Mapping[str, Any], settings_file: Path) -> ContextSettings:
    """`[context]` of a store's raw settings (`Store.settings`), typed and confined."""
    return confine_tokenizer(context_settings(raw), settings_file)


_REFUSED: set[str] = set()  # each refusal said once per process


def _confined_tokenizer(tokenizer: str, settings_file: Path) -> str:
    """The tokenizer path, or "auto" when it leaves the working directory without the
    person's leave on this machine (`memdesk trust`): the repository's settings choose
    it, and must neither open a file outside nor switch `memdesk context` off."""
    from memdesk.core.trust import is_allowed, refusal, tokenizer_request

    root = settings_file.parent.parent
    request = tokenizer_request(tokenizer, root)
    if request is None or is_allowed(root, request):
        return tokenizer
    line = refusal(request, root).replace("; skipped", "; counting with the default tokenizer")
    if line not in _REFUSED:
        _REFUSED.add(line)
        log.warning("%s", line)
    return "auto"


def save_settings(root: Path | str, data: Mapping[str, Any]) -> Path:
    """Validate, then write atomically (temp file + rename) with tomli-w."""
    parse_settings(data)
    path = settings_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(tomli_w.dumps(dict(data)), encoding="utf-8")
    tmp.replace(path)
    return path


def context_settings(settings: Any = None) -> ContextSettings:
    """Accept what callers have at hand: None, a dict (Store.settings), Settings, ContextSettings."""
    if settings is None:
        return ContextSettings()
    if isinstance(settings, ContextSettings):
        return settings
    if isinstance(settings, Settings):
        return settings.context
    if isinstance(settings, Mapping):
        return parse_context(settings.get("context", {}))
    raise TypeError(f"settings must be a dict, Settings or ContextSettings, not {type(settings)}")
