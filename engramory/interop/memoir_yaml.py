"""memoir's restricted YAML frontmatter: a reader and a writer, stdlib only.

memoir (seed 002, §3.1) restricts an entry's frontmatter to a YAML subset
that a small parser can read exactly: scalar ``key: value`` pairs, one level
of nested block mapping, and simple ``- item`` lists. This module reads that
subset and writes it so that YAML (PyYAML is the test oracle) and memoir-cli
read the same values.

Reading (:func:`parse_frontmatter`)
    * Scalars: plain, ``'single'`` (``''`` is a quote) or ``"double"`` (YAML's
      backslash escapes) on one line; a trailing `` # comment`` is dropped.
    * A plain scalar resolves as PyYAML does for ``null``/``~`` (None), the YAML
      1.1 booleans (``true``, ``yes``, ``on``... -> bool) and decimal integers
      (int). Everything else stays text: dates and date-times remain
      ``'YYYY-MM-DD...'`` strings, and so do numbers the subset has no use for
      (floats, ``0x1F``, ``010``, ``1_000``), which YAML would convert.
    * ``key:`` followed by more-indented ``sub: value`` lines is a mapping of
      scalars; followed by ``- item`` lines (indented or not) a list of scalars;
      followed by neither it is None.
    * Anything else (flow ``[a]``/``{a: b}``, block scalars ``|``/``>``,
      anchors, aliases, tags, deeper nesting, multi-line values, tab
      indentation, duplicate keys) raises :class:`MemoirSyntaxError` with the
      1-based line number in the file.
    * One leniency: a tab between tokens (after ``key:`` or ``-``, before a
      comment, at the end of a line, on a blank line) separates like a space,
      where PyYAML rejects the file; a tab in the indentation is an error.

Writing (:func:`dump_frontmatter`)
    * Key order is kept; mappings and lists in block style, never flow
      (memoir-cli reads ``{tool: x}`` as a string).
    * A string is written plain when YAML reads it back as that same string;
      otherwise single-quoted when it holds no ``'``, else double-quoted when
      it holds no ``"`` and no ``\\``. Neither form then needs an escape, so
      memoir-cli (which strips one pair of quotes and unescapes nothing) reads
      the same text as YAML. A string that fits none of these (both quote
      kinds where quoting is needed, a line break or a control character)
      raises :class:`UnwritableValue`: the caller lists it rather than write
      something the two readers would disagree on.
    * Quoting is conservative: any string starting with a digit, a sign, a dot,
      ``~``, ``<`` or ``=``, or spelling a YAML 1.1 boolean or null word, is
      quoted, so no number, date, boolean or null can slip through as text.

Both directions work line by line with string methods (no backtracking
pattern), so time is linear in the input; callers cap how much they read.
"""

from __future__ import annotations

from collections.abc import Mapping

from engramory.secrets.excerpts import excerpt

FENCE = "---"

# YAML 1.1 words PyYAML resolves (resolver.py), for reading.
_BOOLS = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
# Words quoted on writing whatever their case (a superset of what YAML 1.1 resolves).
_QUOTED_WORDS = frozenset(("yes", "no", "true", "false", "on", "off", "null", "y", "n"))
# First characters of every implicitly typed YAML 1.1 scalar (int, float, timestamp,
# null ``~``, merge ``<<``, value ``=``): such a string is always quoted on writing.
_TYPED_STARTS = frozenset("0123456789+-.~<=")
# Characters that may not start a plain scalar (YAML's indicators).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# Line breaks YAML knows besides \n and \r; they cannot be written on one line.
_BREAKS = frozenset("\r\n\x85\u2028\u2029")
_KEY_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_KEY_CHARS = _KEY_START | frozenset("0123456789-.")
_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


class MemoirSyntaxError(ValueError):
    """Frontmatter outside memoir's YAML subset; ``line`` is 1-based, in the file."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class UnwritableValue(ValueError):
    """A key or value :func:`dump_frontmatter` cannot write in the subset; ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{excerpt(key)}: {message}")
        self.key = key
        self.message = message


# --- splitting an entry ---------------------------------------------------------------------


def _is_fence(line: str) -> bool:
    """A line holding only ``---`` (trailing spaces, tabs and a ``\\r`` allowed)."""
    return line.startswith(FENCE) and not line[3:].rstrip(" \t\r")


