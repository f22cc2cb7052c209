"""Helpers for the MCP server's tests: run it as a process, speak JSON-RPC lines to it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import run_engramory

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(message: Any) -> bytes:
    return json.dumps(message).encode("utf-8") + b"\n"


def call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def session(
    store: Path, raw: bytes, *extra: str, initialize: bool = True
) -> tuple[subprocess.CompletedProcess[bytes], list[dict[str, Any]]]:
    """Run ``engramory mcp --store STORE`` on ``raw`` input (after the handshake when
    ``initialize``); the process and every stdout line parsed (each must be JSON)."""
    head = line(INIT) + line(INITIALIZED) if initialize else b""
    result = run_engramory("mcp", "--store", str(store), *extra, stdin=head + raw, timeout=60)
    out = [json.loads(text) for text in result.stdout.decode("utf-8").splitlines()]
    return result, out[1:] if initialize else out
