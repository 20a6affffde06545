"""`memdesk mcp` as agents run it: a real subprocess, spoken to with the MCP SDK's stdio
client. The search model is switched off in the store's settings (full text only), so
these tests are about the server, not the model."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import Implementation
from memdesk.core.entry import Entry
from memdesk.core.store import Store

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
TIMEOUT = 90  # seconds for a whole test: a loaded machine starts Python slowly


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    store = Store.init(root)
    store.settings_path.write_text('[search]\nmodel = "none"\n', "utf-8")
    return root


@asynccontextmanager
async def mcp_session(workdir: Path, client: str = "test-agent") -> AsyncIterator[ClientSession]:
    """`memdesk --dir WORKDIR mcp` in its own process, and a client session on it. The
    server's stderr goes to a file beside (not inside) the working directory."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memdesk.cli", "--dir", str(workdir), "mcp"],
        env={"HF_HUB_OFFLINE": "1"},
    )
    with (workdir.parent / f"{client}.stderr").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=Implementation(name=client, version="1")) as s,
        ):
            await s.initialize()
            yield s


async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error_of(session: ClientSession, tool: str, args: dict[str, Any]) -> str:
    result = await session.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


def cli_json(cli, workdir: Path, *args: str) -> Any:  # type: ignore[no-untyped-def]
    done = cli("--dir", str(workdir), *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    """Run an async scenario with a deadline (a hung server fails the test, never blocks)."""

    async def bounded() -> None:
        with anyio.fail_after(TIMEOUT):
            await scenario()

    anyio.run(bounded)


def files_containing(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_tools_and_resources_are_listed_with_schemas(workdir: Path) -> None:
    async def scenario() -> None:
        async with mcp_session(workdir) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) == {"remember", "search", "context", "get", "pending"}
            remember = tools["remember"]
            assert remember.input_schema["required"] == ["text"]
            assert set(remember.input_schema["properties"]) == {
                "text", "kind", "scope", "confidence", "valid_until", "source",
            }  # fmt: skip
            assert remember.output_schema is not None
            assert set(remember.output_schema["required"]) == {"id", "status", "flags"}
            assert tools["search"].annotations.read_only_hint
            uris = {str(r.uri) for r in (await s.list_resources()).resources}
            assert uris == {"memdesk://context", "memdesk://files/MEMORY.md"}

    run(scenario)


def test_a_remembered_fact_waits_in_the_queue_until_a_person_approves_it(
    workdir: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    fact = "The docs site is built with mdBook 0.4, not Docusaurus"

    async def scenario() -> None:
        async with mcp_session(workdir) as s:
            made = await call(s, "remember", {"text": fact, "kind": "decision"})
            assert made["status"] == "candidate" and made["flags"] == {}
            listed = cli_json(cli, workdir, "list")
            assert [(e["id"], e["status"], e["summary"]) for e in listed] == [
                (made["id"], "candidate", fact)
            ]
            assert listed[0]["source"]["origin"] == "mcp:test-agent"
            assert await call(s, "pending", {}) == {"pending": 1, "suspicious": 0}
            # Not confirmed: a default search and the context block do not give it yet.
            assert (await call(s, "search", {"query": "mdBook"}))["hits"] == []
            again = await call(s, "remember", {"text": fact})
            assert again["id"] == made["id"] and again["flags"]["duplicate"] == "yes"

            approved = cli("--dir", str(workdir), "approve", made["id"])
            assert approved.returncode == 0, approved.stderr
            hits = (await call(s, "search", {"query": "mdBook", "mode": "text"}))["hits"]
            assert [(h["id"], h["status"], h["kind"]) for h in hits] == [
                (made["id"], "confirmed", "decision")
            ]
            day = dt.date.today()
            block = await call(s, "context", {"budget": 500})
            assert fact in block["text"]
            assert made["id"] in [i["id"] for i in block["included"]]
            cli_block = cli_json(cli, workdir, "context", "--budget", "500")
            if dt.date.today() != day:
                # Midnight passed between the two calls: scores decay by the day, so
                # ask the server again on the same day as the command line.
                block = await call(s, "context", {"budget": 500})
            assert block["text"] == cli_block["text"]
            assert block["included"] == cli_block["included"]
            entry = await call(s, "get", {"id": made["id"][:12]})
            assert [h["op"] for h in entry["history"]] == ["add", "approve"]
            memory_md = await s.read_resource("memdesk://files/MEMORY.md")
            assert fact in memory_md.contents[0].text
            context = await s.read_resource("memdesk://context")
            assert fact in context.contents[0].text
            assert await call(s, "pending", {}) == {"pending": 0, "suspicious": 0}

    run(scenario)


def test_an_aws_key_sent_over_mcp_is_stored_nowhere(workdir: Path, cli) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        async with mcp_session(workdir) as s:
            redacted = await call(
                s,
                "remember",
                {"text": f"Staging deploys use AWS key {AWS_KEY} and secret {AWS_SECRET}"},
            )
            assert redacted["status"] == "candidate" and "redacted" in redacted["flags"]
            refused = await call(s, "remember", {"text": f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}"})
            assert refused["id"] is None and refused["status"] == "refused"
            assert "refused" in refused["flags"]
            # Approve, render and index it: every derived file is written too.
            assert cli("--dir", str(workdir), "approve", redacted["id"]).returncode == 0
            hits = (await call(s, "search", {"query": "staging deploys", "mode": "text"}))["hits"]
            assert [h["id"] for h in hits] == [redacted["id"]]
            assert "[REDACTED:aws-access-key-id]" in hits[0]["summary"]

    run(scenario)
    for needle in (AWS_KEY, AWS_SECRET):
        assert files_containing(workdir, needle) == []


def test_bad_calls_are_answered_and_the_server_keeps_serving(workdir: Path) -> None:
    bad_calls: list[tuple[str, dict[str, Any], str]] = [
        ("remember", {"text": 42}, "valid string"),
        ("remember", {}, "Field required"),
        ("remember", {"text": "x" * 5000}, "the limit is 4000"),
        ("remember", {"text": "fine", "kind": "poem"}, "kind"),
        ("remember", {"text": "fine", "valid_until": "next week"}, "not a date"),
        ("search", {"query": "x", "limit": "many"}, "valid integer"),
        ("search", {"query": "   "}, "query must be a non-empty string"),
        ("context", {"purpose": "poetry"}, "unknown purpose 'poetry'"),
        ("get", {"id": "m-does-not-exist"}, "no entry with id 'm-does-not-exist'"),
        ("forget_everything", {}, "Unknown tool: forget_everything"),
    ]

    async def scenario() -> None:
        async with mcp_session(workdir) as s:
            for tool, args, message in bad_calls:
                assert message in await error_of(s, tool, args), (tool, args)
                assert await call(s, "pending", {}) == {"pending": 0, "suspicious": 0}
            with pytest.raises(MCPError, match="Unknown resource"):
                await s.read_resource("memdesk://files/secrets.txt")
            made = await call(s, "remember", {"text": "The server is still serving"})
            assert made["status"] == "candidate"
            await s.send_ping()

    run(scenario)
    assert [e.summary for e in Store.open(workdir).entries()] == ["The server is still serving"]


def test_two_servers_and_the_desk_writing_at_once_lose_nothing(workdir: Path, cli) -> None:  # type: ignore[no-untyped-def]
    per_writer = 20

    async def agent(name: str, ready: anyio.Event, go: anyio.Event) -> list[str]:
        ids: list[str] = []
        async with mcp_session(workdir, client=name) as s:
            ready.set()
            await go.wait()
            for n in range(per_writer):
                made = await call(s, "remember", {"text": f"{name} learned fact number {n}"})
                ids.append(made["id"])
        return ids

    def desk(go: threading.Event) -> None:
        store = Store.open(workdir)  # as the open desk does: its own store, same lock
        go.wait()
        for n in range(per_writer):
            store.add(Entry(summary=f"the person typed note number {n}"), actor="tui")

    results: dict[str, list[str]] = {}

    async def scenario() -> None:
        ready_a, ready_b, go = anyio.Event(), anyio.Event(), anyio.Event()

        async def one(name: str, ready: anyio.Event) -> None:
            results[name] = await agent(name, ready, go)

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "agent-a", ready_a)
            tg.start_soon(one, "agent-b", ready_b)
            await ready_a.wait()
            await ready_b.wait()
            desk_go.set()
            go.set()

    desk_go = threading.Event()
    writer = threading.Thread(target=desk, args=(desk_go,))
    writer.start()
    try:
        run(scenario)
    finally:
        desk_go.set()
        writer.join(TIMEOUT)
    ids = results["agent-a"] + results["agent-b"]
    assert len(set(ids)) == 2 * per_writer
    listed = cli_json(cli, workdir, "list")
    assert len(listed) == 3 * per_writer
    assert set(ids) <= {e["id"] for e in listed}
    assert all(e["status"] == "candidate" for e in listed)
    adds = [r for r in Store.open(workdir).journal.records() if r.op == "add"]
    assert len(adds) == 3 * per_writer


def test_a_line_that_is_not_json_rpc_does_not_stop_the_server(workdir: Path) -> None:
    """Below the SDK's client: raw lines on stdin, as a broken client might send them."""
    lines = [
        "this is not json",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        ),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "memdesk.cli", "--dir", str(workdir), "mcp"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert replies[1]["error"]["message"] == "Method not found"
    assert replies[2]["result"]["serverInfo"]["name"] == "memdesk"
    assert done.returncode == 0, done.stderr


def test_an_entry_with_a_5000_digit_number_leaves_the_tools_working(workdir: Path) -> None:
    store = Store.open(workdir)
    bad = store.add(Entry(summary="Deploys go through make release"))
    path = store.entries_dir / f"{bad.id}.toml"
    path.write_text(path.read_text("utf-8").replace("version = 1\n", f"version = {'9' * 5000}\n"))

    async def scenario() -> None:
        async with mcp_session(workdir) as s:
            assert await call(s, "pending", {}) == {"pending": 0, "suspicious": 0}
            made = await call(s, "remember", {"text": "Always run make check before pushing"})
            assert made["status"] == "candidate"
            await call(s, "context", {})

    run(scenario)
    assert "Traceback" not in (workdir.parent / "test-agent.stderr").read_text()