def split_entry(text: str) -> tuple[str | None, str, int]:
    """``(frontmatter, body, body_line)`` of an entry's text.

    The frontmatter is the text between a first line ``---`` and the next line
    ``---`` (None when the first line is not a fence: the whole text is body);
    ``body_line`` is the 1-based line number of the body's first line. A leading
    BOM is dropped. An opening fence that is never closed raises
    :class:`MemoirSyntaxError` on line 1.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    first_end = text.find("\n")
    if not _is_fence(text if first_end < 0 else text[:first_end]):
        return None, text, 1
    line_no = 1
    start = first_end + 1
    while first_end >= 0 and start <= len(text):
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        line_no += 1
        if _is_fence(line):
            body = "" if end < 0 else text[end + 1 :]
            return text[first_end + 1 : start], body, line_no + 1
        if end < 0:
            break
        start = end + 1
    raise MemoirSyntaxError(
        1, "the opening '---' has no closing '---': end the frontmatter with a line '---'"
    )


# --- reading --------------------------------------------------------------------------------


def _parse_key(line: str, line_no: int) -> tuple[str, str]:
    """Split ``key: rest`` (no indentation) into the key and the text after the colon."""
    colon = line.find(":")
    key = line[:colon] if colon > 0 else ""
    if not key or key[0] not in _KEY_START or any(ch not in _KEY_CHARS for ch in key):
        raise MemoirSyntaxError(
            line_no,
            f"{excerpt(line)} is not a 'key: value' line: keys are letters, digits, '_', '-' "
            "and '.', starting with a letter or '_' (quoted keys, '? ' keys, flow and block "
            "scalars are not part of memoir's frontmatter)",
        )
    rest = line[colon + 1 :]
    if rest and rest[0] not in " \t":
        raise MemoirSyntaxError(
            line_no, f"{excerpt(line)}: put a space after the colon of {excerpt(key)}"
        )
    if key in _BOOLS or key in _NULLS:
        raise MemoirSyntaxError(
            line_no, f"the key {excerpt(key)} reads as a boolean or null in YAML: rename it"
        )
    rest = rest.strip(" \t")
    return key, "" if rest.startswith("#") else rest


def _double_quoted(text: str, line_no: int) -> tuple[str, str]:
    """Unquote a ``"..."`` scalar at the start of ``text``: ``(value, rest of the line)``."""
    out: list[str] = []
    i, n = 1, len(text)
    while i < n:
        stop = i
        while stop < n and text[stop] not in '"\\':
            stop += 1
        out.append(text[i:stop])
        if stop >= n:
            break
        if text[stop] == '"':
            return "".join(out), text[stop + 1 :]
        code = text[stop + 1 : stop + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i = stop + 2
        elif code in _HEX_ESCAPES:
            digits = text[stop + 2 : stop + 2 + _HEX_ESCAPES[code]]
            try:
                if len(digits) != _HEX_ESCAPES[code] or not all(
                    ch in "0123456789abcdefABCDEF" for ch in digits
                ):
                    raise ValueError(digits)
                out.append(chr(int(digits, 16)))
            except ValueError:
                raise MemoirSyntaxError(
                    line_no, f"a bad \\{code} escape in a double-quoted value: {excerpt(text)}"
                ) from None
            i = stop + 2 + len(digits)
        else:
            raise MemoirSyntaxError(
                line_no,
                f"an unknown escape {excerpt(chr(92) + code)} in a double-quoted value: "
                "write a backslash as \\\\",
            )
    raise MemoirSyntaxError(
        line_no,
        "a double-quoted value is not closed on its line (multi-line values are not "
        "part of memoir's frontmatter)",
    )


def _single_quoted(text: str, line_no: int) -> tuple[str, str]:
    """Unquote a ``'...'`` scalar at the start of ``text``: ``(value, rest of the line)``."""
    out: list[str] = []
    i = 1
    while True:
        end = text.find("'", i)
        if end < 0:
            raise MemoirSyntaxError(
                line_no,
                "a single-quoted value is not closed on its line (write a quote inside it as '')",
            )
        out.append(text[i:end])
        if text[end + 1 : end + 2] == "'":
            out.append("'")
            i = end + 2
            continue
        return "".join(out), text[end + 1 :]


def _plain(text: str, line_no: int) -> str | int | bool | None:
    """Resolve a plain scalar (comment already possible at its end)."""
    for mark in (" #", "\t#"):
        cut = text.find(mark)
        if cut >= 0:
            text = text[:cut]
    text = text.rstrip(" \t")
    if text[:1] in _INDICATORS and not (text[:1] in "-?:" and text[1:2] not in ("", " ", "\t")):
        raise MemoirSyntaxError(
            line_no,
            f"{excerpt(text)}: flow collections, block scalars, anchors, aliases, tags and "
            "nested items are not part of memoir's frontmatter; quote the value if it is text",
        )
    if ": " in text or ":\t" in text or text.endswith(":"):
        raise MemoirSyntaxError(
            line_no, f"{excerpt(text)}: a value holding ': ' (or ending in ':') must be quoted"
        )
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    digits = text[1:] if text[:1] in "+-" else text
    if digits.isdigit() and digits.isascii() and (digits == "0" or digits[0] != "0"):
        return int(text)
    return text


def _scalar(text: str, line_no: int) -> str | int | bool | None:
    """The value of the scalar ``text`` (already stripped), as memoir's subset reads it."""
    if text[:1] in "\"'":
        if text[0] == '"':
            value, rest = _double_quoted(text, line_no)
        else:
            value, rest = _single_quoted(text, line_no)
        rest = rest.strip(" \t")
        if rest and rest[0] != "#":
            raise MemoirSyntaxError(
                line_no, f"text after a quoted value: {excerpt(rest)} (quote the whole value)"
            )
        if rest and text[len(text) - len(rest) - 1 : len(text) - len(rest)] not in " \t":
            raise MemoirSyntaxError(line_no, "put a space before the comment after a value")
        return value
    return _plain(text, line_no)


