"""The one definition of the index caps and of how an index is measured.

``engramory check``, the doctor and every hook import this module, so they
always agree on a count. It is on the hook's hot path, so it imports only ``os``.

The rules (DESIGN §3.1, §4):

* Caps: soft (warn) 150 lines / 20480 bytes, hard 200 lines / 25000 bytes.
  Claude Code cuts its index at 200 lines and 25,000 UTF-16 units; a UTF-8
  byte count is never below the UTF-16 count, so an index within 25000 bytes
  is never cut.
  A cap is exceeded only when the measure is strictly greater than it.
* Environment: ``ENGRAMORY_WARN``, ``ENGRAMORY_HARD``, ``ENGRAMORY_WARN_BYTES``,
  ``ENGRAMORY_HARD_BYTES``. An unset, empty, non-integer, zero or negative
  value means the default, so a typo can never switch the cap off. Only
  ASCII digits count (``int()`` would also accept ``"٥"`` or ``"1_000"``).
  Command-line flags override the environment.
* Lines: the number of ``\\n`` characters, plus one when the text is non-empty
  and does not end in ``\\n``. ``\\r``, U+2028 and friends are not line breaks.
  A leading UTF-8 byte-order mark is not text: it counts toward bytes only.
* Bytes: the raw size on disk, or the UTF-8 length of a predicted text.
"""

from __future__ import annotations

import os

INDEX_NAME = "MEMORY.md"  # the always-loaded index, named once (discovery re-exports it)

DEFAULT_WARN_LINES = 150
DEFAULT_HARD_LINES = 200
DEFAULT_WARN_BYTES = 20480
DEFAULT_HARD_BYTES = 25000

LINES = "lines"
BYTES = "bytes"

OK = "ok"
WARN = "warn"
OVER = "over"

ENV_VARS = (
    ("warn_lines", "ENGRAMORY_WARN", DEFAULT_WARN_LINES),
    ("hard_lines", "ENGRAMORY_HARD", DEFAULT_HARD_LINES),
    ("warn_bytes", "ENGRAMORY_WARN_BYTES", DEFAULT_WARN_BYTES),
    ("hard_bytes", "ENGRAMORY_HARD_BYTES", DEFAULT_HARD_BYTES),
)

_BOM_BYTES = b"\xef\xbb\xbf"
_BOM_TEXT = "\ufeff"


class Caps:
    """The four limits an index is measured against."""

    __slots__ = ("hard_bytes", "hard_lines", "warn_bytes", "warn_lines")

    def __init__(
        self,
        warn_lines: int = DEFAULT_WARN_LINES,
        hard_lines: int = DEFAULT_HARD_LINES,
        warn_bytes: int = DEFAULT_WARN_BYTES,
        hard_bytes: int = DEFAULT_HARD_BYTES,
    ) -> None:
        self.warn_lines = warn_lines
        self.hard_lines = hard_lines
        self.warn_bytes = warn_bytes
        self.hard_bytes = hard_bytes

    def read_limit(self) -> int:
        """The largest index read in full, by the doctor and the guard: max(8 x hard bytes, 1 MiB).

        Past the hard cap an index is still worth reading (to say how far over it
        is), but not without bound.
        """
        return max(8 * self.hard_bytes, 1024 * 1024)

    def as_dict(self) -> dict[str, int]:
        """The JSON shape: ``{"warn_lines", "hard_lines", "warn_bytes", "hard_bytes"}``."""
        return {
            "warn_lines": self.warn_lines,
            "hard_lines": self.hard_lines,
            "warn_bytes": self.warn_bytes,
            "hard_bytes": self.hard_bytes,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Caps) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in self.as_dict().items())
        return f"Caps({fields})"


def positive_int(raw: str | None) -> int | None:
    """Parse a cap setting: ASCII digits, above zero; anything else is ``None``."""
    if raw is None:
        return None
    text = raw.strip()
    if not text or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value > 0 else None


