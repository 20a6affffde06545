"""The `[extractor]` and `[sources]` tables of `.memdesk/settings.toml`.

```toml
[extractor]
use = "heuristic"          # heuristic | cue-lines | command | callable (default: command if
                           # `command` is set, else callable if `callable` is set, else heuristic)
command = "my-llm-extract --json"   # or ["my-llm-extract", "--json"]; JSON in, JSON out
callable = "my_pkg.memory:extract"  # a Python function (messages, opts) or (messages, ctx, opts)
timeout = 60               # seconds a plug-in may take before it is abandoned
max_facts_per_flush = 10   # facts one flush may queue
threshold = 0.6            # the heuristic extractor's write threshold (0..1)
max_per_transcript = 30    # candidates one transcript may queue, best first; the rest
                           # is counted and reported by `memdesk extract`
cap_per_message = 0.3      # a long conversation may queue more: this many per message of
                           # the person or the assistant, when that is above
                           # max_per_transcript (0: the cap is max_per_transcript)
scorer = "learned"         # learned (shipped weights) | rules (hand rules only)

[sources]
transcripts = ["~/.claude/projects/-work-myproj/*.jsonl", "memory/*.md"]   # globs
inbox = true               # also read files dropped into .memdesk/inbox/
homes = { codex = "~/.codex" }   # agents' own folders for `memdesk sources` (optional:
                           # claude, codex, gemini, copilot; default from $HOME and the
                           # agents' variables CLAUDE_CONFIG_DIR, CODEX_HOME ...)
```
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.context.settings import (
    SettingsError,
    check_table,
    load_settings,
    save_settings,
)

# "cue-lines" is the simple baseline (user lines with a cue word, 20-200 characters);
# "seed000" is its first name, still accepted so existing settings files keep working.
USES: tuple[str, ...] = ("heuristic", "cue-lines", "seed000", "command", "callable")
_EXTRACTOR_KEYS = (
    "use",
    "command",
    "callable",
    "timeout",
    "max_facts_per_flush",
    "threshold",
    "max_per_transcript",
    "scorer",
    "cap_per_message",
)
SCORERS: tuple[str, ...] = ("learned", "rules")
DEFAULT_MAX_PER_TRANSCRIPT = 30
DEFAULT_CAP_PER_MESSAGE = 0.3
_SOURCES_KEYS = ("transcripts", "inbox", "homes")
_HOME_KEYS = ("claude", "codex", "gemini", "copilot")


@dataclass(frozen=True)
class ExtractorSettings:
    use: str = "heuristic"
    command: tuple[str, ...] = ()
    callable: str = ""
    timeout: float = 60.0
    max_facts_per_flush: int = 10
    threshold: float = 0.6
    max_per_transcript: int = DEFAULT_MAX_PER_TRANSCRIPT
    scorer: str = "learned"
    cap_per_message: float = DEFAULT_CAP_PER_MESSAGE

    def transcript_cap(self, said: int) -> int:
        """The cap of a transcript holding `said` messages of the person or the assistant
        (ReadStats.said): max_per_transcript, or more for a long conversation, whose
        facts are more (a session of 160 messages may queue 48 at 0.3 per message)."""
        return max(self.max_per_transcript, math.ceil(self.cap_per_message * said))


@dataclass(frozen=True)
class SourcesSettings:
    transcripts: tuple[str, ...] = ()
    inbox: bool = True
    homes: Mapping[str, str] = field(default_factory=dict)  # agent -> its own folder


@dataclass(frozen=True)
class ExtractSettings:
    extractor: ExtractorSettings = field(default_factory=ExtractorSettings)
    sources: SourcesSettings = field(default_factory=SourcesSettings)

    @classmethod
    def from_mapping(cls, settings: Any) -> ExtractSettings:
        """From Store.settings (a dict), a `Settings` object, or None (all defaults)."""
        if settings is None:
            return cls()
        raw = getattr(settings, "raw", settings)
        if not isinstance(raw, Mapping):
            raise SettingsError("(file)", "must be a TOML table")
        return cls(parse_extractor(raw.get("extractor", {})), parse_sources(raw.get("sources", {})))


def parse_extractor(value: Any) -> ExtractorSettings:
    table = check_table(value, "extractor", _EXTRACTOR_KEYS)
    command_raw = table.get("command", ())
    if isinstance(command_raw, str):
        command = tuple(shlex.split(command_raw))
    elif isinstance(command_raw, list | tuple) and all(isinstance(c, str) for c in command_raw):
        command = tuple(command_raw)
    else:
        raise SettingsError(
            "extractor.command",
            f"must be a command line (text) or a list of text, got {command_raw!r}",
        )
    function = table.get("callable", "")
    if not isinstance(function, str) or (function and ":" not in function):
        raise SettingsError(
            "extractor.callable", f"must be 'module.path:function', got {function!r}"
        )
    default_use = "command" if command else "callable" if function else "heuristic"
    use = table.get("use", default_use)
    if use not in USES:
        raise SettingsError("extractor.use", f"must be one of {', '.join(USES)}; got {use!r}")
    if use == "command" and not command:
        raise SettingsError("extractor.use", "is 'command' but extractor.command is not set")
    if use == "callable" and not function:
        raise SettingsError("extractor.use", "is 'callable' but extractor.callable is not set")
    timeout = table.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise SettingsError(
            "extractor.timeout", f"must be a number of seconds > 0, got {timeout!r}"
        )
    cap = table.get("max_facts_per_flush", 10)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise SettingsError(
            "extractor.max_facts_per_flush", f"must be a whole number >= 1, got {cap!r}"
        )
    threshold = table.get("threshold", 0.6)
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0 <= threshold < 1
    ):
        raise SettingsError("extractor.threshold", f"must be a number in [0, 1), got {threshold!r}")
    per_transcript = table.get("max_per_transcript", DEFAULT_MAX_PER_TRANSCRIPT)
    if (
        isinstance(per_transcript, bool)
        or not isinstance(per_transcript, int)
        or per_transcript < 1
    ):
        raise SettingsError(
            "extractor.max_per_transcript", f"must be a whole number >= 1, got {per_transcript!r}"
        )
    scorer = table.get("scorer", "learned")
    if scorer not in SCORERS:
        raise SettingsError(
            "extractor.scorer", f"must be one of {', '.join(SCORERS)}; got {scorer!r}"
        )
    per_message = table.get("cap_per_message", DEFAULT_CAP_PER_MESSAGE)
    if isinstance(per_message, bool) or not isinstance(per_message, int | float) or per_message < 0:
        raise SettingsError(
            "extractor.cap_per_message", f"must be a number >= 0, got {per_message!r}"
        )
    return ExtractorSettings(
        use,
        command,
        function,
        float(timeout),
        cap,
        float(threshold),
        per_transcript,
        scorer,
        float(per_message),
    )


def parse_sources(value: Any) -> SourcesSettings:
    table = check_table(value, "sources", _SOURCES_KEYS)
    globs = table.get("transcripts", [])
    if isinstance(globs, str):
        globs = [globs]
    if not isinstance(globs, list | tuple) or not all(isinstance(g, str) and g for g in globs):
        raise SettingsError(
            "sources.transcripts", f"must be a list of file globs (text), got {globs!r}"
        )
    inbox = table.get("inbox", True)
    if not isinstance(inbox, bool):
        raise SettingsError("sources.inbox", f"must be true or false, got {inbox!r}")
    homes = check_table(table.get("homes", {}), "sources.homes", _HOME_KEYS)
    if not all(isinstance(v, str) and v for v in homes.values()):
        raise SettingsError("sources.homes", f"must map agents to folders (text), got {homes!r}")
    return SourcesSettings(tuple(globs), inbox, dict(homes))


def add_transcript_globs(root: Path | str, globs: list[str]) -> list[str]:
    """Append `globs` to `[sources] transcripts` in the settings file (atomically, keeping
    every other setting); the ones that were not there yet, in order."""
    data = dict(load_settings(root).raw)
    sources = dict(data.get("sources") or {})
    current = sources.get("transcripts", [])
    current = [current] if isinstance(current, str) else list(current)
    new = [g for g in dict.fromkeys(globs) if g not in current]
    if new:
        sources["transcripts"] = current + new
        data["sources"] = sources
        save_settings(root, data)
    return new