def _lines(text: str, first_line: int) -> list[tuple[int, int, str]]:
    """``(line number, indentation, content)`` of the lines that hold something."""
    out = []
    for offset, raw in enumerate(text.split("\n")):
        line = raw[:-1] if raw.endswith("\r") else raw
        content = line.lstrip(" ")
        if not content.strip(" \t") or content[0] == "#":
            continue
        line_no = first_line + offset
        if content[0] == "\t":
            raise MemoirSyntaxError(line_no, "a tab in the indentation: indent with spaces")
        if line.rstrip() == "...":
            raise MemoirSyntaxError(line_no, "a '...' document end inside the frontmatter")
        out.append((line_no, len(line) - len(content), content))
    return out


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith(("- ", "-\t"))


def _block(
    key: str, lines: list[tuple[int, int, str]], start: int, parent_line: int
) -> tuple[object, int]:
    """The block value of ``key:`` from ``lines[start]`` on: ``(value, next index)``."""
    if start >= len(lines):
        return None, start
    _line_no, indent, content = lines[start]
    if _is_item(content):
        return _items(lines, start, indent)
    if indent == 0:
        return None, start
    return _children(key, lines, start, indent, parent_line)


def _items(lines: list[tuple[int, int, str]], start: int, indent: int) -> tuple[object, int]:
    """A ``- item`` list at ``indent``."""
    items: list[object] = []
    index = start
    while index < len(lines):
        line_no, this_indent, content = lines[index]
        if this_indent < indent or (this_indent == indent and not _is_item(content)):
            break
        if this_indent > indent:
            raise MemoirSyntaxError(
                line_no, "a more-indented line inside a list: items are single-line scalars"
            )
        item = content[1:].strip(" \t")
        if _is_item(item) or (item[:1] not in "\"'" and (": " in item or item.endswith(":"))):
            raise MemoirSyntaxError(
                line_no, "a list item that is itself a list or mapping: items are scalars"
            )
        items.append(_scalar(item, line_no) if item else None)
        index += 1
    if index < len(lines) and lines[index][1] > 0:
        raise MemoirSyntaxError(lines[index][0], "unexpected indentation after a list")
    return items, index


def _children(
    key: str, lines: list[tuple[int, int, str]], start: int, indent: int, parent_line: int
) -> tuple[object, int]:
    """A nested mapping of scalars at ``indent``."""
    mapping: dict[str, object] = {}
    index = start
    while index < len(lines):
        line_no, this_indent, content = lines[index]
        if this_indent == 0:
            break
        if this_indent != indent:
            raise MemoirSyntaxError(
                line_no,
                f"inconsistent indentation under {excerpt(key)} (line {parent_line}): memoir's "
                "frontmatter nests one level only",
            )
        if _is_item(content):
            raise MemoirSyntaxError(line_no, "a list inside a nested mapping (too deep)")
        sub, rest = _parse_key(content, line_no)
        if sub in mapping:
            raise MemoirSyntaxError(line_no, f"{excerpt(sub)} is set twice under {excerpt(key)}")
        if not rest:
            following = lines[index + 1] if index + 1 < len(lines) else None
            if following is not None and (
                following[1] > indent or (following[1] == indent and _is_item(following[2]))
            ):
                raise MemoirSyntaxError(
                    following[0], "nesting deeper than one level is not part of the subset"
                )
        mapping[sub] = _scalar(rest, line_no) if rest else None
        index += 1
    return mapping, index