def caps_from(environ: dict[str, str] | None = None, **overrides: int | None) -> Caps:
    """Caps from the environment, with command-line ``overrides`` taking precedence.

    ``overrides`` are keyword arguments named like the :class:`Caps` fields; a
    ``None`` override means "not given on the command line".
    """
    if environ is None:
        environ = dict(os.environ)
    values: dict[str, int] = {}
    for field, env_name, default in ENV_VARS:
        override = overrides.pop(field, None)
        if override is not None:
            values[field] = override
        else:
            from_env = positive_int(environ.get(env_name))
            values[field] = default if from_env is None else from_env
    if overrides:
        raise TypeError(f"unknown cap(s): {', '.join(sorted(overrides))}")
    return Caps(**values)


def count_lines(data: bytes | str) -> int:
    """Lines by the shared rule: count ``\\n``, plus one for an unterminated last line.

    A leading byte-order mark is ignored, so a file holding only a BOM has no
    lines. Counting on raw bytes gives the same answer as on the decoded text
    (``\\n`` never occurs inside a multi-byte UTF-8 sequence).
    """
    if isinstance(data, bytes):
        if data.startswith(_BOM_BYTES):
            data = data[len(_BOM_BYTES) :]
        newline: bytes | str = b"\n"
    else:
        if data.startswith(_BOM_TEXT):
            data = data[len(_BOM_TEXT) :]
        newline = "\n"
    if not data:
        return 0
    return data.count(newline) + (0 if data.endswith(newline) else 1)


def utf8_size(text: str) -> int:
    """The UTF-8 size of a predicted text, as the file would hold it.

    A text decoded with ``surrogateescape`` gives its invalid bytes back as the
    same single bytes, so a non-UTF-8 index keeps its true size and an edit that
    does not grow it is never mistaken for growth. A lone surrogate that arrived
    in a JSON payload counts as three bytes.
    """
    try:
        return len(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass")) - 2 * sum(
            1 for ch in text if "\udc80" <= ch <= "\udcff"
        )


class Measurement:
    """An index measured: ``bytes`` always known; ``lines`` is ``None`` when it was not read.

    An index too large to be worth reading is measured by its size alone.
    """

    __slots__ = ("bytes", "lines")

    def __init__(self, lines: int | None, size: int) -> None:
        self.lines = lines
        self.bytes = size

    @classmethod
    def of_raw(cls, raw: bytes) -> Measurement:
        """The measure of a file's bytes."""
        return cls(count_lines(raw), len(raw))

    @classmethod
    def of_text(cls, text: str) -> Measurement:
        """The measure of a predicted text (see :func:`utf8_size`)."""
        return cls(count_lines(text), utf8_size(text))

    def over(self, line_cap: int, byte_cap: int) -> list[str]:
        """The dimensions strictly above these caps (see :func:`over`)."""
        return over(self.lines, self.bytes, line_cap, byte_cap)

    def verdict(self, caps: Caps) -> tuple[str, list[str]]:
        """``ok``, ``warn`` or ``over``, with the dimensions responsible (see :func:`verdict`)."""
        return verdict(self.lines, self.bytes, caps)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Measurement)
            and self.lines == other.lines
            and self.bytes == other.bytes
        )

    def __hash__(self) -> int:
        return hash((self.lines, self.bytes))

    def __repr__(self) -> str:
        return f"Measurement(lines={self.lines!r}, bytes={self.bytes!r})"


def over(lines: int | None, size: int, line_cap: int, byte_cap: int) -> list[str]:
    """The dimensions (``"lines"``, ``"bytes"``) strictly above their cap, in that order.

    ``lines`` may be ``None`` when the file was not read; that dimension is
    then unknown and never reported.
    """
    dims = []
    if lines is not None and lines > line_cap:
        dims.append(LINES)
    if size > byte_cap:
        dims.append(BYTES)
    return dims


def verdict(lines: int | None, size: int, caps: Caps) -> tuple[str, list[str]]:
    """``("over", dims)`` past a hard cap, ``("warn", dims)`` past a soft cap, else ``("ok", [])``.

    ``dims`` lists the dimensions responsible for the verdict.
    """
    hard = over(lines, size, caps.hard_lines, caps.hard_bytes)
    if hard:
        return OVER, hard
    soft = over(lines, size, caps.warn_lines, caps.warn_bytes)
    if soft:
        return WARN, soft
    return OK, []
