"""Which path is the memory index: by file name, by identity, and through a glob.

Used by the guard for edit targets and by :mod:`engramory.guard.shellwrite` for
shell write targets. A glob here is a string in which the private-use markers
below stand for the unquoted ``*``, ``?`` and ``[`` of a shell word (a quoted
``*`` is an ordinary character), and :data:`UNKNOWN` for a part whose value
is not known (it matches like ``*``). Matching is a single pass with one
backtrack point (no regular expression), linear in the pattern for a bounded
file name.
"""

from __future__ import annotations

import os

UNKNOWN, STAR, QUESTION, BRACKET = "\ue000", "\ue001", "\ue002", "\ue003"
BRACE_OPEN, BRACE_COMMA, BRACE_CLOSE, TILDE = "\ue004", "\ue005", "\ue006", "\ue007"
GLOB_MARKS = frozenset({STAR, QUESTION, BRACKET, UNKNOWN})
PLAIN = str.maketrans(
    {
        STAR: "*",
        QUESTION: "?",
        BRACKET: "[",
        BRACE_OPEN: "{",
        BRACE_COMMA: ",",
        BRACE_CLOSE: "}",
        TILDE: "~",
        UNKNOWN: "*",
    }
)
MAX_LISTING = 4096
MAX_PATTERN = 4096
MAX_NAME_PATTERN = 1024
_GLOB_MARKS = GLOB_MARKS


def plain(text: str) -> str:
    """``text`` with every marker turned back into the character it stands for."""
    return text.translate(PLAIN)


class IndexMatcher:
    """Which paths are the index: by file name, and/or by identity with one file.

    ``name`` (compared case-insensitively) matches any file of that name.
    ``index`` matches that file by resolved path, or by device and inode when
    both exist (a hard link). Either may be ``None``.
    """

    def __init__(self, name: str | None, index: str | None) -> None:
        self.name = name.lower() if name else None
        self.index = index
        self._identity: tuple[str, tuple[int, int] | None] | None = None

    def identity(self) -> tuple[str, tuple[int, int] | None]:
        """The index's resolved path and ``(st_dev, st_ino)`` (``None`` when absent)."""
        if self._identity is None:
            assert self.index is not None
            real = os.path.normcase(os.path.realpath(os.path.expanduser(self.index)))
            try:
                st = os.stat(real)
                self._identity = (real, (st.st_dev, st.st_ino))
            except (OSError, ValueError):
                self._identity = (real, None)
        return self._identity

    def literal(self, path: str, cwd: str) -> bool:
        """Whether ``path`` (relative to ``cwd``, no glob) is the index."""
        if not path:
            return False
        base = os.path.basename(path.replace("\\", "/").rstrip("/")).lower()
        if self.name is not None and base == self.name:
            return True
        if self.index is None:
            return False
        full = os.path.join(cwd, os.path.expanduser(path))
        real, inode = self.identity()
        try:
            if os.path.normcase(os.path.realpath(full)) == real:
                return True
            if inode is not None:
                st = os.stat(full)
                return (st.st_dev, st.st_ino) == inode
        except (OSError, ValueError):
            return False
        return False

    def pattern(self, pattern: str, cwd: str) -> bool:
        """Whether a glob (markers from :mod:`engramory.guard.shellparse`) can name the index."""
        pattern = _collapse_stars(pattern)
        if len(pattern) > MAX_PATTERN:
            return True
        directory, _, base = pattern.rpartition("/")
        if not any(c not in _GLOB_MARKS for c in base) and UNKNOWN in base:
            return False  # an entirely unknown file name
        folder_known = not any(c in _GLOB_MARKS for c in directory)
        base_is_glob = any(c in _GLOB_MARKS for c in base)
        # In a known folder a glob names only what is there (bash leaves a glob that
        # matches nothing as it is): `sed -i ... *.md` beside no index writes no index.
        by_name = self.name is not None and not (folder_known and base_is_glob)
        if by_name and glob_match(self.name, base.lower()):
            return True
        if not folder_known:
            if self.index is None:
                return False
            full = os.path.join(cwd, directory + "/" + base) if directory else base
            return glob_match(self.identity()[0], os.path.normcase(os.path.join(cwd, full)))
        if len(base) > MAX_NAME_PATTERN:
            return False  # longer than any file name can be
        folder = os.path.join(cwd, os.path.expanduser(directory) if directory else ".")
        for entry in _listing(folder):
            if glob_match(entry, base) and self.literal(os.path.join(folder, entry), cwd):
                return True
        return False

    def under(self, directory: str, pattern: str, cwd: str) -> bool:
        """Whether the index may lie anywhere below ``directory`` with a name matching ``pattern``.

        By name: a pattern that spells out a name matching the index, or a
        directory holding a file of that name (a bounded walk).
        """
        if self.name is not None and glob_match(self.name, pattern.lower()):
            if not any(c in _GLOB_MARKS for c in pattern):
                return True  # the name spelled out: `find . -name MEMORY.md -delete`
            if _holds_name(os.path.join(cwd, os.path.expanduser(directory)), self.name):
                return True
        if self.index is None:
            return False
        real, _ = self.identity()
        top = os.path.normcase(os.path.realpath(os.path.join(cwd, directory)))
        return real.startswith(top.rstrip(os.sep) + os.sep) and glob_match(
            os.path.basename(real), pattern
        )


