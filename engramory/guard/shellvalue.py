"""What bash computes from known text: parameter operations, ``printf``, brace sequences.

Used by :mod:`engramory.guard.shellwrite` to follow a file name built with
``${F%x}``, ``${F/X/M}``, ``${F^^}``, ``${F:1:3}``, ``printf '%s%s' MEM ORY.md``
or ``MEMOR{X..Z}.md``. Patterns are marker globs
(:mod:`engramory.guard.indexmatch`); every function is bounded: a value too long
to match a glob against cheaply, or a form it does not know, gives ``None``
(the caller treats the result as unknown).
"""

from __future__ import annotations

from engramory.guard.indexmatch import GLOB_MARKS, glob_match

MAX_GLOB_VALUE = 128  # a glob pattern is matched against each slice: quadratic, so bounded
MAX_SEQUENCE = 64
MAX_PRINTED = 16384
_CASE = {"^^": str.upper, ",,": str.lower}


def operate(value: str, op: str, pattern: str, replacement: str) -> str | None:
    """``${value<op>pattern[/replacement]}``, or ``None`` when it cannot be worked out."""
    if op in _CASE:
        return _CASE[op](value)
    if op == "^":
        return value[:1].upper() + value[1:]
    if op == ",":
        return value[:1].lower() + value[1:]
    if op == ":":
        return _substring(value, pattern)
    is_glob = any(c in GLOB_MARKS for c in pattern)
    if is_glob and len(value) > MAX_GLOB_VALUE:
        return None
    if op in ("#", "##", "%", "%%"):
        return _strip(value, op, pattern, is_glob)
    if op in ("/", "//", "/#", "/%"):
        return _replace(value, op, pattern, replacement, is_glob)
    return None


def _matches(text: str, pattern: str, is_glob: bool) -> bool:
    return glob_match(text, pattern) if is_glob else text == pattern


def _strip(value: str, op: str, pattern: str, is_glob: bool) -> str:
    if not is_glob:
        if op[0] == "#":
            return value[len(pattern) :] if value.startswith(pattern) else value
        return value[: len(value) - len(pattern)] if pattern and value.endswith(pattern) else value
    cuts = range(len(value) + 1)
    if op == "#":
        return next((value[k:] for k in cuts if glob_match(value[:k], pattern)), value)
    if op == "##":
        return next((value[k:] for k in reversed(cuts) if glob_match(value[:k], pattern)), value)
    if op == "%":
        return next((value[:k] for k in reversed(cuts) if glob_match(value[k:], pattern)), value)
    return next((value[:k] for k in cuts if glob_match(value[k:], pattern)), value)


def _replace(value: str, op: str, pattern: str, replacement: str, is_glob: bool) -> str:
    if not pattern:
        return value
    if not is_glob:
        if op == "/#":
            return replacement + value[len(pattern) :] if value.startswith(pattern) else value
        if op == "/%":
            return value[: -len(pattern)] + replacement if value.endswith(pattern) else value
        return value.replace(pattern, replacement, -1 if op == "//" else 1)
    return _replace_glob(value, op, pattern, replacement)


def _replace_glob(value: str, op: str, pattern: str, replacement: str) -> str:
    """``${value/pattern/replacement}`` for a glob pattern: the longest match wins."""
    if op == "/#":
        for end in range(len(value), -1, -1):
            if glob_match(value[:end], pattern):
                return replacement + value[end:]
        return value
    if op == "/%":
        for start in range(len(value) + 1):
            if glob_match(value[start:], pattern):
                return value[:start] + replacement
        return value
    out: list[str] = []
    start = 0
    while start < len(value):
        end = next(
            (e for e in range(len(value), start, -1) if glob_match(value[start:e], pattern)), None
        )
        if end is None:
            out.append(value[start])
            start += 1
            continue
        out.append(replacement)
        start = end
        if op == "/":
            break
    return "".join(out) + value[start:]


def _substring(value: str, spec: str) -> str | None:
    offset_text, _, length_text = spec.partition(":")
    try:
        offset = int(offset_text.strip() or "0")
        length = int(length_text.strip()) if length_text.strip() else None
    except ValueError:
        return None
    if offset < 0:
        offset = max(len(value) + offset, 0)
    if length is None:
        return value[offset:]
    end = offset + length if length >= 0 else len(value) + length
    return value[offset:end]


def brace_sequence(body: str) -> list[str] | None:
    """The words of ``{a..e}``, ``{1..10..2}``, ``{01..03}`` (``None``: not a sequence)."""
    pieces = body.split("..")
    if len(pieces) not in (2, 3):
        return None
    step_text = pieces[2] if len(pieces) == 3 else "1"
    try:
        step = abs(int(step_text)) or 1
    except ValueError:
        return None
    first, last = pieces[0], pieces[1]
    if _is_int(first) and _is_int(last):
        a, b = int(first), int(last)
        width = max(len(first), len(last)) if first.lstrip("-").startswith("0") else 0
        numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(n).zfill(width) for n in numbers[:MAX_SEQUENCE]]
    if len(first) == 1 and len(last) == 1 and first.isascii() and last.isascii():
        a, b = ord(first), ord(last)
        codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(c) for c in codes[:MAX_SEQUENCE]]
    return None


def _is_int(text: str) -> bool:
    digits = text[1:] if text.startswith("-") else text
    return digits.isdigit() and digits.isascii() and len(digits) < 12


def printf_format(fmt: str, args: list[str]) -> str | None:
    """What ``printf FMT ARGS...`` prints, for ``%s``/``%b``/``%d``/``%c``/``%%`` and the
    usual backslash escapes; the format is reused while arguments remain (as bash does).
    ``None`` for a conversion it does not know."""
    out: list[str] = []
    size = 0
    k = 0  # the next argument
    while True:
        used = 0
        i = 0
        while i < len(fmt):
            c = fmt[i]
            if c == "\\" and i + 1 < len(fmt):
                out.append(
                    {"n": "\n", "t": "\t", "\\": "\\", "r": "\r"}.get(fmt[i + 1], fmt[i : i + 2])
                )
                i += 2
                continue
            if c != "%":
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < len(fmt) and fmt[j] in "-+ #0123456789.":
                j += 1
            conversion = fmt[j : j + 1]
            i = j + 1
            if conversion == "%":
                out.append("%")
                continue
            if conversion not in ("s", "b", "d", "i", "c", "q"):
                return None
            arg = args[k] if k < len(args) else ""
            k += 1
            used += 1
            out.append(arg[:1] if conversion == "c" else arg)
            size += len(out[-1])
            if size > MAX_PRINTED:
                return None
        if k >= len(args) or used == 0:
            return "".join(out)
