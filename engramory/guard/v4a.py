"""V4A patches (the ``apply_patch`` tool of Codex, Copilot, OpenCode, Cursor): parse and apply.

The guard must know what an ``apply_patch`` call would leave in the memory
index, so this module reads a patch the way Codex's ``apply_patch`` does
(``codex-rs/apply-patch``: the parser in lenient mode, the hunk search, the
line endings) and predicts a file's new text. It writes nothing.

The format::

    *** Begin Patch
    *** Add File: path          then "+" lines: the whole new file
    *** Delete File: path
    *** Update File: path
    *** Move to: other/path     (optional)
    @@ optional context line    then " " context, "-" removed, "+" added lines
    *** End of File             (optional, after a hunk: it ends the file)
    *** End Patch

Where this module is more lenient than Codex (a guard must see at least what
the host would apply): a missing ``*** Begin Patch`` or ``*** End Patch`` line
is accepted, and a patch stops at its first ``*** End Patch``. A line ending
``\\r\\n`` in the patch counts as ``\\n``; surrounding whitespace is ignored; the
``<<'EOF'`` ... ``EOF`` wrapper Codex strips is stripped too.

How an update applies (Codex's rules): each hunk's old lines (context and
removed) are searched from just after the previous hunk -- exactly, then
ignoring trailing whitespace, then ignoring surrounding whitespace, then also
equating typographic dashes, quotes and spaces with ASCII ones. An ``@@ line``
header first moves the search past the first line matching it. A hunk without
old lines appends its lines at the end of the file (before a final blank line).
``*** End of File`` tries the old lines only at the very end. Lines the patch
adds take the file's line ending (that of its first line), and an updated file
always ends with a line ending.

Every step is linear in the size of the file and the patch: the hunk search
uses an index from each line to its positions, tries the positions of the
pattern's rarest line, and stops at a work budget proportional to the input
(past it, the result says "too complex" instead of going quadratic). A
malformed patch, or one that does not apply, is a result, never an exception.

This module is imported only once a call may concern the index; it imports
nothing at module level.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: nothing is imported up front
    from engramory.guard.shellparse import Program, Word

ADD = "add"
UPDATE = "update"
DELETE = "delete"

APPLIED = "applied"
MISMATCH = "mismatch"  # the patch does not apply to this text
TOO_COMPLEX = "too complex"  # the search ran past its work budget

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD_MARKER = "*** Add File: "
DELETE_MARKER = "*** Delete File: "
UPDATE_MARKER = "*** Update File: "
MOVE_MARKER = "*** Move to: "
END_OF_FILE = "*** End of File"
HEREDOC_STARTS = ("<<EOF", "<<'EOF'", '<<"EOF"')
APPLY_COMMANDS = ("apply_patch", "applypatch")

# Rust's char::is_whitespace (Unicode White_Space), which Codex's trim() uses. Python's own
# str.strip() also strips U+001C..U+001F, so the set is spelled out.
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# The last, loosest comparison: typographic dashes, quotes and spaces read as ASCII.
_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\xa0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)
_PASSES = 4  # exact, trailing whitespace, surrounding whitespace, punctuation
BUDGET_FACTOR = 8  # search work allowed per line of file and patch
BUDGET_FLOOR = 100_000


class Hunk:
    """One ``@@`` hunk of an update: ``context`` (the ``@@ line``, or ``None``), the ``old``
    lines (context and removed), the ``new`` lines (context and added), ``end_of_file``,
    and ``line``, its first line's number in the patch."""

    __slots__ = ("context", "end_of_file", "line", "new", "old")

    def __init__(
        self,
        context: str | None,
        old: list[str],
        new: list[str],
        end_of_file: bool = False,
        line: int = 0,
    ) -> None:
        self.context = context
        self.old = old
        self.new = new
        self.end_of_file = end_of_file
        self.line = line

    def __repr__(self) -> str:
        return f"Hunk({self.context!r}, {self.old!r}, {self.new!r}, {self.end_of_file!r})"


