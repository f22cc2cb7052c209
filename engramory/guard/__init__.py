"""The index guard, knowing no host: decision, edit simulation, shell-write detection.

Importing the package costs nothing: it is on the hook's hot path, which does not even import
``os`` (under ``python -I -S`` that costs about 15% of the interpreter's start-up, mostly
``_collections_abc``). On POSIX the file-system calls come from ``posix``, which the
interpreter has loaded before any script runs, and the few path functions the pre-check needs
(:func:`join`, :func:`basename`, :func:`dirname`) follow ``posixpath``'s rules; elsewhere
(Windows) they are ``os.path``'s, and ``~`` is expanded by ``os.path.expanduser`` everywhere.

What every dialect's raw pre-check and the shell gate need to dismiss a call that cannot
concern a store lives here, in the package itself: which file is the index (:func:`is_index`),
which is a store note (:func:`is_store_note`), whether a shell command may write at all
(:func:`shell_may_write`) and the payload bound (:data:`PAYLOAD_LIMIT`). A dismissed call then
imports no module of the guard beyond this one (:mod:`engramory.guard.service`, which decides,
loads only for a call that may concern a store), and no module imports another in a cycle to
reach these names; ``tests/test_hook_imports.py`` pins the modules each host's dismissed calls
load.
"""

import sys

try:
    import posix as _native  # built in, loaded at start-up: stat without importing os
except ImportError:  # pragma: no cover - Windows
    import nt as _native  # type: ignore[no-redef]

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

POSIX = _native.__name__ == "posix"
PAYLOAD_LIMIT = 64 * 1024 * 1024  # a payload over this is not read in full
DEFAULT_INDEX_NAME = "MEMORY.md"  # caps.INDEX_NAME, spelled out: caps is not on this path

# Programs (and shell words) that can write a file: a shell command holding none
# of them, and no ``>``, ``$(``, backtick or ``$'``, cannot write the index.
# Wrappers (sudo, env, nice...) are not listed: they write only through one of these.
SHELL_WRITERS = frozenset(
    b"""sh bash zsh dash ksh mksh ash yash posh fish eval source . exec env busybox
    tee sed perl ruby python pypy node nodejs bun deno php awk gawk mawk nawk cp mv install
    ln rsync dd truncate touch rm unlink shred srm sponge sort shuf uniq patch curl wget git
    find xargs vi vim nvim gvim ex vimdiff view rview rvim nano pico micro joe jed mg kak hx
    helix ed red emacs emacsclient strace ltrace watch flock uv coproc script su read
    applypatch gzip pigz bzip2 pbzip2 xz lzma lzip lzop zstd lz4 compress gunzip bunzip2 unxz
    unlzma unzstd uncompress unlz4 tar bsdtar zip unzip iconv openssl xxd tclsh wish
    expect""".split()
)


def index_name(environ: "dict[str, str] | os._Environ[str]") -> str:
    """The index file name to guard (an empty setting means the default)."""
    return environ.get("ENGRAMORY_INDEX_NAME", "").strip() or DEFAULT_INDEX_NAME


def index_path(environ: "dict[str, str] | os._Environ[str]") -> "str | None":
    """The one index file to guard, when ``ENGRAMORY_INDEX_PATH`` pins it."""
    pinned = environ.get("ENGRAMORY_INDEX_PATH", "").strip()
    return expanduser(pinned) if pinned else None


# --- paths and the environment, without importing os (on POSIX) -----------------------

stat = _native.stat
lstat = _native.lstat
getcwd = _native.getcwd


def process_environ() -> "dict[str, str] | os._Environ[str]":
    """The process's environment: ``os.environ`` once ``os`` is loaded (or on Windows), else
    the same strings decoded from ``posix.environ`` as ``os`` decodes them."""
    if POSIX and "os" not in sys.modules:
        encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
        return {
            key.decode(encoding, errors): value.decode(encoding, errors)
            for key, value in _native.environ.items()
        }
    import os  # noqa: PLC0415 - already loaded (or Windows)

    return os.environ


def join(folder: str, path: str) -> str:
    """``os.path.join(folder, path)``."""
    if not POSIX:
        import os  # noqa: PLC0415

        return os.path.join(folder, path)
    if path.startswith("/"):
        return path
    return folder + path if not folder or folder.endswith("/") else folder + "/" + path


def basename(path: str) -> str:
    """``os.path.basename(path)``."""
    if not POSIX:
        import os  # noqa: PLC0415

        return os.path.basename(path)
    return path[path.rfind("/") + 1 :]


def dirname(path: str) -> str:
    """``os.path.dirname(path)``."""
    if not POSIX:
        import os  # noqa: PLC0415

        return os.path.dirname(path)
    head = path[: path.rfind("/") + 1]
    return head.rstrip("/") or head  # "/" and "//" stay themselves


