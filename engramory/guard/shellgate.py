"""The gate before the shell parser: could this command concern a memory store at all?

:func:`engramory.guard.shell_may_write` dismisses, on the payload's raw
bytes, a command that cannot write any file. A command that may write (``python3
-m pytest``, ``git commit -m x``: ``python`` and ``git`` can write) used to be
parsed in full by :mod:`engramory.guard.shellwrite`; this gate, on the decoded
command, sends it there only when its text could concern a store. It does, and is
parsed in full, when any of these holds:

1. it is longer than :data:`MAX_GATED` characters;
2. it holds a character that expands or matches names: ``$`` (variables,
   ``$(...)``, ``$'...'``, ``$"..."``), a backquote, ``*``, ``?``, ``[``, ``{``
   (brace expansion) or ``~``;
3. with quotes, backslashes and line continuations removed and lower-cased, it
   holds ``.md`` (the index, or a store note a secret may be written to), the
   index's name (``ENGRAMORY_INDEX_NAME``, default ``MEMORY.md``) or the file name
   of the index given by ``--index`` / ``ENGRAMORY_INDEX_PATH``;
4. one of its words is a program that writes files it does not name, or names them
   through a folder: ``rm``, ``mv``, ``cp``, ``install``, ``ln``, ``rsync``, ``tar``,
   ``bsdtar``, ``zip``, ``unzip``, ``find``, ``xargs``; or a change of directory
   (``cd``, ``pushd``, ``popd``); or ``git`` with a subcommand that rewrites the work
   tree or names files (``checkout``, ``switch``, ``reset``, ``restore``, ``stash``,
   ``clean``, ``merge``, ``pull``, ``rebase``, ``cherry-pick``, ``revert``, ``am``,
   ``apply``, ``rm``, ``mv``); or it runs ``apply_patch``;
5. it may nest :data:`NESTING_LIMIT` levels deep (parentheses, backquotes and words
   that run code, counted together): the parser denies what it cannot follow;
6. the index is known by its path (``--index``, ``ENGRAMORY_INDEX_PATH``) and either
   does not exist, or one of the command's words (also a quoted phrase, and the value
   attached to an option: ``-oFILE``, ``of=FILE``) is that file under another name (a
   hard link, a symbolic link to it) or a dangling symbolic link; more than
   :data:`MAX_WORDS` words are not looked up one by one: the command is parsed.

Words are cut after quotes and backslashes are removed, so ``r'm'`` and ``\\rm``
are ``rm``, and a command run by an interpreter (``python -c``, ``bash -c``,
``os.system(...)``) is seen through: its words are in the same text. Everything
else (``python3 -m pytest``, ``git commit -m x``, ``make``) names no store file
and is silent without being parsed. ``tests/test_shellgate.py`` checks, on the
ground-truth commands and on generated ones, that the gate never lets through a
command the full parser denies.

Every host's dialect runs this gate on its raw payload, before any JSON is parsed
(:func:`engramory.dialects.fields.command_may_concern`), so a shell call is parsed in
full only when its text could concern a store. The exact pre-check, in order:

a. the command is read off the raw bytes: the one string member the dialect's full path
   would read (``command``; Copilot's inside its ``toolArgs`` string, unescaped once;
   Cline's ``commands``, a JSON list of strings carried as a string, each item in turn).
   No such member, a second one, a value that is not a string or a list the raw read
   cannot follow exactly (not only strings, a control character or an escape strict JSON
   refuses, trailing text) parses the payload;
b. a command that cannot write any file (:func:`engramory.guard.shell_may_write`: no
   writer program, no ``>``, backquote, ``$(`` or ``$'``) is dismissed;
c. a ``\\u`` escape in it, a working directory not read off one ``cwd`` member (or
   Cursor's and Cline's workspace root), Gemini's ``dir_path`` or Qwen's ``directory``
   parses the payload;
d. the command, unescaped, goes through :func:`may_concern_store` (rules 1-6 above) in
   that directory: dismissed when it says no, parsed in full otherwise.

``tests/test_dialect_shell_gate.py`` checks, for every host's payload shapes, on the
ground-truth commands and on generated ones, that a call the dialect's full path denies
(the payload parsed, this gate forced open) is denied by the gated path too.
"""

from engramory.guard import (
    SHELL_WRITERS,
    basename,
    expanduser,
    index_name,
    index_path,
    join,
    lstat,
    stat,
)

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

