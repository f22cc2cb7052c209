"""JSON-RPC 2.0 framing for MCP over stdio: one message a line, errors, version negotiation.

Pure functions: a line in, a parsed request or an error response out; nothing
here reads or writes a stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Union

# Newest first: the answer to a client whose version this server does not know.
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Not in JSON-RPC itself: the code LSP uses for a request before ``initialize``.
NOT_INITIALIZED = -32002

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # a note is read up to 4 MiB; JSON escaping can triple it

RequestId = Union[str, int]


@dataclass(frozen=True)
class Request:
    """A valid JSON-RPC request (``id`` set) or notification (``id`` is ``None``)."""

    method: str
    params: dict[str, Any]
    id: RequestId | None

    @property
    def is_notification(self) -> bool:
        return self.id is None


class ProtocolError(Exception):
    """An error to answer with (``id``: the request's, when it could be read; code 0: a
    message that gets no answer at all, such as a response sent to us)."""

    def __init__(self, code: int, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = request_id


def negotiate(requested: object) -> str:
    """The version to answer: the client's when supported, else the newest supported."""
    return requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION  # type: ignore[return-value]


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def parse_line(line: bytes) -> Request:
    """One line of input as a request; raises :class:`ProtocolError` (parse or shape)."""
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProtocolError(PARSE_ERROR, "parse error: the line is not one JSON value") from None
    if isinstance(message, list):
        raise ProtocolError(INVALID_REQUEST, "invalid request: batches are not supported")
    if not isinstance(message, dict):
        raise ProtocolError(INVALID_REQUEST, "invalid request: a message is a JSON object")
    raw_id = message.get("id")
    request_id = raw_id if _valid_id(raw_id) else None
    if "id" in message and raw_id is not None and request_id is None:
        raise ProtocolError(INVALID_REQUEST, "invalid request: id must be a string or an integer")
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"', request_id)
    method = message.get("method")
    if not isinstance(method, str):
        if "result" in message or "error" in message:  # a response to us: we send no requests
            raise ProtocolError(0, "", None)
        raise ProtocolError(INVALID_REQUEST, "invalid request: method must be a string", request_id)
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_PARAMS, "invalid params: params must be an object", request_id)
    return Request(method, params, request_id)


def result_message(request_id: RequestId, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: RequestId | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line: compact JSON (never a raw newline inside), ``\\n``-terminated."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
