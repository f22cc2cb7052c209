"""The index guard, knowing no host: decision, edit simulation, shell-write detection.

Importing the package costs nothing beyond ``os`` (already loaded): it is on the hook's hot
path. The few names every dialect's raw pre-check and the shell gate share live here, in the
package itself, so that they cost no module of their own and no module imports another in a
cycle to reach them.
"""

from __future__ import annotations

import os

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


def index_name(environ: dict[str, str] | os._Environ[str]) -> str:
    """The index file name to guard (an empty setting means the default)."""
    return environ.get("ENGRAMORY_INDEX_NAME", "").strip() or DEFAULT_INDEX_NAME


def index_path(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The one index file to guard, when ``ENGRAMORY_INDEX_PATH`` pins it."""
    pinned = environ.get("ENGRAMORY_INDEX_PATH", "").strip()
    return os.path.expanduser(pinned) if pinned else None
