"""Pluggable extractors (seed 000's `extract_fn`), made safe to call.

Two kinds of plug-in:

- a Python callable `(messages, opts)` or `(messages, ctx, opts)` (seed 000's 2- and
  3-argument forms) returning candidates — strings, dicts in the entry format, `Entry`
  objects — or an error: `{"error": ...}`, `("error", why)`, or an exception. Seed 000's
  `{:ok, facts}` may be written `("ok", [...])` or `{"ok": [...]}`;
- an external command (`[extractor] command`, e.g. an LLM CLI): it gets the messages as
  a JSON array on stdin (each `{role, content, session_id, timestamp, locator, kind}`;
  the options are in the `MEMDESK_EXTRACT_OPTS` environment variable as JSON) and
  answers a JSON array of candidates (or `{"candidates": [...]}`, or `{"error": ...}`)
  on stdout.

Whatever goes wrong — an exception, an error answer, a non-zero exit, a timeout, an
answer that is not a list of candidates — the result carries `error`, a warning is
logged, and no candidate is returned: the caller writes nothing and is never blocked
longer than the timeout (seed 000: "MemoryFlush 出问题也不影响主 Agent Loop").
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.entry import Entry, EntryError, Source
from memdesk.core.extract.messages import Message, log
from memdesk.core.jsonfile import BadJSON, loads

DEFAULT_TIMEOUT = 60.0
# Fields a plug-in may set on a candidate; bookkeeping (id, version, dates) is ours.
_CANDIDATE_FIELDS = (
    "summary",
    "kind",
    "scope",
    "confidence",
    "facts",
    "tags",
    "valid_until",
    "related",
    "source",
)


@dataclass
class PluginResult:
    """Candidates from a plug-in, or why there are none."""

    candidates: list[Entry] = field(default_factory=list)
    error: str = ""
    name: str = ""
    # What the recent sessions were about, if the plug-in says (an answer object's
    # "topics"): consolidation's orient phase puts these first.
    topics: list[str] = field(default_factory=list)
    # Said once to the person, not an error: e.g. an extractor not allowed on this
    # machine was skipped and the built-in one ran instead.
    notice: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


def failure(name: str, why: str) -> PluginResult:
    log.warning("extractor %s failed, nothing written: %s", name, why)
    return PluginResult([], why, name)


def load_callable(spec: str) -> Callable[..., Any]:
    """`package.module:function` -> the function (ValueError with the reason if not)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"extractor callable must be 'module:function', got {spec!r}")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:  # an import error inside a plug-in is the plug-in's failure
        raise ValueError(f"cannot import {module_name!r}: {exc}") from exc
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise ValueError(f"{module_name!r} has no attribute {attr!r}")
    if not callable(target):
        raise ValueError(f"{spec!r} is not callable")
    return target


