"""What a repository's settings ask to run, and whether the person allowed it here.

`.memdesk/settings.toml` travels with the repository, so whoever wrote the branch you
pulled chose its `[extractor] command`, its `callable`, and which transcript files
outside the working directory to read. None of that runs (or is read) until the person
allows it on this machine, as git does with `safe.directory` and direnv with `allow`.

Trust is kept outside every repository, in `$MEMDESK_TRUST_FILE`, else
`$XDG_CONFIG_HOME/memdesk/trust.toml` (`~/.config/memdesk/trust.toml`). A record names
the working directory by its real path and holds a fingerprint (sha256) of each allowed
request; a changed command, or a changed script inside the project that it names, is
a new request and needs allowing again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from memdesk.core.atomic import atomic_write_text
from memdesk.core.extract.messages import log
from memdesk.core.extract.settings import ExtractorSettings, ExtractSettings
from memdesk.core.safepath import is_inside
from memdesk.core.toml_errors import loads_toml

TRUST_ENV = "MEMDESK_TRUST_FILE"
_warned: set[tuple[str, str]] = set()  # (dir, fingerprint): say each refusal once


@dataclass(frozen=True)
class Request:
    """One thing the settings ask to run or read: `key` names the setting."""

    # extractor.command, extractor.callable, sources.transcripts, context.tokenizer,
    # mcp.confirm_clients, and the agents' folders (sources.homes.*, memfiles.*)
    key: str
    value: str  # the command line, the callable, the glob, as a person reads it
    # What else the request runs: the digest of the project files a command names (its
    # script) and of its settings table; a pull that changes them needs allowing again.
    content: str = ""

    @property
    def fingerprint(self) -> str:
        data = f"{self.key}\0{self.value}".encode()
        if self.content:
            data += b"\0" + self.content.encode()
        return "sha256:" + hashlib.sha256(data).hexdigest()

    def __str__(self) -> str:
        return f"{self.key} = {self.value}"


@dataclass
class TrustRecord:
    """What the person allowed for one working directory."""

    dir: str
    allowed: list[str] = field(default_factory=list)  # fingerprints
    what: list[str] = field(default_factory=list)  # the requests, readable
    time: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"dir": self.dir, "allowed": self.allowed, "what": self.what, "time": self.time}


class TrustError(Exception):
    """The trust file cannot be read or written; the message says which and why."""


def trust_file() -> Path:
    override = os.environ.get(TRUST_ENV)
    if override:
        return Path(override).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    return Path(config) / "memdesk" / "trust.toml"


def real_dir(root: Path | str) -> str:
    return os.path.realpath(root)


# -- what the settings ask for ----------------------------------------------------------


def extractor_request(
    settings: ExtractorSettings, root: Path | str | None = None
) -> Request | None:
    """The plug-in the extractor settings would run, if any. With `root` (the working
    directory), its fingerprint also covers the content of each file inside the project
    the command names (its script), or of the callable's module file."""
    if settings.use == "command" and settings.command:
        request = Request("extractor.command", shlex.join(settings.command))
        named = list(settings.command)
    elif settings.use == "callable" and settings.callable:
        request = Request("extractor.callable", settings.callable)
        module = settings.callable.partition(":")[0].replace(".", os.sep)
        named = [module + ".py", os.path.join(module, "__init__.py")]
    else:
        return None
    if root is None:
        return request
    return dataclasses.replace(request, content=_content_digest(settings, named, root))