class FileOp:
    """One file operation: ``kind`` (:data:`ADD`, :data:`UPDATE` or :data:`DELETE`), the
    ``path`` as written, ``move_to`` (an update's new path, or ``None``), ``content`` (an
    add's whole text), ``hunks`` (an update's) and ``line``, its header's line number."""

    __slots__ = ("content", "hunks", "kind", "line", "move_to", "path")

    def __init__(
        self,
        kind: str,
        path: str,
        *,
        move_to: str | None = None,
        content: str = "",
        hunks: list[Hunk] | None = None,
        line: int = 0,
    ) -> None:
        self.kind = kind
        self.path = path
        self.move_to = move_to
        self.content = content
        self.hunks = hunks if hunks is not None else []
        self.line = line

    @property
    def destination(self) -> str:
        """The path this operation leaves a file at (an update's ``move_to``, else ``path``)."""
        return self.move_to if self.move_to is not None else self.path

    def __repr__(self) -> str:
        return f"FileOp({self.kind!r}, {self.path!r}, move_to={self.move_to!r})"


class Patch:
    """A parsed patch: its ``ops`` in order, or an ``error`` (then ``ops`` is empty)."""

    __slots__ = ("error", "ops")

    def __init__(self, ops: list[FileOp], error: str | None = None) -> None:
        self.ops = ops
        self.error = error

    def __repr__(self) -> str:
        return f"Patch({self.ops!r}, error={self.error!r})"


class Applied:
    """An update applied to a text: ``status`` :data:`APPLIED` with the new ``text``, or
    :data:`MISMATCH` / :data:`TOO_COMPLEX` with ``hunk`` (1-based) and a ``reason``."""

    __slots__ = ("hunk", "reason", "status", "text")

    def __init__(
        self, status: str, text: str | None = None, hunk: int = 0, reason: str = ""
    ) -> None:
        self.status = status
        self.text = text
        self.hunk = hunk
        self.reason = reason

    def __repr__(self) -> str:
        return f"Applied({self.status!r}, hunk={self.hunk}, reason={self.reason!r})"


# --- parsing ------------------------------------------------------------------------------


def parse(text: str) -> Patch:
    """The file operations of a V4A patch (see the module docstring), or why it is malformed."""
    lines = _patch_lines(text)
    start, end = _body(lines)
    ops: list[FileOp] = []
    i = start
    while i < end:
        header = lines[i].strip(WHITESPACE)
        if header == END:
            break
        if header.startswith(ADD_MARKER):
            j = i + 1
            added = []
            while j < end and lines[j].startswith("+"):
                added.append(lines[j][1:] + "\n")
                j += 1
            ops.append(FileOp(ADD, header[len(ADD_MARKER) :], content="".join(added), line=i + 1))
            i = j
        elif header.startswith(DELETE_MARKER):
            ops.append(FileOp(DELETE, header[len(DELETE_MARKER) :], line=i + 1))
            i += 1
        elif header.startswith(UPDATE_MARKER):
            op, i, error = _update(lines, i, end, header[len(UPDATE_MARKER) :])
            if error is not None:
                return Patch([], error)
            ops.append(op)
        else:
            return Patch([], f"line {i + 1}: not a file operation (Add, Update or Delete File)")
    return Patch(ops)


def _patch_lines(text: str) -> list[str]:
    """The patch's lines, trimmed as a whole; a ``\\r`` before ``\\n`` is part of the ending."""
    body = text.strip(WHITESPACE)
    if not body:
        return []
    return [line[:-1] if line.endswith("\r") else line for line in body.split("\n")]


def _body(lines: list[str]) -> tuple[int, int]:
    """The range of the operation lines: without a heredoc wrapper and Begin/End lines."""
    start, end = 0, len(lines)
    if end - start >= 4 and lines[0] in HEREDOC_STARTS and lines[-1].endswith("EOF"):
        start, end = start + 1, end - 1
    if start < end and lines[start].strip(WHITESPACE) == BEGIN:
        start += 1
    if start < end and lines[end - 1].strip(WHITESPACE) == END:
        end -= 1
    return start, end


