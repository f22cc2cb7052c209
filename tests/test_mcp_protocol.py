"""`engramory mcp` as a process: the JSON-RPC framing, errors and lifecycle, raw lines in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcpkit import INIT, call, line, session

from doctorkit import valid_store
from engramory.mcp import protocol


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return valid_store(tmp_path / "s")


def test_initialize_answers_the_spec_fields_and_the_writer_rules(store: Path) -> None:
    result, out = session(store, line(INIT), initialize=False)
    assert result.returncode == 0
    assert out[0]["id"] == 0
    answer = out[0]["result"]
    assert answer["protocolVersion"] == "2025-06-18"
    assert answer["capabilities"] == {"tools": {}}
    assert answer["serverInfo"]["name"] == "engramory"
    assert f"Long-term memory lives in `{store.resolve()}/`" in answer["instructions"]
    assert "memory_write" in answer["instructions"]
    assert "**What to save.**" in answer["instructions"]  # the writer block, not restated


def test_read_only_gets_the_reader_block_and_three_tools(store: Path) -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    _, out = session(store, line(INIT) + line(listing), "--read-only", initialize=False)
    assert "**What to save.**" not in out[0]["result"]["instructions"]
    assert "memory_write" not in out[0]["result"]["instructions"]
    names = [tool["name"] for tool in out[1]["result"]["tools"]]
    assert names == ["memory_index", "memory_read", "memory_search"]
    _, out = session(store, line(call(2, "memory_write", {"type": "user", "slug": "x",
                                                         "description": "d"})), "--read-only")  # fmt: skip
    assert out[0]["error"]["code"] == protocol.INVALID_PARAMS
    assert not (store / "x.md").exists()


@pytest.mark.parametrize(
    ("asked", "answered"),
    [("2024-11-05", "2024-11-05"), ("2025-11-25", "2025-11-25"), ("1999-01-01", "2025-11-25"),
     (None, "2025-11-25")],
)  # fmt: skip
def test_version_negotiation(store: Path, asked: str | None, answered: str) -> None:
    message = json.loads(json.dumps(INIT))
    message["params"]["protocolVersion"] = asked
    _, out = session(store, line(message), initialize=False)
    assert out[0]["result"]["protocolVersion"] == answered


def test_tools_list_has_a_schema_for_every_tool(store: Path) -> None:
    _, out = session(store, line({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    tools = out[0]["result"]["tools"]
    assert [t["name"] for t in tools] == [
        "memory_index", "memory_read", "memory_search", "memory_write", "memory_update",
        "memory_archive",
    ]  # fmt: skip
    for tool in tools:
        assert tool["inputSchema"]["type"] == "object" and tool["description"]


def test_malformed_json_is_a_parse_error_and_the_loop_goes_on(store: Path) -> None:
    raw = (
        b'{"jsonrpc": "2.0", "id": 1, "method"\n'
        + b"\xff\xfe\n"
        + line({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    )
    result, out = session(store, raw)
    assert [m.get("error", {}).get("code") for m in out] == [-32700, -32700, None]
    assert out[0]["id"] is None and out[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert result.returncode == 0


def test_unknown_method_and_bad_params(store: Path) -> None:
    raw = (
        line({"jsonrpc": "2.0", "id": 1, "method": "resources/list"})
        + line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": [1, 2]})
        + line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}})
        + line(call(4, "no_such_tool", {}))
        + line({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "memory_read", "arguments": "x"}})
        + line({"jsonrpc": "1.0", "id": 6, "method": "ping"})
        + line([{"jsonrpc": "2.0", "id": 7, "method": "ping"}])
        + line({"jsonrpc": "2.0", "id": True, "method": "ping"})
    )  # fmt: skip
    _, out = session(store, raw)
    codes = [(m["id"], m["error"]["code"]) for m in out]
    assert codes == [(1, -32601), (2, -32602), (3, -32602), (4, -32602), (5, -32602),
                     (6, -32600), (None, -32600), (None, -32600)]  # fmt: skip


def test_a_tool_call_before_initialize_is_refused(store: Path) -> None:
    raw = (
        line({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        + line(call(2, "memory_write", {"type": "user", "slug": "x", "description": "d"}))
        + line({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    )
    _, out = session(store, raw, initialize=False)
    assert out[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}  # ping is allowed
    assert out[1]["error"]["code"] == protocol.NOT_INITIALIZED
    assert "initialize" in out[1]["error"]["message"]
    assert out[2]["error"]["code"] == protocol.NOT_INITIALIZED
    assert not (store / "x.md").exists()


def test_notifications_get_no_answer(store: Path) -> None:
    raw = line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}) + line(
        {"jsonrpc": "2.0", "method": "no/such/notification"}
    )
    result, out = session(store, raw)
    assert out == [] and result.returncode == 0


def test_end_of_input_mid_message_and_clean_exit(store: Path) -> None:
    result, out = session(store, b'{"jsonrpc": "2.0", "id": 9, "method": "pi')
    assert result.returncode == 0
    assert out == [{"jsonrpc": "2.0", "id": None,
                    "error": {"code": -32700,
                              "message": "parse error: the line is not one JSON value"}}]  # fmt: skip
    # a whole message without its final newline is still answered
    result, out = session(store, b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}')
    assert out == [{"jsonrpc": "2.0", "id": 9, "result": {}}] and result.returncode == 0
    result, out = session(store, b"", initialize=False)
    assert result.returncode == 0 and out == []


def test_stdout_holds_only_protocol_and_logs_go_to_stderr(store: Path) -> None:
    raw = line(call(1, "memory_index", {})) + line(call(2, "memory_read", {"slug": "../x"}))
    result, out = session(store, raw)
    for text in result.stdout.decode("utf-8").splitlines():
        assert json.loads(text)["jsonrpc"] == "2.0"
    assert len(out) == 2 and out[1]["result"]["isError"] is True
    assert b"engramory mcp: serving" in result.stderr


def test_a_missing_store_is_exit_66_before_serving(tmp_path: Path) -> None:
    result, out = session(tmp_path / "nowhere", line(INIT), initialize=False)
    assert result.returncode == 66 and out == []


def test_a_line_past_the_message_limit_is_skipped_whole() -> None:
    import io

    from engramory.mcp.server import read_lines

    stream = io.BytesIO(b"x" * 25 + b"\n" + b'{"a": 1}\r\n' + b"tail")
    assert list(read_lines(stream, 10)) == [None, b'{"a": 1}', b"tail"]
