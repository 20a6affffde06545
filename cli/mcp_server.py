"""The MCP server (`memdesk mcp`): a thin adapter from the official MCP Python SDK to
`memdesk.core.agent_api`. The tools' logic, checks and messages live there; this file
declares the schemas, turns an `AgentCallError` into an MCP error result, and lists
the read-only resources (the context block and each managed memory file).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import ToolAnnotations
from memdesk.core import agent_api
from memdesk.core.agent_api import AgentCallError
from memdesk.core.memory_files import managed_files, read_managed_file
from memdesk.core.store import Store, StoreError
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

SERVER_NAME = "memdesk"
CONTEXT_URI = "memdesk://context"
FILE_URI = "memdesk://files/{name}"
INSTRUCTIONS = """\
memdesk keeps this project's long-term memory, reviewed by a person.
- `context` gives the memory block to load at the start of a task (or read the
  memdesk://context resource).
- `search` finds confirmed memories; `get` shows one with its history.
- `remember` proposes one concise, durable fact, decision or preference. It waits in the
  person's review queue (status "candidate"); secrets are redacted or refused.
- `pending` says how many proposals wait: tell the person when there are some.
"""

Kind = Literal[
    "profile", "preference", "project", "decision", "event",
    "experience", "workflow", "resource", "session",
]  # fmt: skip
Scope = Literal["user", "project", "workspace", "session", "global"]
Status = Literal["candidate", "confirmed", "superseded", "expired"]
Confidence = Literal["low", "medium", "high"]
Mode = Literal["hybrid", "text", "semantic"]


class SourceIn(TypedDict, total=False):
    session_id: str
    timestamp: str
    files: list[str]
    commands: list[str]
    locator: str
    excerpt: str


class RememberResult(TypedDict):
    id: str | None
    status: str
    flags: dict[str, str]


class SearchHitOut(TypedDict):
    id: str
    summary: str
    kind: str
    status: str
    score: float


class SearchResult(TypedDict):
    hits: list[SearchHitOut]


class PendingResult(TypedDict):
    pending: int
    suspicious: int


T = TypeVar("T")


class _Desk:
    """The store one server works on, its search service, and one lock so tool calls,
    which the SDK runs in worker threads, reach the store one at a time.

    `warm_up` does the slow first steps in the background as soon as the server starts
    (reading every entry file; loading the embedding model and bringing the index up to
    date, which on a store never indexed means embedding every entry), so an agent's
    first call does not wait for them unless it comes first."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._service: Any = None
        self._lock = threading.Lock()
        self._opening = threading.Lock()

    def warm_up(self) -> threading.Thread:
        thread = threading.Thread(target=self._warm_up, name="memdesk-mcp-warm-up", daemon=True)
        thread.start()
        return thread

    def _warm_up(self) -> None:
        with contextlib.suppress(Exception):  # a failure is met again, and reported, by a call
            with self._lock:
                self.store.entries()
            self._open_service()

    def _open_service(self) -> Any:
        with self._opening:  # a call waits here for a warm-up in progress
            if self._service is None:
                # Its own store object: the tools' store is only touched under `_lock`.
                store = Store.open(self.store.root)
                service = agent_api.open_search(store)
                service.sync(store.entries())
                self._service = service
            return self._service

    def service(self) -> Any:
        return self._open_service()

    def call(self, work: Callable[[], T]) -> T:
        """Run `work` alone; a bad call or a store that refuses is an MCP error result."""
        with self._lock:
            try:
                return work()
            except (AgentCallError, StoreError) as exc:
                raise ToolError(str(exc)) from None


def _client_name(ctx: Context | None) -> str:
    try:
        params = ctx.session.client_params if ctx is not None else None
    except (AttributeError, RuntimeError):  # no session (a direct call, not over MCP)
        return ""
    return params.client_info.name if params is not None else ""


def build_server(store: Store, *, warm_up: bool = False) -> MCPServer:
    """The server with its tools and resources; `warm_up` starts the background warm-up
    (see `_Desk`)."""
    desk = _Desk(store)
    server = MCPServer(
        SERVER_NAME, instructions=INSTRUCTIONS, version=_version(), log_level="WARNING"
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    def remember(
        text: Annotated[str, Field(description="one concise statement worth keeping")],
        kind: Kind | None = None,
        scope: Scope | None = None,
        confidence: Confidence | None = None,
        valid_until: Annotated[
            str | None, Field(description="YYYY-MM-DD after which it no longer holds")
        ] = None,
        source: Annotated[
            str | SourceIn | None,
            Field(description="where it came from: text, or session_id/files/commands/..."),
        ] = None,
        ctx: Context | None = None,
    ) -> RememberResult:
        """Propose a memory. It waits in the person's review queue as a candidate; a
        secret is redacted (or the text refused) before anything is stored; the same
        text again returns the id already holding it. kind and scope are guessed when
        not given."""
        client = _client_name(ctx)
        result = desk.call(
            lambda: agent_api.remember(
                store,
                text,
                kind=kind,
                scope=scope,
                confidence=confidence,
                valid_until=valid_until,
                source=dict(source) if isinstance(source, dict) else source,
                client=client,
            )
        )
        return RememberResult(**result.to_json())  # type: ignore[typeddict-item]

    @server.tool(annotations=read_only)
    def search(
        query: str,
        limit: Annotated[int, Field(ge=1, le=agent_api.MAX_SEARCH_LIMIT)] = 10,
        mode: Mode = "hybrid",
        status: Annotated[
            list[Status] | None, Field(description="statuses to search (default: confirmed)")
        ] = None,
    ) -> SearchResult:
        """Search memories (full text and semantic, Chinese and English), best first."""
        hits = desk.call(
            lambda: agent_api.search(
                store, query, limit=limit, mode=mode, status=status, service=desk.service()
            )
        )
        return SearchResult(hits=[SearchHitOut(**h.to_json()) for h in hits])  # type: ignore[typeddict-item]

    @server.tool(annotations=read_only)
    def context(
        purpose: Annotated[str | None, Field(description="coding, chat, or from settings")] = None,
        budget: Annotated[
            int | None, Field(ge=0, description="size limit, in the settings' unit (tokens)")
        ] = None,
        query: Annotated[str | None, Field(description="the task at hand: ranks by it")] = None,
    ) -> dict[str, Any]:
        """The memory block for this project and what was left out: the same JSON as
        `memdesk context --json`."""
        return desk.call(
            lambda: agent_api.context(
                store,
                purpose=purpose,
                budget=budget,
                query=query,
                service=desk.service() if query else None,
            )
        )

    @server.tool(annotations=read_only)
    def get(
        id: Annotated[str, Field(description="an entry id or a unique prefix")],
    ) -> dict[str, Any]:
        """One memory with every field, its history and the entries it links to."""
        return desk.call(lambda: agent_api.get(store, id))

    @server.tool(annotations=read_only)
    def pending() -> PendingResult:
        """How many proposals wait for the person's review."""
        return PendingResult(**desk.call(lambda: agent_api.pending(store)))  # type: ignore[typeddict-item]

    @server.resource(CONTEXT_URI, name="context", mime_type="text/plain")
    def context_block() -> str:
        """The memory block an agent is given (purpose and budget from settings)."""
        return str(desk.call(lambda: agent_api.context(store))["text"])

    for managed in managed_files(store):
        server.add_resource(
            FunctionResource.from_function(
                fn=_file_reader(desk, managed.name),
                uri=FILE_URI.format(name=managed.name),
                name=managed.name,
                description=managed.description,
                mime_type="text/markdown",
            )
        )
    if warm_up:
        desk.warm_up()
    return server


def _file_reader(desk: _Desk, name: str) -> Callable[[], str]:
    def read() -> str:
        return desk.call(lambda: read_managed_file(desk.store, name))

    return read


def _version() -> str:
    try:
        return importlib.metadata.version("memdesk")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"


def serve(store: Store) -> None:
    """Serve over stdio until the client closes the connection."""
    build_server(store, warm_up=True).run("stdio")