def _update(lines: list[str], i: int, end: int, path: str) -> tuple[FileOp, int, str | None]:
    """An ``*** Update File`` operation from line ``i``: the op, the next line, or an error."""
    op = FileOp(UPDATE, path, line=i + 1)
    j = i + 1
    if j < end and lines[j].startswith(MOVE_MARKER):
        op.move_to = lines[j][len(MOVE_MARKER) :]
        j += 1
    while j < end:
        if not lines[j].strip(WHITESPACE):  # blank lines between hunks
            j += 1
            continue
        if lines[j].startswith("*"):
            break
        hunk, j, error = _hunk(lines, j, end, first=not op.hunks)
        if error is not None:
            return op, j, error
        op.hunks.append(hunk)
    if not op.hunks:
        return op, j, f"line {i + 1}: the update of a file has no hunk"
    return op, j, None


def _hunk(lines: list[str], i: int, end: int, first: bool) -> tuple[Hunk, int, str | None]:
    """One hunk from line ``i``: the hunk, the next line, or an error."""
    hunk = Hunk(None, [], [], line=i + 1)
    if lines[i] == "@@":
        j = i + 1
    elif lines[i].startswith("@@ "):
        hunk.context = lines[i][3:]
        j = i + 1
    elif first:  # the first hunk may leave out its @@ line
        j = i
    else:
        return hunk, i, f"line {i + 1}: a hunk must start with @@"
    taken = 0
    while j < end:
        line = lines[j]
        if line == END_OF_FILE:
            if taken:
                hunk.end_of_file = True
                taken += 1
                j += 1
            break
        tag = line[:1]  # "" is an empty context line
        if tag not in ("", " ", "-", "+"):
            break  # the next hunk or operation
        if tag != "+":
            hunk.old.append(line[1:])
        if tag != "-":
            hunk.new.append(line[1:])
        taken += 1
        j += 1
    if not taken:
        return hunk, j, f"line {hunk.line}: a hunk without lines"
    return hunk, j, None


# --- applying an update -------------------------------------------------------------------


def apply(text: str, hunks: list[Hunk]) -> Applied:
    """``text`` with an update's ``hunks`` applied (see the module docstring)."""
    texts, endings, preferred = _split(text)
    budget = BUDGET_FACTOR * (len(texts) + sum(len(h.old) + 1 for h in hunks)) + BUDGET_FLOOR
    finder = _Finder(texts, budget)
    replacements: list[tuple[int, int, list[str]]] = []
    at = 0
    for number, hunk in enumerate(hunks, 1):
        try:
            if hunk.context is not None:
                found = finder.seek([hunk.context], at, False)
                if found is None:
                    return Applied(MISMATCH, hunk=number, reason="its @@ line was not found")
                at = found + 1
            if not hunk.old:
                where = len(texts) - 1 if texts and texts[-1] == "" else len(texts)
                replacements.append((where, 0, hunk.new))
                continue
            old, new = hunk.old, hunk.new
            found = finder.seek(old, at, hunk.end_of_file)
            if found is None and old[-1] == "":  # the "" may stand for the final line ending
                old = old[:-1]
                new = new[:-1] if new and new[-1] == "" else new
                found = finder.seek(old, at, hunk.end_of_file)
        except _OverBudget:
            return Applied(TOO_COMPLEX, hunk=number, reason="the search for its lines ran too long")
        if found is None:
            return Applied(MISMATCH, hunk=number, reason="its old lines were not found")
        replacements.append((found, len(old), new))
        at = found + len(old)
    replacements.sort(key=lambda r: r[0])  # stable: ties keep the hunks' order
    return Applied(APPLIED, _join(texts, endings, preferred, replacements))


