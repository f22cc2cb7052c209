"""The restricted ``key: value`` frontmatter of Engramory notes: a parser and a writer.

This is deliberately not YAML. A note's frontmatter is a block of
``key: value`` lines between two ``---`` fences; there are no lists, no
nesting and no multi-line values, so a zero-dependency reader can parse it
exactly and a human can always see what the agent wrote.

The grammar, and where it keeps or changes the earlier implementation's
behaviour (research §3; each choice is pinned by ``tests/test_frontmatter.py``):

Fences
    * The opening fence is the first line, which must be ``---`` once
      surrounding whitespace (including a trailing ``\\r``) is stripped. A
      blank line before it means "no frontmatter": the whole text is body.
    * The closing fence is the first later line that is exactly ``---``
      followed only by spaces or tabs and an optional ``\\r``. An indented
      ``---``, a YAML ``...`` or ``----`` does not close.
    * No closing fence: one problem, on line 1, and no fields at all.
    * Only ``\\n`` separates lines (as in :mod:`engramory.store.caps`), so every line
      number agrees with ``engramory check`` and the guard. *Changed:* the
      earlier parser also split on lone ``\\r`` and U+2028.

Lines between the fences
    * Blank lines and lines starting with ``#`` are ignored.
    * ``key: value`` is split at the first colon; both sides are stripped.
      Indentation is ignored, so the children of a legacy host-native
      ``metadata:`` block read as ordinary keys.
    * A line without a colon is a problem. *Changed:* an empty key
      (``: value``) is a problem too; it used to be accepted silently.
    * A repeated key is a problem; the first value is kept, so a second
      ``type:`` cannot quietly change how the note is judged.

Values
    * A bare value is used verbatim and never de-quoted, so a trailing ``"``
      in prose survives and ``2026-01-01"`` stays an invalid date.
    * A value starting with ``"`` or ``'`` must end with the same quote, with
      no unescaped copy of that quote inside. ``\\\\`` and a backslash before
      the quote character are escapes and are unescaped in the parsed value;
      any other backslash is literal, so ``"C:\\new"`` keeps its backslash.
      *Changed:* an escaped closing quote (``"abc\\"``) is unclosed; the
      earlier parser accepted it as ``abc\\``. Escapes used to be left in the
      value; unescaping them is what lets :func:`render` round-trip.
    * On a quoting problem the value is still recorded, best effort, so later
      checks can keep going; the problem itself is always reported.

Input
    * :func:`parse_bytes` strips a UTF-8 byte-order mark (it does not shift
      line numbers) and decodes invalid UTF-8 with replacement characters.
      Neither function ever raises, whatever the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engramory.secrets.excerpts import excerpt

NOTE_TYPES = ("user", "feedback", "project", "reference")  # the values of ``type:``
TYPES_TEXT = ", ".join(NOTE_TYPES)
FENCE = "---"
QUOTES = ('"', "'")

MALFORMED_LINE = "malformed-line"
EMPTY_KEY = "empty-key"
DUPLICATE_KEY = "duplicate-key"
UNCLOSED_FENCE = "unclosed-fence"
UNCLOSED_QUOTE = "unclosed-quote"
STRAY_QUOTE = "stray-quote"

# Only the first problems of each kind are kept, the rest counted (in
# ``Frontmatter.dropped``): a 4 MiB block of bad lines would otherwise make
# two million of them. At least the doctor's cap on findings per file.
PROBLEMS_KEPT_PER_KIND = 32


def _closing_fence(text: str, newline: int) -> tuple[int, int] | None:
    """``(start, end)`` of the first closing fence after the ``\\n`` at ``newline``.

    A closing fence is ``---`` at a line start, then only spaces or tabs and one
    optional ``\\r`` (``end`` is where its line ends). Only ``\\n`` breaks lines.
    """
    while True:
        found = text.find("\n---", newline)
        if found < 0:
            return None
        start = found + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        rest = text[start + 3 : end]
        if rest.endswith("\r"):
            rest = rest[:-1]
        if not rest.strip(" \t"):
            return start, end
        newline = start


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a frontmatter block, at a 1-based line of the file."""

    line: int
    kind: str
    message: str
    key: str | None = None


