"""Cheap reads of a hook payload's raw bytes, before (and usually instead of) parsing it.

A guard dialect dismisses most tool calls by looking at two or three string
members of the payload (the tool's name, a path, a command) without parsing the
JSON: these helpers find a member's raw string value in one left-to-right pass
and unescape it only when it holds an escape. On the hook's hot path: imports
nothing at module level.
"""


def json_string(raw: bytes, key: bytes) -> "bytes | None":
    """The raw (still escaped) string value of the first ``"key":`` member, or ``None``.

    A key inside a string value is escaped (``\\"key\\"``), so a quote not
    preceded by a backslash starts a real key. One left-to-right pass.
    """
    at = json_string_start(raw, key)
    return string_at(raw, at) if at >= 0 else None


def json_string_start(raw: bytes, key: bytes, at: int = 0) -> int:
    """Where the value of the first real ``"key":`` member from ``at`` starts (``-1``: none)."""
    needle = b'"' + key + b'"'
    at = raw.find(needle, at)
    while at >= 0:
        j = at + len(needle)
        if at == 0 or raw[at - 1] != 0x5C:
            while raw[j : j + 1] in (b" ", b"\t", b"\r", b"\n"):
                j += 1
            if raw[j : j + 1] == b":":
                j += 1
                while raw[j : j + 1] in (b" ", b"\t", b"\r", b"\n"):
                    j += 1
                return j
        at = raw.find(needle, j)
    return -1


def json_strings(raw: bytes, key: bytes) -> "list[bytes | None]":
    """The raw values of every real ``"key":`` member, in order (``None``: not a string).

    A payload's tool arguments may hold the same key twice at different depths; a
    cheap test that read only the first could miss the one the host acts on.
    """
    values: list[bytes | None] = []
    start = json_string_start(raw, key)
    while start >= 0:
        values.append(string_at(raw, start))
        start = json_string_start(raw, key, start)
    return values


def string_at(raw: bytes, start: int) -> "bytes | None":
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


def decoded(value: bytes) -> "str | None":
    """A raw JSON string value unescaped (``None`` when it is not valid JSON text)."""
    if b"\\" not in value:
        return value.decode("utf-8", "replace")
    from engramory.util import fastjson  # noqa: PLC0415 - only for escaped strings

    try:
        decoded = fastjson.loads('"' + value.decode("utf-8", "replace") + '"')
    except (ValueError, RecursionError):
        return None
    return decoded if isinstance(decoded, str) else None


def unescaped(value: bytes) -> "bytes | None":
    """A raw JSON string value unescaped without a parser (``None`` when it holds a ``\\u`` escape).

    For a JSON document carried inside a JSON string (Copilot's ``toolArgs``):
    after this, :func:`json_string` reads the inner document. ``\\\\`` pairs are
    split off first, so each remaining backslash starts a one-character escape.
    """
    if b"\\" not in value:
        return value
    pieces = value.split(b"\\\\")
    for i, piece in enumerate(pieces):
        if b"\\u" in piece:
            return None
        plain = piece
        for escape, char in _ESCAPES:
            plain = plain.replace(escape, char)
        pieces[i] = plain
    return b"\\".join(pieces)


_ESCAPES = (
    (b'\\"', b'"'),
    (b"\\/", b"/"),
    (b"\\n", b"\n"),
    (b"\\t", b"\t"),
    (b"\\r", b"\r"),
    (b"\\b", b"\b"),
    (b"\\f", b"\f"),
)


def first_string(raw: bytes, key: bytes) -> "bytes | None":
    """The raw value of ``"key":`` when a string, or the first string of an array (else ``None``).

    ``"workspace_roots": ["/a", "/b"]`` gives ``/a``.
    """
    value = json_string(raw, key)
    if value is not None:
        return value
    at = json_string_start(raw, key)
    if at < 0 or raw[at : at + 1] != b"[":
        return None
    at += 1
    while raw[at : at + 1] in (b" ", b"\t", b"\r", b"\n"):
        at += 1
    return string_at(raw, at)


_JSON_SPACE = b" \t\r\n"


def string_list(text: bytes) -> "list[bytes] | None":
    """The raw (still escaped) strings of a JSON array of strings, ``text`` being its whole
    JSON text (``None``: not exactly such an array, or empty).

    For Cline's ``commands``, a JSON list carried as a string: once the string is
    :func:`unescaped`, each item reads as a command member of any other payload does.
    """
    at = len(text) - len(text.lstrip(_JSON_SPACE))
    if text[at : at + 1] != b"[":
        return None
    items: list[bytes] = []
    while True:
        at += 1
        while text[at : at + 1] in (b" ", b"\t", b"\r", b"\n"):
            at += 1
        item = string_at(text, at)
        if item is None:
            return None
        items.append(item)
        at += len(item) + 2
        while text[at : at + 1] in (b" ", b"\t", b"\r", b"\n"):
            at += 1
        if text[at : at + 1] == b"]":
            return items if not text[at + 1 :].strip(_JSON_SPACE) else None
        if text[at : at + 1] != b",":
            return None
