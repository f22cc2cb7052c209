"""Whether a shell command runs ``engramory trace``: such a call and its output are never hits.

A search run inside a session is recorded in that session (the command, and
the hits it printed); without this rule every later search would find its own
earlier calls. The command is read with the guard's bash parser (nothing is
run); a simple command runs trace when, past variable assignments and a few
wrappers (``env``, ``sudo``, ``uv run``, ...), its program is ``engramory``
(any directory, ``.exe``) with ``trace`` as its first argument, or a Python
with ``-m engramory trace``; ``bash -c SCRIPT`` (and the other shells) is read
inside.
"""

from __future__ import annotations

from collections.abc import Sequence

from engramory.guard import shellparse
from engramory.guard.indexmatch import plain

MAX_COMMAND = 1 << 16
_WRAPPERS = frozenset({"env", "sudo", "time", "nohup", "command", "exec", "nice", "uvx"})
_WRAPPER_PAIRS = (("uv", "run"), ("pipx", "run"), ("poetry", "run"), ("pdm", "run"))
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
_SELF = frozenset({"engramory", "engramory.exe"})


def _program(word: str) -> str:
    """A program word's base name (``/usr/local/bin/engramory`` -> ``engramory``)."""
    return word.replace("\\", "/").rsplit("/", 1)[-1]


def _is_python(name: str) -> bool:
    stem = name[:-4] if name.endswith(".exe") else name
    return stem in ("py", "python", "pypy", "pypy3") or (
        stem.startswith("python") and stem[6:].replace(".", "").isdigit()
    )


def _past_wrappers(words: Sequence[str]) -> Sequence[str]:
    """``words`` without leading assignments, wrappers and the wrappers' options."""
    i = 0
    while i < len(words):
        word = words[i]
        name = _program(word)
        if "=" in word.split("/", 1)[0] and not word.startswith("-"):
            i += 1
        elif name in _WRAPPERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif i + 1 < len(words) and (name, words[i + 1]) in _WRAPPER_PAIRS:
            i += 2
        else:
            break
    return words[i:]


def runs_trace_words(words: Sequence[str], depth: int = 0) -> bool:
    """Whether one simple command (its words, unquoted) runs ``engramory trace``."""
    words = _past_wrappers(words)
    if not words:
        return False
    name = _program(words[0])
    rest = [word for word in words[1:] if not word.startswith("-")]
    if name in _SELF:
        return bool(rest) and rest[0] == "trace"
    if _is_python(name):
        for i, word in enumerate(words[1:-2], 1):
            if word == "-m" and words[i + 1] == "engramory" and words[i + 2] == "trace":
                return True
        return False
    if name in _SHELLS and depth < shellparse.MAX_DEPTH:
        for i, word in enumerate(words[1:-1], 1):
            if word.startswith("-") and "c" in word[1:] and not word.startswith("--"):
                return runs_trace(words[i + 1], depth + 1)
    return False


def runs_trace(command: str, depth: int = 0) -> bool:
    """Whether a shell command string runs ``engramory trace`` in any of its simple commands."""
    if "engramory" not in command or len(command) > MAX_COMMAND:
        return False
    program = shellparse.parse(command)
    for simple in program.commands:
        words = [
            "".join(plain(part[1]) for part in word if part[0] == "t") for word in simple.words
        ]
        if runs_trace_words(words, depth):
            return True
    return False
