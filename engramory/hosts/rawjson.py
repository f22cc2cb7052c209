"""Cheap reads of a hook payload's raw bytes, before (and usually instead of) parsing it.

A guard dialect dismisses most tool calls by looking at two or three string
members of the payload (the tool's name, a path, a command) without parsing the
JSON: these helpers find a member's raw string value in one left-to-right pass
and unescape it only when it holds an escape. On the hook's hot path: imports
nothing at module level.
"""

from __future__ import annotations


def json_string(raw: bytes, key: bytes) -> bytes | None:
    """The raw (still escaped) string value of the first ``"key":`` member, or ``None``.

    A key inside a string value is escaped (``\\"key\\"``), so a quote not
    preceded by a backslash starts a real key. One left-to-right pass.
    """
    needle = b'"' + key + b'"'
    at = raw.find(needle)
    while at >= 0:
        j = at + len(needle)
        if at == 0 or raw[at - 1] != 0x5C:
            while raw[j : j + 1] in (b" ", b"\t", b"\r", b"\n"):
                j += 1
            if raw[j : j + 1] == b":":
                j += 1
                while raw[j : j + 1] in (b" ", b"\t", b"\r", b"\n"):
                    j += 1
                return string_at(raw, j)
        at = raw.find(needle, j)
    return None


def string_at(raw: bytes, start: int) -> bytes | None:
    """The raw contents of the JSON string starting at ``start`` (a quote), or ``None``."""
    if raw[start : start + 1] != b'"':
        return None
    k = start + 1
    while True:
        end = raw.find(b'"', k)
        if end < 0:
            return None
        slashes = 0
        while raw[end - 1 - slashes] == 0x5C:
            slashes += 1
        if slashes % 2 == 0:
            return raw[start + 1 : end]
        k = end + 1


def decoded(value: bytes) -> str | None:
    """A raw JSON string value unescaped (``None`` when it is not valid JSON text)."""
    if b"\\" not in value:
        return value.decode("utf-8", "replace")
    from engramory import fastjson  # noqa: PLC0415 - only for escaped strings

    try:
        decoded = fastjson.loads('"' + value.decode("utf-8", "replace") + '"')
    except (ValueError, RecursionError):
        return None
    return decoded if isinstance(decoded, str) else None