def _content_digest(settings: ExtractorSettings, named: list[str], root: Path | str) -> str:
    """sha256 of what the `[extractor]` table says to run (use, command, callable: not its
    timeout or thresholds, which consolidation overrides and which run nothing) and of
    the content of the project files among `named`."""
    digest = hashlib.sha256(repr((settings.use, settings.command, settings.callable)).encode())
    for word in named:
        path = os.path.join(os.fspath(root), os.path.expanduser(word))
        if not os.path.isfile(path) or not is_inside(path, root):
            continue
        try:
            data = Path(path).read_bytes()
        except OSError:
            data = b"<unreadable>"
        digest.update(b"\0" + os.path.realpath(path).encode() + b"\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def transcripts_request(pattern: str) -> Request:
    return Request("sources.transcripts", pattern)


def glob_leaves(pattern: str, root: Path | str) -> bool:
    """Whether a transcript glob names (or matches) files outside the working directory:
    by its text, through a folder linked outside, or a matched file linked outside.
    Nothing outside is listed to find out (`safe_glob.confined_glob`)."""
    from memdesk.core.safe_glob import confined_glob, fixed_parts

    expanded = os.path.expanduser(pattern)
    if not os.path.isabs(expanded):
        expanded = os.path.join(os.fspath(root), expanded)
    fixed = fixed_parts(expanded)
    if not is_inside(os.path.join(*fixed) if fixed else os.sep, root):
        return True
    found = confined_glob(expanded, root)
    return bool(found.refused) or any(not is_inside(p, root) for p in found.matches)


def tokenizer_request(value: object, root: Path | str) -> Request | None:
    """`[context] tokenizer` as a path that leaves the working directory (and is not a
    file of an installed package): a file a repository could aim at /etc/shadow."""
    from memdesk.core.context.settings import TOKENIZER_NAMES

    if not isinstance(value, str) or value in TOKENIZER_NAMES:
        return None
    path = os.path.realpath(os.path.join(os.fspath(root), os.path.expanduser(value)))
    if is_inside(path, root) or any(is_inside(path, d) for d in _package_dirs()):
        return None
    return Request("context.tokenizer", path)


def confirm_clients_request(raw_settings: Mapping[str, Any]) -> Request | None:
    """`[mcp] confirm_clients`: agents whose proposals skip the person's review. From a
    repository's settings that is the branch deciding what every agent is told, so it
    counts only once allowed here; the fingerprint covers the names (a new one asks
    again)."""
    table = raw_settings.get("mcp")
    clients = table.get("confirm_clients") if isinstance(table, Mapping) else None
    if not isinstance(clients, list) or not clients:
        return None
    if not all(isinstance(c, str) for c in clients):
        return None  # a settings error, said by the `[mcp]` parser
    return Request("mcp.confirm_clients", ", ".join(sorted(set(clients))))


def _package_dirs() -> list[str]:
    """Where installed packages live: a tokenizer.json shipped with one is no secret."""
    import sysconfig

    paths = sysconfig.get_paths()
    found = {paths[k] for k in ("purelib", "platlib") if k in paths}
    found.add(str(Path(__file__).resolve().parent.parent))  # memdesk's own files
    return sorted(found)


def folder_request(key: str, value: str, root: Path | str) -> Request | None:
    """An agent's folder the settings name (`[sources] homes`, `[memfiles] claude_dir`,
    `codex_home`) outside the working directory: listed only once allowed here, or a
    repository could have memdesk list (and read) any folder of the machine."""
    path = os.path.join(os.fspath(root), os.path.expanduser(value))
    return None if is_inside(path, root) else Request(key, value)


def allowed_folders(root: Path | str, prefix: str, folders: Mapping[str, str]) -> dict[str, str]:
    """`folders` (`{name: folder}` of the table `prefix`) less those outside the working
    directory not allowed here (each refusal said once: the agent's default is used)."""
    out: dict[str, str] = {}
    for name, value in folders.items():
        request = folder_request(f"{prefix}.{name}", value, root)
        if request is not None and not is_allowed(root, request):
            refuse_once(request, root)
            continue
        out[name] = value
    return out


def _folder_requests(raw_settings: Mapping[str, Any], root: Path | str) -> list[Request]:
    from memdesk.core.memfiles.settings import memfiles_settings

    homes = ExtractSettings.from_mapping(raw_settings).sources.homes
    memfiles = memfiles_settings(raw_settings)
    named = [(f"sources.homes.{k}", v) for k, v in sorted(homes.items())]
    named += [
        ("memfiles.claude_dir", memfiles.claude_dir),
        ("memfiles.codex_home", memfiles.codex_home),
    ]
    found = [folder_request(key, value, root) for key, value in named if value]
    return [r for r in found if r is not None]


def requests(raw_settings: Mapping[str, Any], root: Path | str) -> list[Request]:
    """Everything the settings ask to run or read outside; raises SettingsError."""
    settings = ExtractSettings.from_mapping(raw_settings)
    found: list[Request] = []
    plugin = extractor_request(settings.extractor, root)
    if plugin is not None:
        found.append(plugin)
    found += [transcripts_request(p) for p in settings.sources.transcripts if glob_leaves(p, root)]
    context = raw_settings.get("context")
    tokenizer = (
        tokenizer_request(context.get("tokenizer"), root) if isinstance(context, dict) else None
    )
    if tokenizer is not None:
        found.append(tokenizer)
    confirm = confirm_clients_request(raw_settings)
    if confirm is not None:
        found.append(confirm)
    return found + _folder_requests(raw_settings, root)


# -- the trust file ---------------------------------------------------------------------


def load_records() -> list[TrustRecord]:
    path = trust_file()
    try:
        data = loads_toml(path.read_text("utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TrustError(f"{path}: cannot read the trust file: {exc}") from exc
    out: list[TrustRecord] = []
    for item in data.get("allow", []):
        if isinstance(item, dict) and isinstance(item.get("dir"), str):
            out.append(
                TrustRecord(
                    item["dir"],
                    [str(f) for f in item.get("allowed", [])],
                    [str(w) for w in item.get("what", [])],
                    str(item.get("time", "")),
                )
            )
    return out


def _save(records: list[TrustRecord]) -> None:
    path = trust_file()
    header = "# memdesk: what each working directory's settings may run on this machine\n"
    body = tomli_w.dumps({"allow": [r.to_dict() for r in records]})
    try:
        atomic_write_text(path, header + body)
        os.chmod(path, 0o600)
    except OSError as exc:
        raise TrustError(f"{path}: cannot write the trust file: {exc.strerror}") from exc


def record_for(root: Path | str) -> TrustRecord | None:
    key = real_dir(root)
    return next((r for r in load_records() if r.dir == key), None)


def is_allowed(root: Path | str, request: Request) -> bool:
    try:
        record = record_for(root)
    except TrustError as exc:
        log.warning("memdesk: %s", exc)
        return False
    return record is not None and request.fingerprint in record.allowed


def allow(root: Path | str, wanted: list[Request]) -> TrustRecord:
    """Allow exactly `wanted` for this working directory (what was allowed before goes)."""
    key = real_dir(root)
    records = [r for r in load_records() if r.dir != key]
    stamp = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    record = TrustRecord(key, [r.fingerprint for r in wanted], [str(r) for r in wanted], stamp)
    _save([*records, record])
    return record


def allow_also(root: Path | str, wanted: list[Request]) -> TrustRecord:
    """Add `wanted` to what is allowed for this working directory (for settings the
    person writes through memdesk on this machine, e.g. `memdesk sources --add`)."""
    key = real_dir(root)
    records = load_records()
    record = next((r for r in records if r.dir == key), None) or TrustRecord(key)
    for request in wanted:
        if request.fingerprint not in record.allowed:
            record.allowed.append(request.fingerprint)
            record.what.append(str(request))
    record.time = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    _save([*(r for r in records if r.dir != key), record])
    return record


def revoke(root: Path | str) -> bool:
    """Forget what was allowed for this working directory; False when nothing was."""
    key = real_dir(root)
    records = load_records()
    kept = [r for r in records if r.dir != key]
    if len(kept) == len(records):
        return False
    _save(kept)
    return True


def refusal(request: Request, root: Path | str, instead: str = "skipped") -> str:
    """The one line a skipped request gets (`instead`: what is done in its place)."""
    return (
        f"memdesk: {request} in {Path(root) / '.memdesk/settings.toml'} is not allowed on "
        f"this machine; {instead} (run `memdesk --dir {shlex.quote(os.fspath(root))} trust` "
        "to allow it)"
    )


def refuse_once(request: Request, root: Path | str, instead: str = "skipped") -> str:
    """The refusal line, logged the first time this process meets it."""
    line = refusal(request, root, instead)
    key = (real_dir(root), request.fingerprint)
    if key not in _warned:
        _warned.add(key)
        log.warning("%s", line)
    return line


__all__ = [
    "TRUST_ENV",
    "Request",
    "TrustError",
    "TrustRecord",
    "allow",
    "allowed_folders",
    "confirm_clients_request",
    "extractor_request",
    "folder_request",
    "glob_leaves",
    "is_allowed",
    "load_records",
    "record_for",
    "refusal",
    "refuse_once",
    "requests",
    "revoke",
    "transcripts_request",
    "trust_file",
]