def parse_frontmatter(text: str, first_line: int = 2) -> dict[str, object]:
    """Parse memoir frontmatter text (as :func:`split_entry` returns it).

    ``first_line`` is the file line of the text's first line (2: right after
    the opening fence), so errors name lines of the file. Raises
    :class:`MemoirSyntaxError` on anything outside the subset.
    """
    lines = _lines(text, first_line)
    result: dict[str, object] = {}
    key_lines: dict[str, int] = {}
    index = 0
    while index < len(lines):
        line_no, indent, content = lines[index]
        if indent:
            raise MemoirSyntaxError(
                line_no,
                "unexpected indentation (a continued multi-line value, or a nested line "
                "without its 'key:' line): keep each value on one line",
            )
        key, rest = _parse_key(content, line_no)
        if key in key_lines:
            raise MemoirSyntaxError(
                line_no, f"{excerpt(key)} is set again (first on line {key_lines[key]})"
            )
        key_lines[key] = line_no
        if rest:
            result[key] = _scalar(rest, line_no)
            index += 1
        else:
            result[key], index = _block(key, lines, index + 1, line_no)
    return result


# --- writing --------------------------------------------------------------------------------


def _printable_for_yaml(value: str) -> bool:
    """Whether every character may stand unescaped on one line of a YAML stream."""
    for ch in value:
        code = ord(ch)
        if ch == "\t" or 0x20 <= code <= 0x7E:
            continue
        if ch in _BREAKS or code < 0xA0 or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
            return False
    return True


def _plain_ok(value: str) -> bool:
    """Whether YAML reads ``value`` written bare back as this very string."""
    return not (
        not value
        or value != value.strip(" \t")
        or "\t" in value
        or value[0] in _INDICATORS
        or value[0] in _TYPED_STARTS
        or value.lower() in _QUOTED_WORDS
        or ": " in value
        or value.endswith(":")
        or " #" in value
        or value[0] == "\ufeff"
    )


def write_string(value: str, key: str = "") -> str:
    """``value`` as a YAML scalar that YAML and memoir-cli both read back as ``value``."""
    if not _printable_for_yaml(value):
        raise UnwritableValue(
            key, "holds a line break or control character, which cannot be written on one line"
        )
    if _plain_ok(value):
        return value
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value and "\\" not in value:
        return f'"{value}"'
    raise UnwritableValue(
        key,
        "needs quoting and holds both quote kinds (or ' and a backslash): no quoting reads the "
        "same in YAML and memoir-cli",
    )


def _write_scalar(value: object, key: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return write_string(value, key)
    raise UnwritableValue(key, f"a {type(value).__name__} is not a scalar of memoir's subset")


def _check_key(key: object) -> str:
    if (
        not isinstance(key, str)
        or not key
        or key[0] not in _KEY_START
        or any(ch not in _KEY_CHARS for ch in key)
        or key in _BOOLS
        or key in _NULLS
    ):
        raise UnwritableValue(str(key), "is not a key memoir's frontmatter can hold")
    return key


def dump_frontmatter(mapping: Mapping[str, object]) -> str:
    """The frontmatter lines (no fences) for ``mapping``, each ending in ``\\n``.

    Raises :class:`UnwritableValue` for a key or value the subset cannot hold
    so that both YAML and memoir-cli read it back (see the module docstring),
    an empty list or mapping, or nesting deeper than one level.
    """
    lines: list[str] = []
    for raw_key, value in mapping.items():
        key = _check_key(raw_key)
        if isinstance(value, Mapping):
            if not value:
                raise UnwritableValue(key, "an empty mapping cannot be written in block style")
            lines.append(f"{key}:")
            for sub, sub_value in value.items():
                sub_key = _check_key(sub)
                lines.append(f"  {sub_key}: {_write_scalar(sub_value, f'{key}.{sub_key}')}")
        elif isinstance(value, (list, tuple)):
            if not value:
                raise UnwritableValue(key, "an empty list cannot be written in block style")
            lines.append(f"{key}:")
            lines.extend(f"  - {_write_scalar(item, key)}" for item in value)
        else:
            lines.append(f"{key}: {_write_scalar(value, key)}")
    return "".join(line + "\n" for line in lines)


def render_entry(mapping: Mapping[str, object], body: str) -> str:
    """A whole entry: ``---``, the frontmatter of ``mapping``, ``---``, then ``body``."""
    return f"{FENCE}\n{dump_frontmatter(mapping)}{FENCE}\n{body}"
