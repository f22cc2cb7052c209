"""What the index guard hook says when it cannot load the Engramory package (a broken install).

``engramory_index_guard.py`` imports this module only when importing the package
failed. It never blocks a call: where the host shows the agent a note before a
tool call, and the call may involve the index, it says the guard is not
checking; otherwise it is silent. It imports nothing but ``sys``.
"""

import sys

_BROKEN = (
    "Engramory: the index guard could not load its package, so edits of MEMORY.md are NOT "
    "being checked against the cap. Reinstall Engramory and re-run "
    "`engramory init HOST --install-hooks`."
)
# How each host shows the agent a note before a tool call (the others show none).
_NOTE_FORMATS = {
    "claude": '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "%s"}}',
    "codex": '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "%s"}}',
    "gemini": '{"systemMessage": "%s"}',
}


# The same rule as engramory.dialects.claude.may_concern_index, in a cheap form: a
# payload naming MEMORY.md, an edit while the index is known by path (--index:
# an alias may have any name), or a Bash command that may write anything.
_SHELL_MARKERS = (b">", b"`", b"$(", b"$'", b"\\u")
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


def _may_concern_index(raw, argv):
    """Only a broken install gets here: the working hook never builds this table."""
    word_bytes = bytes(c if chr(c).isalnum() or chr(c) in "._+-" else 32 for c in range(256))
    low = raw.lower()
    if b"memory.md" in low:
        return True
    if b'"bash"' not in low:
        return "--index" in argv or any(a.startswith("--index=") for a in argv)
    if any(marker in low for marker in _SHELL_MARKERS):
        return True
    low = low.replace(b'"bash"', b" ").replace(b"\\\\", b"").replace(b"\\n", b" ")
    words = low.replace(b"\\t", b" ").translate(None, b"\\'\"").translate(word_bytes).split()
    return any(w in SHELL_WRITERS or w.rstrip(b"0123456789.") in SHELL_WRITERS for w in words)


def _host(argv):
    """The ``--host`` argument (``claude`` when absent), as the package's entry reads it."""
    for i, arg in enumerate(argv):
        if arg == "--host" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--host="):
            return arg.split("=", 1)[1]
    return "claude"


def main(argv):
    """Answer one call without the package; always exit 0."""
    host = _host(argv)
    note = _NOTE_FORMATS.get(host)
    checked = note and "--event" not in argv
    if checked and _may_concern_index(sys.stdin.buffer.read(), argv):
        sys.stdout.write(note % _BROKEN.replace("HOST", host) + "\n")
    return 0