class Frontmatter:
    """The result of parsing one note.

    ``present`` says an opening fence was found; ``closed`` that it was
    closed. ``fields`` maps each key to its (unquoted) value, ``key_lines`` to
    the line it was set on. ``body`` is the text after the closing fence and
    ``body_line`` the line number of its first line. ``problems`` holds the
    first :data:`PROBLEMS_KEPT_PER_KIND` problems of each kind, in line order;
    ``dropped`` counts the rest by kind. (A slotted class rather than a
    dataclass: the doctor builds one per note.)
    """

    __slots__ = (
        "body",
        "body_line",
        "closed",
        "dropped",
        "fence_lines",
        "fields",
        "key_lines",
        "present",
        "problems",
    )

    def __init__(
        self,
        present: bool,
        closed: bool,
        fields: dict[str, str],
        key_lines: dict[str, int],
        problems: tuple[Problem, ...],
        body: str,
        body_line: int,
        fence_lines: tuple[int, ...] = (),
        dropped: dict[str, int] | None = None,
    ) -> None:
        self.present = present
        self.closed = closed
        self.fields = fields
        self.key_lines = key_lines
        self.problems = problems
        self.body = body
        self.body_line = body_line
        self.fence_lines = fence_lines
        self.dropped = dropped or {}

    def __repr__(self) -> str:
        return (
            f"Frontmatter(present={self.present}, closed={self.closed}, fields={self.fields}, "
            f"problems={self.problems}, body_line={self.body_line})"
        )


