"""The result of one host's cut: what it counts, its limit, and the lines it does not load."""

from __future__ import annotations

from dataclasses import dataclass, field

UTF16_UNITS = "utf16-units"
TOKENS = "tokens"
CHARACTERS = "characters"
# What JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator), not isspace().
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


@dataclass(frozen=True)
class Cut:
    """What a host loads of one memory file.

    ``used`` is the file's size in the host's own ``measure`` (after the host's
    own trimming and stripping); ``limit`` is ``None`` when the host has no cap.
    ``dropped`` holds the 1-based line numbers (``\\n`` counted, as everywhere in
    Engramory) of the non-blank lines the host does not load in full, in order;
    ``over_by`` is how far ``used`` is past ``limit`` (0 when within).
    ``explain`` is one sentence saying how the host counts and cuts.
    """

    host: str
    measure: str
    limit: int | None
    used: int
    explain: str
    dropped: tuple[int, ...] = field(default=())
    over_by: int = 0
    cut_at_load: bool = True  # False: the host loads all and refuses to add past its cap

    @property
    def loads_all(self) -> bool:
        """Whether the host loads (or, for Hermes, accepts) everything in the file."""
        return not self.dropped and self.over_by == 0


def utf16_units(text: str) -> int:
    """The JavaScript ``length`` of ``text``: code points above U+FFFF count twice."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def decoded(data: bytes) -> str:
    """File bytes as text: a UTF-8 BOM dropped, invalid sequences replaced."""
    return (data[3:] if data.startswith(b"\xef\xbb\xbf") else data).decode("utf-8", "replace")


def source_lines(text: str) -> list[str]:
    """The file's lines as Engramory numbers them: split at ``\\n``, no final empty line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def nonblank_after(lines: list[str], numbers: list[int]) -> tuple[int, ...]:
    """The 1-based numbers among ``numbers`` whose line holds more than whitespace."""
    return tuple(n for n in numbers if lines[n - 1].strip())
