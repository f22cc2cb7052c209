"""Does a shell command write the memory index? (the Bash bypass of the edit guard)

The guard can check an Edit or Write before it lands; a shell command that
writes the index cannot be predicted, so it is denied and the agent is told to
use the edit tools. This module answers "would this command write a file the
caller calls the index?" by parsing the command the way a shell would, with
:mod:`shlex` -- not by searching for a substring, so reading the index
(``cat``, ``grep``, ``wc -l MEMORY.md > /tmp/x``) passes.

Caught, in each simple command of a list (``;``, ``&&``, ``||``, ``|``, ``&``,
subshells, newlines), after ``VAR=value`` prefixes and wrappers such as
``sudo``, ``env``, ``command``, ``nohup``, ``time``:

* redirections ``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``<>`` and ``N>`` onto it
  (here-documents included: their bodies are not mistaken for commands);
* ``tee [-a]``; ``sed -i`` / ``perl -i`` (also inside flag clusters such as
  ``-pi``); ``cp``, ``mv``, ``install``, ``ln``, ``rsync`` with it as the
  destination (or into a directory, from a source of that name, or
  ``-t DIR``); ``dd of=``; ``truncate``; editors (``ed``, ``ex``, ``vi``,
  ``vim``, ``nano``, ...) opening it;
* ``python``/``node``/``perl``/``ruby``/``php`` one-liners (``-c``, ``-e``, or
  a here-document on stdin) that name it and open something for writing;
* ``sh -c``/``bash -c``/``eval`` strings, parsed the same way;
* ``cd DIR`` earlier in the same command, ``$VAR`` set earlier in it, ``~``,
  and glob patterns (``MEM*.md``) in a target.

Not caught (documented in hooks/INSTALL.md): names built at run time
(``$(echo MEM)ORY.md``, variables from elsewhere), scripts in files
(``python tool.py``), ``find -exec``/``xargs``, ``git checkout``/``git apply``,
and any program that writes files on its own.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable

Matcher = Callable[[str, str], bool]

_SEPARATORS = frozenset({";", ";;", "&&", "||", "|", "|&", "&", "(", ")", "\n"})
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_READ_REDIRECTS = frozenset({"<", "<<", "<<-", "<<<", "<&"})
# Commands that run another command: their options (and which of those take a
# value), and how many plain arguments come before the wrapped command.
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset({"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "env": (frozenset({"-u", "-C", "-S"}), 0),
    "nice": (frozenset({"-n"}), 0),
    "timeout": (frozenset({"-s", "-k"}), 1),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "-o"}), 0),
    "stdbuf": (frozenset(), 0),
}
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"})
_EDITORS = frozenset({"ed", "ex", "vi", "vim", "nvim", "nano", "emacs", "pico", "micro", "joe"})
_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync"})
_INTERPRETERS = ("python", "pypy", "node", "nodejs", "deno", "bun", "perl", "ruby", "php")
_CODE_FLAGS = frozenset({"-c", "-e", "-E", "--eval", "-r", "-pe", "-ne", "-le", "-pi", "-lne"})
_HEREDOC = r"<<-?\s*(['\"]?)([A-Za-z0-9_.\-]+)\1"
_WRITE_MARKER = (
    r"write|append|truncate|copy|move|rename|replace|symlink|\bmode\s*=|"
    r"['\"](?:[wax]|r\+|[wa]\+|[wax]b|[wa]\+b|[wa]b\+)['\"]|['\"]\s*>{1,2}"
)
_VARIABLE = r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"
_MAX_DEPTH = 3
# Patterns are compiled on first use: most commands never need them, and this
# module runs inside a hook that starts a fresh interpreter for every call.
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    compiled = _compiled.get(source)
    if compiled is None:
        compiled = _compiled[source] = re.compile(source, flags)
    return compiled


def _assignment(word: str) -> tuple[str, str] | None:
    """``("NAME", "value")`` for a ``NAME=value`` word, else ``None``."""
    name, equals, value = word.partition("=")
    if equals and name.isidentifier() and name.isascii():
        return name, value
    return None


def _is_interpreter(name: str) -> bool:
    base = name.rstrip("0123456789.")
    return base in _INTERPRETERS


def _split_heredocs(command: str) -> tuple[str, list[str]]:
    """Remove here-document bodies from ``command``; return ``(rest, bodies)``."""
    if "<<" not in command:
        return command, []
    kept: list[str] = []
    bodies: list[str] = []
    pending: list[tuple[str, bool]] = []
    body: list[str] = []
    for line in command.split("\n"):
        if pending:
            delimiter, dash = pending[0]
            if (line.lstrip("\t") if dash else line) == delimiter:
                bodies.append("\n".join(body))
                body = []
                pending.pop(0)
            else:
                body.append(line)
            continue
        kept.append(line)
        for match in _pattern(_HEREDOC).finditer(line):
            if not line[match.start() :].startswith("<<<"):
                pending.append((match.group(2), line[match.start() + 2 : match.start() + 3] == "-"))
    if body:
        bodies.append("\n".join(body))
    return "\n".join(kept), bodies


def _tokens(text: str) -> list[str] | None:
    lexer = shlex.shlex(text.replace("\n", " \n "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: the shell would refuse it too
        return None


def _simple_commands(tokens: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS:
            if commands[-1]:
                commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


class _Scan:
    """Walks one command string, keeping ``cd`` and variables in order."""

    def __init__(self, matches: Matcher, cwd: str, depth: int = 0) -> None:
        self.matches = matches
        self.cwd = cwd
        self.depth = depth
        self.variables: dict[str, str] = {}
        self.bodies: list[str] = []

    def expand(self, word: str) -> str:
        if "$" in word:
            word = _pattern(_VARIABLE).sub(
                lambda m: self.variables.get(m.group(1), m.group(0)), word
            )
        return os.path.expanduser(word) if word.startswith("~") else word

    def hit(self, word: str) -> str | None:
        path = self.expand(word)
        return word if path and self.matches(path, self.cwd) else None

    def run(self, command: str) -> str | None:
        text, bodies = _split_heredocs(command)
        self.bodies.extend(bodies)
        tokens = _tokens(text)
        if tokens is None:
            return None
        for simple in _simple_commands(tokens):
            found = self.simple(simple)
            if found:
                return found
        return None

    def simple(self, words: list[str]) -> str | None:
        argv: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            if word in _WRITE_REDIRECTS and i + 1 < len(words):
                target = words[i + 1]
                if not (word == ">&" and target.isdigit()):
                    found = self.hit(target)
                    if found:
                        return found
                i += 2
                continue
            if word in _READ_REDIRECTS:
                i += 2
                continue
            argv.append(word)
            i += 1
        return self.command(argv)

    def command(self, argv: list[str]) -> str | None:
        while argv and (assigned := _assignment(argv[0])) is not None:
            name, value = assigned
            self.variables[name] = self.expand(value)
            argv = argv[1:]
        while argv and os.path.basename(argv[0]) in _WRAPPERS:
            argv = _unwrap(argv)
        if not argv:
            return None
        name = os.path.basename(argv[0])
        args = argv[1:]
        if name in ("cd", "pushd"):
            if args:
                self.cwd = os.path.join(self.cwd, self.expand(args[-1]))
            return None
        return self.writes(name, args)

    def writes(self, name: str, args: list[str]) -> str | None:
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        if name == "tee" or name in _EDITORS or name == "truncate":
            return self.first_hit(operands)
        if name == "sed" and any(_has_flag(a, "i") or a.startswith("--in-place") for a in args):
            return self.first_hit(operands)
        if name == "perl" and any(_has_flag(a, "i") for a in args):
            return self.first_hit(operands)
        if name in _COPIERS:
            return self.copy_target(args, operands)
        if name == "dd":
            return self.first_hit([a[3:] for a in args if a.startswith("of=")])
        if name in _SHELLS or name == "eval":
            return self.nested(name, args)
        if _is_interpreter(name):
            return self.interpreter(args)
        return None

    def first_hit(self, words: list[str]) -> str | None:
        for word in words:
            found = self.hit(word)
            if found:
                return found
        return None

    def copy_target(self, args: list[str], operands: list[str]) -> str | None:
        directory = None
        for i, arg in enumerate(args):
            if arg in ("-t", "--target-directory") and i + 1 < len(args):
                directory = args[i + 1]
            elif arg.startswith("--target-directory="):
                directory = arg.split("=", 1)[1]
        if directory is None:
            if len(operands) < 2:
                return None
            *sources, dest = operands
            found = self.hit(dest)
            if found:
                return found
            if not (dest.endswith("/") or os.path.isdir(os.path.join(self.cwd, self.expand(dest)))):
                return None
            directory = dest
        else:
            sources = [o for o in operands if o != directory]
        return self.first_hit(
            [os.path.join(directory, os.path.basename(source.rstrip("/"))) for source in sources]
        )

    def nested(self, name: str, args: list[str]) -> str | None:
        if self.depth >= _MAX_DEPTH:
            return None
        if name == "eval":
            code = " ".join(args)
        else:
            flag = next((i for i, a in enumerate(args) if _has_flag(a, "c")), None)
            if flag is None or flag + 1 >= len(args):
                return None
            code = args[flag + 1]
        inner = _Scan(self.matches, self.cwd, self.depth + 1)
        inner.variables = dict(self.variables)
        return inner.run(code)

    def interpreter(self, args: list[str]) -> str | None:
        codes = [args[i + 1] for i, a in enumerate(args[:-1]) if a in _CODE_FLAGS]
        if not codes and (not args or "-" in args):
            codes = self.bodies
        for code in codes:
            found = self.code_writes(code)
            if found:
                return found
        return None

    def code_writes(self, code: str) -> str | None:
        if not _pattern(_WRITE_MARKER, re.IGNORECASE).search(code):
            return None
        for literal in re.findall(r"['\"]([^'\"\n]+)['\"]", code):
            found = self.hit(literal.lstrip(">+ "))
            if found:
                return found
        return None


def _unwrap(argv: list[str]) -> list[str]:
    """The command a wrapper (``sudo -u x``, ``env A=b``, ``timeout 5``...) runs."""
    takes_value, positionals = _WRAPPERS[os.path.basename(argv[0])]
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg.startswith("-") and len(arg) > 1:
            i += 2 if arg in takes_value else 1
        elif _assignment(arg) is not None and argv[0] == "env":
            i += 1
        else:
            break
    return argv[i + positionals :]


def _has_flag(arg: str, flag: str) -> bool:
    """``-i``, ``-i.bak``, or a short-flag cluster holding it (``-pi``, ``-Ei``)."""
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 2:
        return False
    if arg[1] == flag:
        return True
    cluster = arg[1:].split(".", 1)[0]
    return cluster.isalpha() and flag in cluster


def index_write(command: str, matches: Matcher, cwd: str) -> str | None:
    """The target (as written) through which ``command`` would write the index, else ``None``.

    ``matches(path, cwd)`` says whether ``path`` (relative to ``cwd``) is the index.
    """
    return _Scan(matches, cwd).run(command)


def name_matcher(index_name: str) -> Matcher:
    """Match any file with this name (case-insensitive), also through a glob pattern."""
    wanted = index_name.lower()

    def matches(path: str, _cwd: str) -> bool:
        base = os.path.basename(path.rstrip("/")).lower()
        if base == wanted:
            return True
        if not any(c in base for c in "*?["):
            return False
        import fnmatch  # noqa: PLC0415 - only for glob targets

        return fnmatch.fnmatchcase(wanted, base)

    return matches


def path_matcher(index_path: str) -> Matcher:
    """Match exactly one file (symlinks and ``..`` resolved, case folded where the OS does)."""
    wanted = os.path.normcase(os.path.realpath(index_path))

    def matches(path: str, cwd: str) -> bool:
        full = os.path.join(cwd, path)
        if any(c in os.path.basename(full) for c in "*?["):
            import fnmatch  # noqa: PLC0415 - only for glob targets

            directory = os.path.normcase(os.path.realpath(os.path.dirname(full)))
            return directory == os.path.dirname(wanted) and fnmatch.fnmatch(
                os.path.basename(wanted), os.path.normcase(os.path.basename(full))
            )
        return os.path.normcase(os.path.realpath(full)) == wanted

    return matches