MAX_GATED = 64 * 1024
MAX_WORDS = 256
NESTING_LIMIT = 12  # engramory.guard.shellparse.MAX_DEPTH (a test keeps them equal)
EXPANSION_MARKS = frozenset("$`*?[{~")
TREE_WRITERS = frozenset(
    {"rm", "mv", "cp", "install", "ln", "rsync", "tar", "bsdtar", "zip", "unzip", "find"}
    | {"xargs", "cd", "pushd", "popd"}
)
GIT_WRITES = frozenset(
    {"checkout", "switch", "reset", "restore", "stash", "clean", "merge", "pull", "rebase"}
    | {"cherry-pick", "revert", "am", "apply", "rm", "mv"}
)
NESTERS = SHELL_WRITERS | {b"trap"}
_QUOTES = str.maketrans("", "", "\\'\"")
_SEPARATORS = str.maketrans(dict.fromkeys(" \t\r\n;&|<>(),=", " "))
_WORD_CUT = {c: " " for c in range(128) if not (chr(c).isalnum() or chr(c) in "._+-")}


def may_concern_store(
    command: str,
    cwd: str,
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None" = None,
) -> bool:
    """Whether ``command`` (run in ``cwd``) must be parsed in full (see the module's rules)."""
    if len(command) > MAX_GATED or "apply_patch" in command or "applypatch" in command:
        return True
    if any(mark in command for mark in EXPANSION_MARKS):
        return True
    plain = command.replace("\\\n", "").translate(_QUOTES)
    joined = plain.lower()
    known = _known_index(environ, index)
    if _names_store_file(joined, environ, known):
        return True
    words = _words(joined)
    found = set(words)
    if not TREE_WRITERS.isdisjoint(found) or ("git" in found and not GIT_WRITES.isdisjoint(found)):
        return True
    if _nesting(joined, words) >= NESTING_LIMIT:
        return True
    return known is not None and _may_alias(command, plain, cwd, known)


def _known_index(environ: "dict[str, str] | os._Environ[str]", index: "str | None") -> "str | None":
    """The index's path when the guard knows it (pinned, or given by ``--index``)."""
    pinned = index_path(environ)
    if pinned is not None:
        return pinned
    return expanduser(index) if index else None


def _names_store_file(
    joined: str, environ: "dict[str, str] | os._Environ[str]", known: "str | None"
) -> bool:
    """Rule 3: ``.md``, the index's name, or the known index's file name in the text."""
    names = [".md", index_name(environ).lower()]
    if known is not None:
        names.append(basename(known.replace("\\", "/").rstrip("/")).lower())
    return any(not name or any(c in name for c in "\\'\"\n") or name in joined for name in names)


def _words(joined: str) -> "list[str]":
    """The words of the text: runs of letters, digits and ``._+-`` (a path's parts apart)."""
    return joined.translate(_WORD_CUT).split()


def _nesting(joined: str, words: "list[str]") -> int:
    """An upper bound of how deep the parser may nest: every parenthesis and every word
    that may run code, each occurrence counted."""
    runners = sum(1 for w in words if _runs_code(w))
    return joined.count("(") + runners


def _runs_code(word: str) -> bool:
    raw = word.encode("utf-8", "replace")
    return raw in NESTERS or raw.rstrip(b"0123456789.") in NESTERS


def _may_alias(command: str, plain: str, cwd: str, known: str) -> bool:
    """Rule 6: a word that is the known index under another name (or a dangling link)."""
    try:
        st = stat(known)
    except (OSError, ValueError):
        return True  # no index yet: whatever would create it is the parser's to judge
    identity = (st.st_dev, st.st_ino)
    candidates = _candidates(command, plain)
    if candidates is None:
        return True
    for word in candidates:
        path = join(cwd, word)
        try:
            found = stat(path)
        except (OSError, ValueError):
            try:
                lstat(path)
            except (OSError, ValueError):
                continue
            return True  # a dangling symbolic link
        if (found.st_dev, found.st_ino) == identity:
            return True
    return False


def _candidates(command: str, plain: str) -> "set[str] | None":
    """Every word that may name a file: as cut by the shell's separators, each quoted
    phrase whole, and the values attached to options (``None``: too many to look up)."""
    words = set(plain.translate(_SEPARATORS).split())
    words.update(_quoted(command))
    for word in list(words):
        if word.startswith("-") and not word.startswith("--"):
            k = 1
            while k < len(word) and word[k].isalpha():
                k += 1
                words.add(word[k:])
    words.discard("")
    return words if len(words) <= MAX_WORDS else None


def _quoted(command: str) -> "list[str]":
    """The text between each pair of quotes (single or double)."""
    out: list[str] = []
    for quote in ("'", '"'):
        out.extend(command.split(quote)[1::2])
    return out
