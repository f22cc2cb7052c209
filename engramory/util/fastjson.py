"""JSON in and out for the hook's hot path, without importing ``re``.

The standard ``json`` package imports ``re`` (and with it ``enum`` and
``functools``) for its pure-Python fallbacks: about 5 ms on every hook call,
as much as the interpreter's own start-up. The parsing itself is done by
CPython's C accelerator, ``_json``, which this module drives directly. Where
``_json`` is not available (another Python implementation) it falls back to
``json``, with the same results.

Only what the hooks need: :func:`loads` of a payload and :func:`dumps` of the
small objects a hook prints (dicts, lists, strings, numbers, booleans, None),
formatted exactly as ``json.dumps`` formats them.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover - not CPython
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"


class _Context:
    """The settings object ``_json.make_scanner`` reads (as ``json.JSONDecoder`` would pass)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # 'NaN', 'Infinity', '-Infinity'
    memo: dict[str, str] = {}  # noqa: RUF012 - read once by the C scanner


def loads(text: str) -> object:
    """Parse one JSON document; raises ``ValueError`` (or ``RecursionError``) when invalid."""
    if _json is None or not hasattr(_json, "make_scanner"):  # pragma: no cover
        import json  # noqa: PLC0415

        return json.loads(text)
    scan = _json.make_scanner(_Context())
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"not JSON at character {exc.value}") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value


def _encode_string(text: str) -> str:
    if _json is not None and hasattr(_json, "encode_basestring_ascii"):
        return _json.encode_basestring_ascii(text)
    import json  # noqa: PLC0415 # pragma: no cover

    return json.dumps(text)


def dumps(value: object) -> str:
    """Serialise like ``json.dumps(value)`` (ASCII output, default separators)."""
    if isinstance(value, str):
        return _encode_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        items = (f"{_encode_string(str(k))}: {dumps(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot serialise {type(value).__name__}")