def expanduser(path: str) -> str:
    """``os.path.expanduser(path)``; only a path starting with ``~`` loads ``os``."""
    if not path.startswith("~"):
        return path
    import os  # noqa: PLC0415 - a rare path

    return os.path.expanduser(path)


def isfile(path: str) -> bool:
    """``os.path.isfile(path)``."""
    try:
        return stat(path).st_mode & 0o170000 == 0o100000
    except (OSError, ValueError):
        return False


# --- which file is the index ----------------------------------------------------------


def is_index(
    path: str, cwd: str, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """Whether ``path`` (relative to ``cwd``) is the file the guard protects."""
    pinned = index_path(environ)
    if pinned is None:
        name = index_name(environ).lower()
        if basename(path.replace("\\", "/").rstrip("/")).lower() == name:
            return True
        if index is None:
            return False
        pinned = index
    return same_file(join(cwd, expanduser(path)), expanduser(pinned))


ARCHIVE_DIR = "archive"


def is_store_note(
    path: str, cwd: str, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """Whether ``path`` (relative to ``cwd``) is a ``.md`` file of a memory store.

    A store's markdown files are its index, the files beside it and those in its
    ``archive/``. With ``ENGRAMORY_INDEX_PATH`` only that index's store counts; else
    any folder holding a file named like the index (two ``stat`` calls at most), and
    the store of ``--index``. Nothing is read: a file that is not ``.md`` costs nothing.
    """
    if not path.lower().endswith(".md"):
        return False
    folder = dirname(join(cwd, expanduser(path)))
    above = dirname(folder) if basename(folder).lower() == ARCHIVE_DIR else None
    pinned = index_path(environ)
    if pinned is None:
        name = index_name(environ)
        for store in (folder, above):
            if store is not None and isfile(join(store, name)):
                return True
        if index is None:
            return False
        pinned = index
    store = dirname(expanduser(pinned))
    return any(place is not None and _same_folder(place, store) for place in (folder, above))


def _same_folder(a: str, b: str) -> bool:
    try:
        first, second = stat(a), stat(b)
    except (OSError, ValueError):
        return False
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def same_file(target: str, index: str) -> bool:
    """Whether ``target`` is ``index``: one file (device and inode) or one resolved path.

    The same rule as :class:`engramory.guard.indexmatch.IndexMatcher`, without its
    import: this runs on every edit once the index is known, so an existing
    target costs two ``stat`` calls, a missing one without ``..`` two as well (a file that
    does not exist is not an index that does), and only any other target that cannot be
    stat'ed is resolved (``os.path.realpath``, which reads ``..`` before links as a host may).
    """
    try:
        st = stat(target)
    except FileNotFoundError:
        if ".." not in target and isfile(index):
            return False  # a missing file is not the index, which exists (a host may read
            # ``a/missing/../MEMORY.md`` as ``a/MEMORY.md``: that one is resolved)
        return _same_resolved(target, index)
    except (OSError, ValueError):
        return _same_resolved(target, index)
    try:
        wanted = stat(index)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (wanted.st_dev, wanted.st_ino)


def _same_resolved(target: str, index: str) -> bool:
    """Whether ``target`` and ``index`` resolve to one path (for a target that cannot be
    stat'ed)."""
    import os  # noqa: PLC0415 - rare: off the path of a dismissed call

    try:
        return os.path.normcase(os.path.realpath(target)) == os.path.normcase(
            os.path.realpath(index)
        )
    except (OSError, ValueError):
        return False


# --- the raw pre-check on a shell command ----------------------------------------------

_WORD_BYTES = bytes(
    c if chr(c).isalnum() or chr(c) in "._+-" else 32 for c in range(256)
)  # everything else separates words


def shell_may_write(command: bytes) -> bool:
    """Could this command write any file? ``False`` only when it surely cannot.

    ``command`` is the command as a JSON payload carries it, still escaped (a
    dialect checks it before parsing the payload): ``\\n``, ``\\t`` and ``\\r``
    separate words and a ``\\u`` escape is taken as a possible write. Quotes and
    backslashes are removed before words are cut, so ``t'e'e`` and ``\\tee`` are
    seen as ``tee``.
    """
    low = command.lower()
    if any(marker in low for marker in (b">", b"`", b"$(", b"$'", b"\\u")):
        return True
    # A command inside a JSON string inside a JSON string (Cline's ``commands``) escapes its
    # line breaks twice (``\\\\n``): they separate words too, or ``x\\\\nrm`` hides ``rm``.
    twice = low.replace(b"\\\\n", b" ").replace(b"\\\\t", b" ").replace(b"\\\\r", b" ")
    for escaped in (low, twice) if twice != low else (low,):
        text = escaped.replace(b"\\\\", b"").replace(b"\\n", b" ").replace(b"\\t", b" ")
        text = text.replace(b"\\r", b" ").translate(None, b"\\'\"")
        for word in text.translate(_WORD_BYTES).split():
            if word in SHELL_WRITERS or word.rstrip(b"0123456789.") in SHELL_WRITERS:
                return True
    return False