def _split(text: str) -> tuple[list[str], list[str | None], str]:
    """A file's lines (without endings), each line's ending, and the file's own ending.

    A ``\\r`` before ``\\n`` belongs to the ending; an unterminated last line has ``None``.
    The file's ending is its first line's (``\\n`` when it has none).
    """
    pieces = text.split("\n")
    last = pieces.pop()
    texts: list[str] = []
    endings: list[str | None] = []
    for piece in pieces:
        if piece.endswith("\r"):
            texts.append(piece[:-1])
            endings.append("\r\n")
        else:
            texts.append(piece)
            endings.append("\n")
    if last:
        texts.append(last)
        endings.append(None)
    return texts, endings, (endings[0] or "\n") if pieces else "\n"


def _join(
    texts: list[str],
    endings: list[str | None],
    preferred: str,
    replacements: list[tuple[int, int, list[str]]],
) -> str:
    """The new text: ``(start, count, new lines)`` replacements in order, new lines ending
    in ``preferred``, and every line given an ending.

    A replacement that starts before the end of the previous one (an ``*** End of File``
    hunk overlapping an earlier hunk) is applied as Codex's release build does: its
    unsigned ``start - done`` wraps around, so the rest of the file is kept and the new
    lines follow it.
    """
    out: list[str] = []
    total = len(texts)
    position = 0  # lines of the old text consumed
    done = 0  # where Codex believes the previous replacement ended
    for start, count, new in replacements:
        keep = start - done if start >= done else total
        keep = min(keep, total - position)
        out.extend(
            t + (e or preferred)
            for t, e in zip(texts[position : position + keep], endings[position : position + keep])
        )
        position += keep
        position += min(count, total - position)
        out.extend(line + preferred for line in new)
        done = start + count
    out.extend(t + (e or preferred) for t, e in zip(texts[position:], endings[position:]))
    return "".join(out)


class _OverBudget(Exception):
    """The hunk search spent its work budget."""


def _key(rank: int, line: str) -> str:
    """``line`` as the comparison of rank ``rank`` (0 exact ... 3 loosest) sees it."""
    if rank == 0:
        return line
    if rank == 1:
        return line.rstrip(WHITESPACE)
    if rank == 2:
        return line.strip(WHITESPACE)
    return line.strip(WHITESPACE).translate(_PUNCTUATION)


class _Finder:
    """Finds a run of lines in a file, as Codex's ``seek_sequence`` does, in linear time.

    For each comparison (built when first needed) every line's key and an index from key
    to ascending positions; a search tries only the positions of the pattern's rarest
    line, and every compared line counts against the budget.
    """

    def __init__(self, texts: list[str], budget: int) -> None:
        self.texts = texts
        self.budget = budget
        self.keys: list[list[str] | None] = [texts, None, None, None]
        self.where: list[dict[str, list[int]] | None] = [None] * _PASSES

    def seek(self, pattern: list[str], start: int, end_of_file: bool) -> int | None:
        """The first position >= ``start`` where ``pattern`` matches, by the strictest
        comparison that finds one; with ``end_of_file``, only the last position is tried."""
        total, size = len(self.texts), len(pattern)
        if not size:
            return start
        if size > total:
            return None
        first = total - size if end_of_file else start
        if first > total - size:
            return None
        for rank in range(_PASSES):
            found = self._seek(rank, [_key(rank, line) for line in pattern], first, total - size)
            if found is not None:
                return found
        return None

    def _seek(self, rank: int, pattern: list[str], first: int, last: int) -> int | None:
        """The first position in ``first..last`` where ``pattern`` (keys) matches."""
        from bisect import bisect_left  # noqa: PLC0415 - this module imports nothing up front

        keys, where = self._index(rank)
        self._spend(len(pattern))
        rarest: list[int] | None = None
        offset = 0
        for j, key in enumerate(pattern):
            positions = where.get(key)
            if positions is None:
                return None
            if rarest is None or len(positions) < len(rarest):
                rarest, offset = positions, j
        assert rarest is not None  # the pattern is not empty
        size = len(pattern)
        for k in range(bisect_left(rarest, first + offset), len(rarest)):
            candidate = rarest[k] - offset
            if candidate > last:
                break
            self._spend(size)
            if keys[candidate : candidate + size] == pattern:
                return candidate
        return None

    def _index(self, rank: int) -> tuple[list[str], dict[str, list[int]]]:
        """The keys of every line for this comparison, and key -> positions (built once)."""
        keys = self.keys[rank]
        if keys is None:
            keys = self.keys[rank] = [_key(rank, line) for line in self.texts]
        where = self.where[rank]
        if where is None:
            where = self.where[rank] = {}
            for position, key in enumerate(keys):
                found = where.get(key)
                if found is None:
                    where[key] = [position]
                else:
                    found.append(position)
        return keys, where

    def _spend(self, work: int) -> None:
        self.budget -= work
        if self.budget < 0:
            raise _OverBudget


