"""Does a PowerShell command write the memory index? A textual, conservative check.

The guard's shell analysis (:mod:`engramory.guard.shellwrite`) reads bash. A
PowerShell command line (GitHub Copilot's ``powershell`` tool) gets this
smaller check instead: it names the index AND it uses something that can write
a file -> treat it as a write of the index. Both tests work on the text after
lower-casing and removing PowerShell's escape character (the backtick) and
quotes, with string concatenation (``'MEM' + 'ORY.md'``) joined up; a
wildcard word (``MEM*.md``) that matches the index's name names it too. It
cannot follow variables built in pieces or computed names: it is a net for the
plain cases, not a parser.

No regular expressions: every step is a linear pass (``str`` methods), apart
from matching a wildcard word against the index's name (bounded by the name's
length). On the hook's path: imports nothing.
"""

from __future__ import annotations

# Cmdlets, their aliases and programs that can write a file when given its name.
WRITERS = frozenset(
    """set-content add-content out-file new-item copy-item move-item rename-item remove-item
    clear-content set-item tee-object export-csv export-clixml invoke-expression start-process
    sc ac cp copy cpi mv move mi ni rm del erase ri rd rmdir ren rni clc si tee iex saps start
    cmd bash sh wsl pwsh powershell python python3 py node perl ruby sed awk""".split()  # noqa: SIM905
)
# .NET static methods on [IO.File] that write (``[IO.File]::WriteAllText(...)``).
STATIC_WRITERS = ("write", "append", "copy", "move", "delete", "replace", "create", "open")
WRITER_MARKERS = (">", "-outfile", "streamwriter", "filestream")
_SEPARATORS = str.maketrans(dict.fromkeys(";|(){}&,=<>\t\r\n", " "))
_QUOTES = str.maketrans("", "", "'\"\u2018\u2019\u201c\u201d")


def index_write(command: str, names: list[str]) -> str | None:
    """The index name or path ``command`` writes (one of ``names``), or ``None``.

    ``names``: the index's file name and/or its full paths, as configured.
    """
    low = _plain(command)
    target = _named(low, names)
    if target is None or not may_write(low):
        return None
    return target


def command_may_write(command: str) -> bool:
    """Could ``command`` write any file? (``False`` only when it uses no writer at all)"""
    return may_write(_plain(command))


def _plain(command: str) -> str:
    """The command lower-cased, without escape characters (backticks) or quotes."""
    return command.lower().replace("`", "").translate(_QUOTES)


def _named(low: str, names: list[str]) -> str | None:
    """The first of ``names`` the command mentions (plainly, joined up, or by a wildcard)."""
    joined = "".join(part.strip() for part in low.split("+")).replace("\\", "/")
    words = joined.translate(_SEPARATORS).split()
    for name in names:
        wanted = name.lower().replace("\\", "/")
        if wanted in joined:
            return name
        base = wanted.rsplit("/", 1)[-1]
        for word in words:
            if ("*" in word or "?" in word) and wildcard_match(word.rsplit("/", 1)[-1], base):
                return name
    return None


def may_write(low: str) -> bool:
    """Whether a (lower-cased) command uses a redirect, a writing cmdlet or a writing program."""
    low = low.replace(">&1", " ").replace(">&2", " ")  # 2>&1: streams merged, no file
    if any(marker in low for marker in WRITER_MARKERS):
        return True
    for word in low.translate(_SEPARATORS).split():
        if word in WRITERS or word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1] in WRITERS:
            return True
        if word.endswith(".exe") and word[:-4] in WRITERS:
            return True
    at = low.find("]::")
    while at >= 0:
        if low.startswith(STATIC_WRITERS, at + 3):
            return True
        at = low.find("]::", at + 3)
    return False


def wildcard_match(pattern: str, name: str) -> bool:
    """PowerShell's ``*`` and ``?`` wildcards (``[...]`` taken as itself): does ``pattern`` match?

    The classic two-pointer walk: at most ``len(pattern) * len(name)`` steps.
    """
    p = n = 0
    star, mark = -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] in ("?", name[n]):
            p += 1
            n += 1
        elif p < len(pattern) and pattern[p] == "*":
            star, mark = p, n
            p += 1
        elif star >= 0:
            p = star + 1
            mark += 1
            n = mark
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)