def arity(fn: Callable[..., Any]) -> int:
    """2 or 3: how many positional arguments the extractor takes (seed 000's two forms)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    positional = [
        p
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        return 3
    required = [p for p in positional if p.default is inspect.Parameter.empty]
    return 3 if len(required) >= 3 or (len(positional) >= 3 and len(required) < 2) else 2


def run_callable(
    fn: Callable[..., Any],
    messages: Sequence[Message],
    opts: Mapping[str, Any] | None = None,
    ctx: Any = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    name: str = "",
) -> PluginResult:
    """Call a Python extractor in a worker thread; give up after `timeout` seconds."""
    name = name or getattr(fn, "__qualname__", repr(fn))
    opts = dict(opts or {})
    args = (list(messages), ctx, opts) if arity(fn) == 3 else (list(messages), opts)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - anything a plug-in raises is its failure
            box["error"] = f"raised {type(exc).__name__}: {exc}"

    # A daemon thread: a plug-in stuck forever cannot keep the process alive or block us.
    worker = threading.Thread(target=work, name=f"extractor:{name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return failure(name, f"timed out after {timeout:g}s")
    if "error" in box:
        return failure(name, box["error"])
    return _interpret(box.get("value"), messages, name, origin="plugin")


def run_command(
    command: Sequence[str],
    messages: Sequence[Message],
    opts: Mapping[str, Any] | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    cwd: str | os.PathLike[str] | None = None,
) -> PluginResult:
    """Run an external extractor: JSON messages on stdin, JSON candidates on stdout."""
    name = " ".join(command)[:80] or "(empty command)"
    if not command:
        return failure(name, "no command configured")
    payload = json.dumps([m.to_json() for m in messages], ensure_ascii=False)
    env = dict(os.environ)
    env["MEMDESK_EXTRACT_OPTS"] = json.dumps(dict(opts or {}), ensure_ascii=False, default=str)
    try:
        done = subprocess.run(
            list(command),
            input=payload.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            cwd=cwd,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return failure(name, f"timed out after {timeout:g}s (killed)")
    except OSError as exc:
        return failure(name, f"could not start: {exc}")
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", errors="replace").strip().splitlines()[-3:]
        return failure(name, f"exit status {done.returncode}: {' | '.join(tail) or 'no message'}")
    text = done.stdout.decode("utf-8", errors="replace").strip()
    if not text:
        return PluginResult([], "", name)
    try:
        value = loads(text, "its answer")
    except BadJSON as exc:
        return failure(name, f"answer is not JSON ({exc})")
    return _interpret(value, messages, name, origin="plugin")


def _interpret(value: Any, messages: Sequence[Message], name: str, origin: str) -> PluginResult:
    """Accept seed 000's result shapes; anything else is garbage and nothing is kept."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] in ("ok", "error"):
        if value[0] == "error":
            return failure(name, f"returned an error: {value[1]!r}")
        value = value[1]
    topics: list[str] = []
    if isinstance(value, Mapping):
        if "error" in value:
            return failure(name, f"returned an error: {value['error']!r}")
        raw_topics = value.get("topics", [])
        if not isinstance(raw_topics, list) or not all(isinstance(t, str) for t in raw_topics):
            return failure(name, f"'topics' must be a list of text, got {raw_topics!r:.80}")
        topics = list(dict.fromkeys(t.strip() for t in raw_topics if t.strip()))
        for key in ("ok", "candidates", "facts"):
            if key in value:
                value = value[key]
                break
        else:
            if not topics:
                return failure(
                    name, f"answer is an object without 'candidates': keys {sorted(value)[:5]}"
                )
            value = None  # topics only: an orient answer with nothing to add
    if value is None:
        return PluginResult([], "", name, topics)
    if not isinstance(value, list):
        return failure(name, f"answer must be a list of candidates, got {type(value).__name__}")
    base = _base_source(messages, origin)
    candidates: list[Entry] = []
    for index, item in enumerate(value):
        try:
            candidates.append(to_entry(item, base))
        except (EntryError, TypeError, ValueError) as exc:
            return failure(name, f"candidate #{index} is not usable: {exc}")
    return PluginResult(candidates, "", name, topics)


def _base_source(messages: Sequence[Message], origin: str) -> Source:
    sessions = {m.session_id for m in messages if m.session_id}
    return Source(
        origin=origin,
        session_id=sessions.pop() if len(sessions) == 1 else "",
        timestamp=next((m.timestamp for m in reversed(messages) if m.timestamp), ""),
        locator=messages[0].locator if messages else "",
    )


def to_entry(item: Any, base: Source | None = None) -> Entry:
    """A candidate as a plug-in may give it (text, dict, Entry) -> a fresh candidate Entry."""
    base = base or Source()
    if isinstance(item, Entry):
        entry = item.copy(status="candidate")
    elif isinstance(item, str):
        if not item.strip():
            raise ValueError("empty text")
        entry = Entry(summary=item.strip())
    elif isinstance(item, Mapping):
        data = dict(item)
        if "summary" not in data:
            for alias in ("fact", "text", "content"):
                if alias in data:
                    data["summary"] = data.pop(alias)
                    break
        unknown = sorted(set(data) - set(_CANDIDATE_FIELDS))
        if unknown:
            raise ValueError(f"unknown field(s) {unknown}; allowed: {', '.join(_CANDIDATE_FIELDS)}")
        entry = Entry.from_dict(data)
    else:
        raise TypeError(f"a candidate must be text or an object, got {type(item).__name__}")
    source = entry.source
    entry.source = Source(
        origin=source.origin or base.origin,
        session_id=source.session_id or base.session_id,
        timestamp=source.timestamp or base.timestamp,
        files=list(source.files),
        commands=list(source.commands),
        locator=source.locator or base.locator,
        excerpt=source.excerpt,
    )
    entry.status = "candidate"
    return entry