# --- apply_patch in a shell command -------------------------------------------------------


def patches_in_command(command: str) -> list[tuple[str, str | None]]:
    """Every patch a shell command hands to ``apply_patch`` (or ``applypatch``), in order.

    Each is ``(patch text, directory)``: the text of a here-document (``apply_patch
    <<'EOF'``, ``<<EOF``, ``<<"EOF"``, any delimiter) or of the one argument
    (``apply_patch "*** Begin Patch ..."``), and the directory the command's ``cd``
    commands lead to before it (as written, relative to the call's directory; ``None``
    without a ``cd``, or when its argument is not literal). ``bash -c``/``-lc`` scripts
    are read too. An argument that is not literal text (``"$PATCH"``) is not a patch.
    """
    if "apply_patch" not in command and "applypatch" not in command:
        return []
    from engramory.guard import shellparse  # noqa: PLC0415 - only for a command that may patch

    found: list[tuple[str, str | None]] = []
    _scan(shellparse.parse(command), None, found, 0)
    return found


def patch_in_command(command: str) -> tuple[str, str | None] | None:
    """The first of :func:`patches_in_command`, or ``None`` when the command holds none."""
    found = patches_in_command(command)
    return found[0] if found else None


_SHELLS = ("sh", "bash", "zsh", "dash", "ksh")
_MAX_NESTING = 4


def _scan(
    program: Program, directory: str | None, found: list[tuple[str, str | None]], depth: int
) -> str | None:
    """Collect the patches of one parsed program into ``found``; return the directory its
    ``cd`` commands lead to (``""`` meaning "unknown")."""
    import os.path  # noqa: PLC0415

    for command in program.commands:
        words = [_literal(word) for word in command.words]
        name = os.path.basename(words[0]) if words and words[0] is not None else None
        if name == "cd":
            target = words[1] if len(words) == 2 else None
            if target is None or directory == "":
                directory = ""
            else:
                target = os.path.expanduser(target)
                directory = target if directory is None else os.path.join(directory, target)
        elif name in APPLY_COMMANDS:
            where = directory or None
            bodies = [r.body for r in command.redirects if r.op in ("<<", "<<-")]
            if bodies and bodies[-1] is not None:
                found.append((bodies[-1], where))
            elif len(words) == 2 and words[1] is not None:
                found.append((words[1], where))
        elif (
            name in _SHELLS
            and len(words) >= 3
            and words[1] in ("-c", "-lc")
            and words[2] is not None
            and depth < _MAX_NESTING
        ):
            from engramory.guard import shellparse  # noqa: PLC0415

            _scan(shellparse.parse(words[2]), directory, found, depth + 1)
    return directory


def _literal(word: Word) -> str | None:
    """A shell word's text when it is all literal (no ``$x``, no ``$(...)``), else ``None``."""
    from engramory.guard.indexmatch import plain  # noqa: PLC0415

    if any(part[0] != "t" for part in word):
        return None
    return plain("".join(part[1] for part in word))
