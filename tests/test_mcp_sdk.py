"""`engramory mcp` driven by the official MCP Python SDK's stdio client, as a host would."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from conftest import REPO
from doctorkit import valid_store

mcp = pytest.importorskip(
    "mcp", reason="the MCP Python SDK (pip install mcp; Python 3.10+) is not installed"
)
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def server(store: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    env["PYTHONPATH"] = str(REPO)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "engramory", "mcp", "--store", str(store), *extra],
        env=env,
    )


def field(value: object, camel: str) -> object:
    """A result field by its protocol name (SDK 1.x) or its snake_case name (SDK 2.x)."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return getattr(value, camel) if hasattr(value, camel) else getattr(value, snake)


async def _conversation(store: Path) -> dict[str, object]:
    seen: dict[str, object] = {}
    async with stdio_client(server(store)) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        seen["version"] = field(init, "protocolVersion")
        seen["instructions"] = init.instructions
        seen["tools"] = [tool.name for tool in (await session.list_tools()).tools]
        wrote = await session.call_tool(
            "memory_write", {"type": "user", "slug": "editor", "description": "Editor setup"}
        )
        seen["wrote"] = (field(wrote, "isError"), field(wrote, "structuredContent"))
        again = await session.call_tool(
            "memory_write", {"type": "user", "slug": "editor", "description": "Editor setup"}
        )
        seen["again"] = (field(again, "isError"), again.content[0].text)  # type: ignore[union-attr]
        found = await session.call_tool("memory_search", {"query": "EDITOR"})
        seen["found"] = field(found, "structuredContent")
        read_back = await session.call_tool("memory_read", {"slug": "editor"})
        seen["read"] = read_back.content[0].text  # type: ignore[union-attr]
        refused = await session.call_tool("memory_read", {"slug": "../editor"})
        seen["refused"] = field(refused, "isError")
    return seen


def test_the_sdk_client_initializes_lists_and_calls(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    seen = asyncio.run(_conversation(store))
    assert seen["version"] in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
    assert "Long-term memory lives in" in str(seen["instructions"])
    assert seen["tools"] == [
        "memory_index", "memory_read", "memory_search", "memory_write", "memory_update",
        "memory_archive",
    ]  # fmt: skip
    is_error, structured = seen["wrote"]  # type: ignore[misc]
    assert is_error is False and structured["created"] == "editor.md"
    assert seen["again"][0] is True and "already exists" in seen["again"][1]  # type: ignore[index]
    assert [hit["path"] for hit in seen["found"]["results"]] == ["editor.md"]  # type: ignore[index]
    assert seen["read"] == (store / "editor.md").read_text(encoding="utf-8")
    assert seen["refused"] is True
