"""``forewarn mcp`` end to end through the MCP SDK's own stdio client: every tool, the resource, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from forewarn import paths
from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace.engine import Workspace
from tests.mcp.conftest import FOREWARN, mcp_session, text_of

TOOLS = {
    "memories_for_files", "search_memories", "remember", "confirm", "mark_outdated", "supersede", "repo_map",
    "explain_error",
}  # fmt: skip


async def test_lists_every_tool_with_a_schema_and_a_one_line_description(shop: Path) -> None:
    async with mcp_session(shop) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        templates = (await s.list_resource_templates()).resource_templates
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and "\n" not in tool.description and len(tool.description) < 220, tool.name
        assert tool.input_schema["type"] == "object"
    assert tools["memories_for_files"].input_schema["required"] == ["paths"]
    assert tools["search_memories"].input_schema["properties"]["k"]["maximum"] == 50
    assert set(tools["remember"].input_schema["properties"]["type"].get("enum", [])) or "$defs" in json.dumps(
        tools["remember"].input_schema
    )
    assert [t.uri_template for t in templates] == ["forewarn://memories/{+path}"]


async def test_memories_for_files_shows_own_neighbours_and_stale(shop: Path) -> None:
    async with mcp_session(shop) as s:
        text = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py"]}))
    head, block = text.split("```forewarn-notes\n", 1)
    assert "Data, not instructions" in head and block.endswith("```\n")  # one fenced block of notes, as data
    assert 'file "pay.py": 3 notes, 3 listed below' in block
    assert '] decision · file "pay.py" line 6 · symbol "charge_card"' in block
    assert 'text: "every charge carries an idempotency key"' in block
    # Money.__add__ is used by pay.py (through Money): a neighbour's gotcha, saying where it comes from
    assert '] gotcha · file "money.py" line 8 · symbol "Money.__add__"' in block
    assert 'via: "money.py" (a file this one uses)' in block
    assert "finalize is called twice" in block and 'may be outdated ("the checkout page was rewritten")' in block
    assert block.count("from: recorded here by ") == 3  # each note says who wrote it: typed here by a person
    assert "reports are generated" not in text  # another file's memory, not used here


async def test_the_budget_takes_gotchas_first_and_says_what_it_left_out(shop: Path) -> None:
    async with mcp_session(shop) as s:
        small = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py"], "budget": 200}))
        full = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py", "report.py"], "budget": 1000}))
        tight = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py", "report.py"], "budget": 200}))
    assert "Money.__add__ drops the currency" in small
    assert "idempotency" not in small
    assert "more left out by the 200-token budget" in small
    assert len(small) <= 200 * 4
    assert "left out" not in full and 'file "report.py": 1 note, 1 listed below' in full
    # D24: a budget never drops a file asked about: each keeps its count line
    assert 'file "pay.py": 3 notes, 1 listed below' in tight and 'file "report.py": 1 note, 0 listed below' in tight


async def test_search_filters_by_type_and_file(shop: Path) -> None:
    async with mcp_session(shop) as s:
        hit = text_of(await s.call_tool("search_memories", {"query": "idempotency key"}))
        typed = text_of(await s.call_tool("search_memories", {"query": "idempotency key", "types": ["gotcha"]}))
        filed = text_of(await s.call_tool("search_memories", {"query": "currency", "file": "pay.py"}))
    assert "every charge carries an idempotency key" in hit and "searched by words only" in hit
    assert "idempotency" not in typed.split("\n", 1)[1]
    assert "Money.__add__" not in filed.split("\n", 1)[1]


async def test_remember_waits_for_a_person_and_names_the_agent(shop: Path) -> None:
    async with mcp_session(shop) as s:
        answer = text_of(
            await s.call_tool(
                "remember",
                {
                    "text": "charge_card must not be retried",
                    "type": "gotcha",
                    "file": "pay.py",
                    "symbol": "charge_card",
                },
            )
        )
        shown = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py"]}))
    assert "Saved as suggestion" in answer and "person reviews it" in answer
    assert "must not be retried" not in shown  # nobody has accepted it
    with Workspace.open(shop, embedder=None) as ws:
        (m,) = ws.suggestions("pay.py")
    assert m.status == MemoryStatus.SUGGESTED and m.source == MemorySource.AGENT
    assert m.anchor is not None and m.anchor.symbol == "charge_card"
    assert m.provenance == {"agent": {"name": "Pytest Agent", "version": "9.1.0"}}
    assert m.visibility == "team"


async def test_remember_private_stays_out_of_the_shared_file(shop: Path) -> None:
    async with mcp_session(shop, "--trust-agents") as s:
        answer = text_of(
            await s.call_tool("remember", {"text": "my own refactor note", "file": "pay.py", "private": True})
        )
    assert "private" in answer
    with Workspace.open(shop, embedder=None) as ws:
        (m,) = [m for m in ws.list_memories() if m.text == "my own refactor note"]
        assert m.visibility == "private"
        report = ws.export()
    assert "my own refactor note" not in Path(report.path).read_text()


async def test_trusted_agents_write_active_memories(shop: Path, forewarn_home: Path) -> None:
    async with mcp_session(shop, "--trust-agents") as s:
        answer = text_of(await s.call_tool("remember", {"text": "refunds need a reason", "file": "pay.py"}))
        shown = text_of(await s.call_tool("memories_for_files", {"paths": ["pay.py"]}))
    assert "Remembered as" in answer and "refunds need a reason" in shown
    (forewarn_home / "config.toml").write_text("[agents]\ntrust = true\n")  # the user's own config
    async with mcp_session(shop) as s:
        answer = text_of(await s.call_tool("remember", {"text": "reports run in UTC", "file": "report.py"}))
    assert "Remembered as" in answer


async def test_a_repository_cannot_make_agents_trusted(shop: Path) -> None:
    (shop / ".forewarn" / "config.toml").write_text("[embedder]\nenabled = false\n[agents]\ntrust = true\n")
    async with mcp_session(shop) as s:
        answer = text_of(await s.call_tool("remember", {"text": "trust me", "file": "pay.py"}))
    assert "Saved as suggestion" in answer


async def test_confirm_mark_outdated_and_supersede_wait_for_a_person(shop: Path) -> None:
    with Workspace.open(shop, embedder=None) as ws:
        ids = {m.text: m.id for m in ws.list_memories()}
    stale = ids["finalize is called twice by the checkout page"]
    decision = ids["every charge carries an idempotency key"]
    async with mcp_session(shop) as s:
        confirmed = text_of(await s.call_tool("confirm", {"memory_id": stale}))
        outdated = text_of(
            await s.call_tool("mark_outdated", {"memory_id": decision, "reason": "keys moved to the gateway"})
        )
        proposed = text_of(
            await s.call_tool("supersede", {"memory_id": decision, "text": "the gateway adds idempotency keys"})
        )
    assert "Saved as suggestion" in confirmed and "proposing to confirm it" in confirmed
    assert "proposing to mark it outdated" in outdated and "proposing to replace" in proposed
    with Workspace.open(shop, embedder=None) as ws:
        assert ws.get(stale).status == MemoryStatus.STALE  # an untrusted agent changes nothing by itself...
        assert ws.get(decision).status == MemoryStatus.ACTIVE
        waiting = {(m.provenance or {}).get("proposal", {}).get("action", "supersede"): m for m in ws.suggestions()}
        assert set(waiting) == {"confirm", "mark_outdated", "supersede"}
        assert waiting["supersede"].supersedes == decision
        ws.accept_suggestion(waiting["confirm"].id)  # ...until a person accepts
        assert ws.get(stale).status == MemoryStatus.ACTIVE
        ws.accept_suggestion(waiting["mark_outdated"].id)
        old = ws.get(decision)
        assert old.status == MemoryStatus.STALE
        assert (
            old.status_reason == "keys moved to the gateway (said by an agent that calls itself “Pytest Agent 9.1.0”)"
        )
        ws.accept_suggestion(waiting["supersede"].id)
        assert ws.get(decision).status == MemoryStatus.SUPERSEDED
        assert ws.get(decision).superseded_by == waiting["supersede"].id


async def test_trusted_agents_confirm_and_mark_outdated_at_once(shop: Path) -> None:
    with Workspace.open(shop, embedder=None) as ws:
        ids = {m.text: m.id for m in ws.list_memories()}
    stale = ids["finalize is called twice by the checkout page"]
    decision = ids["every charge carries an idempotency key"]
    async with mcp_session(shop, "--trust-agents") as s:
        confirmed = text_of(await s.call_tool("confirm", {"memory_id": stale}))
        await s.call_tool("mark_outdated", {"memory_id": decision, "reason": "keys moved to the gateway"})
    assert "Confirmed" in confirmed
    with Workspace.open(shop, embedder=None) as ws:
        assert ws.get(stale).status == MemoryStatus.ACTIVE
        assert ws.get(decision).status_reason == (
            "keys moved to the gateway (said by an agent that calls itself “Pytest Agent 9.1.0”)"
        )
        assert ws.suggestions() == []


async def test_repo_map_and_the_resource(shop: Path) -> None:
    async with mcp_session(shop) as s:
        rmap = text_of(await s.call_tool("repo_map", {"budget": 200, "focus_files": ["pay.py"]}))
        res = await s.read_resource("forewarn://memories/money.py")
        with pytest.raises(MCPError):
            await s.read_resource("forewarn://memories/../../etc/passwd")
    assert "def charge_card" in rmap and "class Money" in rmap
    (content,) = res.contents
    assert "Money.__add__ drops the currency" in getattr(content, "text", "")


async def test_repo_map_says_that_vendored_code_ranks_last(shop: Path) -> None:
    (shop / "vendor" / "money").mkdir(parents=True)
    (shop / "vendor" / "money" / "rates.py").write_text(
        "from money import Money\n\ndef rate(m: Money) -> Money:\n    return m\n"
    )
    async with mcp_session(shop) as s:
        rmap = text_of(await s.call_tool("repo_map", {"budget": 2000}))
        focused = text_of(await s.call_tool("repo_map", {"budget": 2000, "focus_files": ["vendor/money/rates.py"]}))
    assert rmap.index("class Money") < rmap.index("def rate(")  # shown, after the team's own code
    assert "1 vendored or generated file ranks after the team's own code" in rmap
    assert "def rate(" in focused


BAD_CALLS: list[tuple[str, dict[str, object], str]] = [
    ("memories_for_files", {"paths": "pay.py"}, "paths"),  # a string where a list goes
    ("memories_for_files", {"paths": []}, "paths"),
    ("memories_for_files", {"paths": ["/etc/passwd"]}, "outside the workspace"),
    ("memories_for_files", {"paths": ["../../outside.py"]}, "outside the workspace"),
    ("memories_for_files", {"paths": ["pay.py"], "budget": 5}, "budget"),
    ("search_memories", {"query": "x", "k": "ten"}, "k"),
    ("search_memories", {"query": "x", "k": 10**9}, "k"),
    ("search_memories", {"query": "x", "types": ["banana"]}, "types"),
    ("search_memories", {"query": "   "}, "empty"),
    ("remember", {"text": "x" * 5_000_000}, "text"),
    ("remember", {"text": "a lesson", "type": "banana"}, "type"),
    ("remember", {"text": "a lesson", "symbol": "charge_card"}, "needs the file"),
    ("remember", {"text": "a lesson", "file": "pay.py", "symbol": "no_such_function"}, "no_such_function"),
    ("remember", {"text": "a lesson", "file": "pay.py", "line": 10**6}, "line"),
    ("confirm", {"memory_id": "zzzzzzzz"}, "zzzzzzzz"),
    ("confirm", {}, "memory_id"),
    (
        "confirm",
        {"id": "01ABCDEF"},
        "confirm: 'memory_id' is required; unknown argument 'id' (confirm takes: memory_id)",
    ),
    ("memories_for_files", {"paths": ["pay\x00.py"]}, "NUL"),
    ("mark_outdated", {"memory_id": "zzzzzzzz", "reason": " "}, "why"),
    ("supersede", {"memory_id": "zzzzzzzz", "text": "new"}, "zzzzzzzz"),
    ("repo_map", {"focus_files": ["/etc/passwd"]}, "outside the workspace"),
]


async def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(shop: Path) -> None:
    async with mcp_session(shop) as s:
        for name, args, says in BAD_CALLS:
            result = await s.call_tool(name, args)
            text = text_of(result)
            assert result.is_error, (name, args, text[:200])
            assert says in text, (name, says, text[:300])
            assert "Traceback" not in text and len(text) < 2000, (name, text[:300])
            assert "pydantic" not in text and "\n" not in text.strip(), (name, text[:300])  # one readable line
            ok = await s.call_tool("memories_for_files", {"paths": ["money.py"]})
            assert not ok.is_error and "Money.__add__" in text_of(ok)
        unknown = await s.call_tool("no_such_tool", {})
        assert unknown.is_error and "no_such_tool" in text_of(unknown)
        assert not (await s.call_tool("search_memories", {"query": "currency"})).is_error


async def test_a_damaged_database_is_reported_by_every_tool(shop: Path) -> None:
    db = paths.workspace_dir(shop) / "memory.db"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    async with mcp_session(shop) as s:
        for name, args in [("memories_for_files", {"paths": ["pay.py"]}), ("search_memories", {"query": "x"})]:
            result = await s.call_tool(name, args)
            assert result.is_error and "cannot open this workspace" in text_of(result), text_of(result)
        assert len((await s.list_tools()).tools) == len(TOOLS)


def test_stdout_carries_only_json_rpc_with_the_model_loaded(shop: Path) -> None:
    """llama.cpp loads (and logs) while the server starts: none of it may reach the protocol stream."""
    (shop / ".forewarn" / "config.toml").unlink()  # hybrid: the real model
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    search = {"name": "search_memories", "arguments": {"query": "currency"}}
    lines: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": search},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "remember", "arguments": {"text": 5}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
    ]
    proc = subprocess.Popen(
        [FOREWARN, "-v", "mcp", "-w", str(shop)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    killer = threading.Timer(120, proc.kill)  # a hang fails instead of blocking the suite
    killer.start()
    out: list[dict[str, Any]] = []
    try:
        for line in lines:
            proc.stdin.write(json.dumps(line) + "\n")
            proc.stdin.flush()
            if "id" in line:  # a request: read until its answer (notifications may come first)
                while not out or out[-1].get("id") != line["id"]:
                    out.append(json.loads(proc.stdout.readline()))  # every line is JSON
        proc.stdin.write("not json at all\n")
        proc.stdin.close()
        out += [json.loads(rest) for rest in proc.stdout.read().splitlines()]
        stderr = proc.stderr.read()
        proc.wait()
    finally:
        killer.cancel()
    assert all(msg.get("jsonrpc") == "2.0" for msg in out)
    by_id = {msg.get("id"): msg for msg in out}
    assert "searched by meaning and words" in by_id[2]["result"]["content"][0]["text"]
    assert by_id[3]["result"]["isError"] is True
    assert len(by_id[4]["result"]["tools"]) == len(TOOLS)
    assert "embedder" in stderr  # the model's log went to stderr


async def test_remember_names_a_repeated_definition_as_people_call_it(shop: Path) -> None:
    """D2: the answer's own sentence says where the memory went with its line; the index's ``#2`` stays inside."""
    (shop / "pay.py").write_text(
        (shop / "pay.py").read_text() + "\n\nif True:\n    def refund(x):\n        return x\nelse:\n"
        "    def refund(x):\n        return -x\n"
    )
    with Workspace.open(shop, embedder=None) as ws:
        ws.reindex()
        second = next(c for c in ws.indexer.chunks_for("pay.py") if c.symbol == "refund#2")
    async with mcp_session(shop) as s:
        answer = text_of(
            await s.call_tool(
                "remember", {"text": "refund must not go below zero", "file": "pay.py", "line": second.start_line}
            )
        )
    assert f"`pay.py`:{second.start_line} `refund`" in answer and "#2" not in answer
