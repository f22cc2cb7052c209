"""The MCP server loop: JSON-RPC lines on stdin, answers on stdout, logs on stderr.

One message per line; stdout carries nothing but protocol messages. Requests
are answered in order, notifications never. A request other than
``initialize`` or ``ping`` before ``initialize`` gets an error (-32002); bad
input never stops the loop, and end of input ends it cleanly.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, BinaryIO

from engramory import __version__
from engramory.mcp import protocol, tools
from engramory.mcp.protocol import ProtocolError, Request
from engramory.util.snippet import PLACEHOLDER, snippet

SERVER_NAME = "engramory"
MCP_NOTE = """\
### Engramory over MCP

On this host the store is served by the `engramory` MCP server, one tool per step of the \
rules above: `memory_index` is the index (call it at the start of a task), `memory_read` opens \
a note by its slug, `memory_search` finds notes by words.{writes} Paths and `engramory` \
commands in the rules name what these tools do for you."""
WRITE_NOTE = (
    " Write only through `memory_write` (a new note and its pointer), `memory_update` (a note "
    "in place) and `memory_archive` (retire a note): they hold the index caps, the note schema "
    "and the secret refusal; a refusal says what to do instead."
)


def instructions(root: str, read_only: bool) -> str:
    """The standing rules for this store (writer block, or reader block), then how the
    tools map onto them."""
    rules = snippet(read_only).replace(PLACEHOLDER, root)
    return rules + "\n\n" + MCP_NOTE.format(writes="" if read_only else WRITE_NOTE)


class Server:
    """One client's session: the state between messages."""

    def __init__(self, context: tools.Context) -> None:
        self.context = context
        self.tools = {tool.name: tool for tool in tools.available(context.read_only)}
        self.initialized = False

    def handle(self, request: Request) -> dict[str, Any] | None:
        """The result of a request; raises :class:`ProtocolError` to answer an error."""
        method = request.method
        if method == "initialize":
            return self.initialize(request.params)
        if method == "ping":
            return {}
        if not self.initialized:
            raise ProtocolError(
                protocol.NOT_INITIALIZED,
                f"server not initialized: send initialize before {method}",
                request.id,
            )
        if method == "tools/list":
            return {"tools": [tool.listing() for tool in self.tools.values()]}
        if method == "tools/call":
            return self.call(request)
        raise ProtocolError(protocol.METHOD_NOT_FOUND, f"method not found: {method}", request.id)

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        self.initialized = True
        return {
            "protocolVersion": protocol.negotiate(params.get("protocolVersion")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
            "instructions": instructions(self.context.root, self.context.read_only),
        }

    def call(self, request: Request) -> dict[str, Any]:
        name = request.params.get("name")
        arguments = request.params.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise ProtocolError(
                protocol.INVALID_PARAMS,
                "invalid params: tools/call needs a tool name and an arguments object",
                request.id,
            )
        tool = self.tools.get(name)
        if tool is None:
            raise ProtocolError(
                protocol.INVALID_PARAMS,
                f"unknown tool: {name} (the tools are: {', '.join(self.tools)})",
                request.id,
            )
        return tools.call(self.context, tool, arguments).as_result()

    def answer(self, line: bytes) -> dict[str, Any] | None:
        """The message to send for one input line (``None``: nothing to send)."""
        try:
            request = protocol.parse_line(line)
        except ProtocolError as exc:
            return protocol.error_message(exc.id, exc.code, exc.message) if exc.code else None
        if request.is_notification:  # notifications/initialized included: nothing to do
            return None
        assert request.id is not None
        try:
            result = self.handle(request)
        except ProtocolError as exc:
            return protocol.error_message(request.id, exc.code, exc.message)
        except Exception:  # never die on one request: answer it and say why on stderr
            log(traceback.format_exc())
            return protocol.error_message(
                request.id, protocol.INTERNAL_ERROR, "internal error (logged on stderr)"
            )
        return protocol.result_message(request.id, result or {})


def log(text: str) -> None:
    print(f"engramory mcp: {text.rstrip()}", file=sys.stderr, flush=True)


def read_lines(stream: BinaryIO, limit: int) -> Any:
    """Each line of ``stream`` (without its ending), or ``None`` for one past ``limit`` (the
    rest of it skipped); a last line without a newline is yielded too."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(limit + 1)
            yield None
            continue
        yield line.rstrip(b"\r\n")


def serve(context: tools.Context, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer every message until the end of input."""
    server = Server(context)
    log(f"serving {context.root}{' (read-only)' if context.read_only else ''}")
    for line in read_lines(stdin, protocol.MAX_MESSAGE_BYTES):
        if line is None:
            message: dict[str, Any] | None = protocol.error_message(
                None, protocol.INVALID_REQUEST, "invalid request: the message is too large"
            )
        elif not line.strip():
            continue
        else:
            message = server.answer(line)
        if message is not None:
            stdout.write(protocol.encode(message))
            stdout.flush()