def _collapse_stars(pattern: str) -> str:
    out: list[str] = []
    for c in pattern:
        if c in (STAR, UNKNOWN) and out and out[-1] in (STAR, UNKNOWN):
            continue
        out.append(c)
    return "".join(out)


_CLASSES = {
    "alpha": str.isalpha,
    "upper": str.isupper,
    "lower": str.islower,
    "digit": str.isdigit,
    "alnum": str.isalnum,
    "space": str.isspace,
    "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
}


def _class_end(pattern: str, i: int) -> int:
    """The index of the ``]`` closing a bracket class opened just before ``i`` (-1: none)."""
    j = i
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern):
        if pattern[j] in (BRACKET, "[") and pattern.startswith(":", j + 1):
            close = pattern.find(":]", j + 2)
            if close >= 0:
                j = close + 2
                continue
        if pattern[j] == "]":
            return j
        j += 1
    return -1


def _in_class(c: str, body: str) -> bool:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = plain(body)
    found = False
    k = 0
    while k < len(body):
        if body.startswith("[:", k) and body.find(":]", k + 2) >= 0:
            end = body.find(":]", k + 2)
            test = _CLASSES.get(body[k + 2 : end])
            found |= bool(test and test(c))
            k = end + 2
        elif k + 2 < len(body) and body[k + 1] == "-":
            found |= body[k] <= c <= body[k + 2]
            k += 3
        else:
            found |= body[k] == c
            k += 1
    return found != negate


def glob_match(name: str, pattern: str) -> bool:
    """Bash-style match of ``name`` against a marker pattern (``*``, ``?``, ``[..]``)."""
    n = p = 0
    star_p = star_n = -1
    while n < len(name):
        if p < len(pattern):
            c = pattern[p]
            if c in (STAR, UNKNOWN):
                star_p, star_n = p, n
                p += 1
                continue
            if c == QUESTION:
                n += 1
                p += 1
                continue
            if c == BRACKET:
                end = _class_end(pattern, p + 1)
                if end >= 0:
                    if _in_class(name[n], pattern[p + 1 : end]):
                        n += 1
                        p = end + 1
                        continue
                elif name[n] == "[":
                    n += 1
                    p += 1
                    continue
            elif c == name[n]:
                n += 1
                p += 1
                continue
        if star_p < 0:
            return False
        star_n += 1
        n = star_n
        p = star_p + 1
    while p < len(pattern) and pattern[p] in (STAR, UNKNOWN):
        p += 1
    return p == len(pattern)


def _holds_name(folder: str, name: str) -> bool:
    """Whether a file called ``name`` (any case) lies below ``folder`` (first entries only)."""
    seen = 0
    for _root, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if any(f.lower() == name for f in files):
            return True
        if seen > MAX_LISTING:
            return False
    return False


def _listing(folder: str) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            names = []
            for entry in entries:
                names.append(entry.name)
                if len(names) >= MAX_LISTING:
                    break
            return names
    except (OSError, ValueError):
        return []