def decode(raw: bytes) -> str:
    """Decode note bytes: drop a UTF-8 BOM, replace invalid sequences, never raise."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    return raw.decode("utf-8", "replace")


def parse_bytes(raw: bytes) -> Frontmatter:
    """Parse a note as read from disk."""
    return parse(decode(raw))


def _unquote(value: str) -> tuple[str, str | None]:
    """Strip one matching pair of quotes. Returns ``(value, problem kind or None)``."""
    quote = value[0]
    last = len(value) - 1
    out: list[str] = []
    start = 1
    end = value.find(quote, start)
    while True:
        if end < start:  # the quote found last was escaped: look for the next one
            end = value.find(quote, start)
        if end == -1:
            return value[1:], UNCLOSED_QUOTE
        escape = value.find("\\", start, end)
        if escape != -1:
            # An escape before the next quote: '\\' or '\<quote>' stand for one
            # character; any other backslash is literal.
            if value[escape + 1] in ("\\", quote):
                out.append(value[start:escape])
                out.append(value[escape + 1])
                start = escape + 2
            else:
                out.append(value[start : escape + 1])
                start = escape + 1
            continue
        out.append(value[start:end])
        if end == last:
            return "".join(out), None
        return _stray_quote_value(value, quote)


def _stray_quote_value(value: str, quote: str) -> tuple[str, str]:
    inner = value[1:-1] if value.endswith(quote) else value[1:]
    return inner, STRAY_QUOTE


def _quote_problem(kind: str, key: str, quote: str, line: int) -> Problem:
    shown = excerpt(key)
    if kind == UNCLOSED_QUOTE:
        message = (
            f"the value of {shown} opens a {quote} quote that is never closed: end the value "
            f"with {quote} (write an inner {quote} as \\{quote}) or remove the opening quote"
        )
    else:
        message = (
            f"the value of {shown} has an unescaped {quote} inside its quotes: write it as "
            f"\\{quote}, or drop the surrounding quotes (a bare value is kept verbatim)"
        )
    return Problem(line, kind, message, key)


class _FieldCollector:
    """Accumulates the fields and problems of the lines between the fences."""

    def __init__(self, fields: dict[str, str], key_lines: dict[str, int]) -> None:
        self.fields = fields
        self.key_lines = key_lines
        self.problems: list[Problem] = []
        self.dropped: dict[str, int] = {}
        self._seen: dict[str, int] = {}
        self._repeated: set[str] = set()

    def _keep(self, kind: str) -> bool:
        """Whether a problem of ``kind`` is kept (else it is only counted, unbuilt)."""
        seen = self._seen[kind] = self._seen.get(kind, 0) + 1
        if seen <= PROBLEMS_KEPT_PER_KIND:
            return True
        self.dropped[kind] = self.dropped.get(kind, 0) + 1
        return False

    def add(self, stripped: str, line_no: int) -> None:
        """Take one non-blank, non-comment line (already stripped)."""
        colon = stripped.find(":")
        if colon < 0:
            if not self._keep(MALFORMED_LINE):
                return
            self.problems.append(
                Problem(
                    line_no,
                    MALFORMED_LINE,
                    f"{excerpt(stripped)} is not a 'key: value' line: write one 'key: value' "
                    "per line (lists, block values and multi-line text are not part of the "
                    "format)",
                )
            )
            return
        key = stripped[:colon].strip()
        value = raw_value = stripped[colon + 1 :].strip()
        if not key:
            if not self._keep(EMPTY_KEY):
                return
            self.problems.append(
                Problem(
                    line_no,
                    EMPTY_KEY,
                    "a line starts with ':' and has no key: write the field name before the "
                    "colon, e.g. 'description: ...'",
                )
            )
            return
        if raw_value[:1] in QUOTES:
            value, kind = _unquote(raw_value)
            if kind is not None and self._keep(kind):
                self.problems.append(_quote_problem(kind, key, raw_value[0], line_no))
        if key in self.key_lines:
            self._report_repeat(key, line_no)
            return
        self.fields[key] = value
        self.key_lines[key] = line_no

    def _report_repeat(self, key: str, line_no: int) -> None:
        if key in self._repeated:
            return
        self._repeated.add(key)
        if not self._keep(DUPLICATE_KEY):
            return
        self.problems.append(
            Problem(
                line_no,
                DUPLICATE_KEY,
                f"{excerpt(key)} is set again (first on line {self.key_lines[key]}): keep "
                f"exactly one {excerpt(key + ':')} line",
                key,
            )
        )


def parse(text: str) -> Frontmatter:
    """Parse the frontmatter of a note's text. Never raises."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.strip() != FENCE:
        return Frontmatter(False, False, {}, {}, (), text, 1)
    closing = None if first_end < 0 else _closing_fence(text, first_end)
    if closing is None:
        unclosed = Problem(
            1,
            UNCLOSED_FENCE,
            "the opening '---' has no closing '---': add a line holding only '---' after "
            "the last field (it must start at the beginning of the line)",
        )
        return Frontmatter(True, False, {}, {}, (unclosed,), "", text.count("\n") + 2, (1,))

    fields: dict[str, str] = {}
    key_lines: dict[str, int] = {}
    collector = None
    middle = text[first_end + 1 : closing[0]]
    lines = middle.split("\n")
    lines.pop()  # the block ends with the newline before the fence
    line_no = 1
    for line in lines:
        line_no += 1
        stripped = line.strip()
        if not stripped or stripped[0] == "#":
            continue
        # The common case inline (a new key, a bare value); everything else in add().
        key, colon, value = stripped.partition(":")
        key = key.rstrip()
        value = value.lstrip()
        if colon and key and value[:1] not in QUOTES and key not in key_lines:
            fields[key] = value
            key_lines[key] = line_no
        else:
            if collector is None:
                collector = _FieldCollector(fields, key_lines)
            collector.add(stripped, line_no)
    fence_line = len(lines) + 2
    after = closing[1]
    body = text[after + 1 :] if after < len(text) else ""
    return Frontmatter(
        True,
        True,
        fields,
        key_lines,
        tuple(collector.problems) if collector is not None else (),
        body,
        fence_line + 1,
        (1, fence_line),
        collector.dropped if collector is not None else None,
    )


def _check_key(key: str) -> None:
    if not key or key != key.strip() or ":" in key or "\n" in key or key.startswith("#"):
        raise ValueError(f"cannot write frontmatter key {key!r}")


def render_value(value: str) -> str:
    """Render one value so that :func:`parse` reads it back unchanged.

    A value is quoted only when it must be: when it has surrounding
    whitespace or starts with a quote character.
    """
    if "\n" in value:
        raise ValueError("frontmatter values are single-line; the value holds a newline")
    if value != value.strip() or value[:1] in QUOTES:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def render(fields: Mapping[str, str]) -> str:
    """Render a frontmatter block (fences included, ending in a newline).

    Raises :class:`ValueError` for a key or value the grammar cannot hold
    (an empty key, a colon or newline in a key, a newline in a value).
    """
    lines = [FENCE]
    for key, value in fields.items():
        _check_key(key)
        rendered = render_value(value)
        lines.append(f"{key}: {rendered}" if rendered else f"{key}:")
    lines.append(FENCE)
    return "\n".join(lines) + "\n"
