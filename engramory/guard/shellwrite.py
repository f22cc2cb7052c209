"""Does a shell command write the memory index? (the Bash bypass of the edit guard)

The guard can check an Edit or Write before it lands; a shell command that
writes the index cannot be predicted, so it is denied and the agent is told to
use the edit tools. This module answers "would this command write a file the
caller calls the index?" by parsing the command as bash would
(:mod:`engramory.guard.shellparse`) and following it simple command by simple
command -- not by searching for a substring, so reading the index (``cat``,
``grep``, ``cp MEMORY.md backup.md``, ``wc -l MEMORY.md > /tmp/x``) passes.

What is followed: ``cd``/``pushd``; variables set by assignment, ``export``,
``declare``/``local``/``readonly``/``typeset``, ``for NAME in ...``, ``read
NAME`` from a here-string, ``printf -v NAME``, arrays, ``set --``, and ``sh -c
CODE ARG0 ARG1`` as ``$0``/``$1``; shell functions called with arguments (their
bodies followed again, within :data:`MAX_FOLLOWED`), ``trap CODE``; the
parameter operations of :mod:`engramory.guard.shellvalue`, ``${!G}``, ``$_``;
``$(echo ...)``/``$(printf ...)`` values; brace expansion (lists and
sequences); ``~``; globs (against the index name and the files that exist in
the target's directory); links made to the index by ``ln``; scripts the same
command writes with literal text and then runs. Writer programs with their own
output conventions (archivers, converters, downloaders, git) are in
:mod:`engramory.guard.shellwriters`. The literal text written to ``.md`` files
is handed back for the secret check (:func:`index_write`'s ``literal``).

A target whose file name is entirely unknown
(``> "$OUT"`` with ``OUT`` set elsewhere) is not the index; one with known and
unknown parts (``$DIR/MEMORY.md``, ``MEM$(x).md``) is matched as a glob.

What writes (the target must be the index):

* redirections ``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``<>``, ``N>``,
  ``N>>``, ``>&FILE``, also on ``exec`` and inside process substitutions;
* ``tee``; ``sed -i``/``--in-place`` (and a sed ``w FILE``); ``perl -i``;
  ``ruby -i``; ``gawk -i inplace``; ``cp``/``install``/``ln``/``rsync`` onto
  it (destination, into a directory, ``-t DIR``; ``rsync -n`` is a dry run);
  ``mv`` onto it or away from it; ``dd of=``; ``truncate`` (not its
  ``-r`` reference); ``touch``; ``rm``/``unlink``/``shred`` (and ``rm -r`` of
  a directory holding it); ``sort -o``; ``uniq IN OUT``; ``patch``;
  ``sponge``; ``curl -o``/``wget -O``; ``git checkout/restore/rm/mv`` of it;
  ``find`` with ``-delete``, ``-fprint`` or an ``-exec`` writer (``{}`` taken
  as the ``-name`` pattern); ``xargs`` (its command gets the words of an
  ``echo``/``printf`` piped in, else "any file here");
* editors opening it: ``vi``/``vim``/``nvim``/``ex`` unless read-only
  (``-R``, ``-M``, ``view``) or batch mode (``-es``) without a write command;
  ``ed`` unless its script (here-document) has no write; ``nano`` unless
  ``-v``; ``emacs`` unless ``--batch`` without a save or write call;
* interpreter one-liners (``python -c``/``-Sc``, ``node -e/-p/--eval=``,
  ``perl -e``, ``ruby -e``, ``php -r``, ``awk`` programs, or a script on
  stdin) whose code opens the index for writing, calls a write/append/remove/
  rename function on it, copies onto it, or names it where it cannot be told
  apart while the code also writes something (``p = 'MEMORY.md'; open(p, 'w')``);
  a string given to ``system``/``subprocess``/``exec``/backticks is read as
  a shell command;
* shells: ``sh``/``bash``/... ``-c`` (also ``-lc``, ``-c --``), a script on
  stdin (``bash <<< ..``, ``echo .. | bash``, ``bash <<'EOF'``,
  ``source /dev/stdin``) or from ``<(echo ..)``, ``su -c``, ``script -c``
  (and the log ``script`` writes), and ``eval``, parsed the same way;
* through wrappers (``sudo``, ``doas``, ``env``, ``nice``, ``timeout``,
  ``command``, ``builtin``, ``exec``, ``nohup``, ``time``, ``stdbuf``,
  ``setsid``, ``ionice``, ``chrt``, ``taskset``, ``busybox``, ``coproc``,
  ``uv run``, ``flock``, ``chroot``, ``unshare``, ``strace``, ``watch``).

Nesting deeper than :data:`engramory.guard.shellparse.MAX_DEPTH` is decided as a
write. No regular expression is used: every scan is a single pass.
"""

from __future__ import annotations

import os

from engramory.guard import shellparse as sp
from engramory.guard import shellvalue, shellwriters
from engramory.guard.indexmatch import (
    BRACKET,
    GLOB_MARKS,
    QUESTION,
    STAR,
    TILDE,
    UNKNOWN,
    IndexMatcher,
)
from engramory.guard.shellparse import Command, Program
from engramory.guard.shellwriters import operands as _operands
from engramory.guard.shellwriters import option_values as _option_values
from engramory.guard.shellwriters import short_flag as _short_flag

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the hook should not pay for importing these
    from collections.abc import Callable, Iterable

MAX_CANDIDATES = 64
MAX_CHOICES = 16  # words with more multi-valued parts: the rest count as unknown
MAX_BRACE_WORD = 1024  # longer words are not brace-expanded (prefix + unknown instead)
MAX_BRACE_GROUPS = 32
MAX_VALUE = 16384  # a longer variable value is unknown (``F=$F$F`` doubles each time)
MAX_CWD = 4096
TOO_DEEP = "(nested too deep to check)"
TOO_LONG = "(too long to check)"
MAX_COMMAND = 1024 * 1024  # parsing is linear, but a hook has seconds, not minutes
MAX_FOLLOWED = 64 * 1024  # text of function bodies and written scripts followed again
PATTERNS: tuple[str, ...] = ()  # no regular expressions: see tests/test_shellwrite.py

_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_RESERVED = frozenset({"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until"})
_ENDINGS = frozenset({"fi", "done", "esac", "in", ";;"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_STDIN_PATHS = frozenset({"/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "-"})
_VI = frozenset({"vi", "vim", "nvim", "gvim", "ex", "vimdiff", "view", "rview", "rvim"})
_EDITORS = frozenset({"nano", "pico", "micro", "joe", "jed", "mg", "kak", "hx", "helix"})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_NODES = frozenset({"node", "nodejs", "bun", "deno"})
_COPIERS = frozenset({"cp", "install", "ln", "rsync"})
_REMOVERS = frozenset({"rm", "unlink", "shred", "srm", "sponge"})
# wrapper: (options that take a value, plain arguments before the command)
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset({"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D", "-T", "-R"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "env": (frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "timeout": (frozenset({"-s", "-k", "--signal", "--kill-after"}), 1),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "setsid": (frozenset(), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0),
    "chrt": (frozenset({"-T", "-P", "-D"}), 1),
    "taskset": (frozenset(), 1),
    "busybox": (frozenset(), 0),
    "coproc": (frozenset(), 0),
    "flock": (frozenset({"-w", "-E", "--timeout", "--conflict-exit-code"}), 1),
    "chroot": (frozenset({"--userspec", "--groups"}), 1),
    "strace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-I", "-a", "-b", "-P", "-S"}), 0),
    "ltrace": (frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n"}), 0),
    "unbuffer": (frozenset(), 0),
    "runuser": (frozenset({"-u", "-g", "-G", "--user", "--group"}), 0),
    "watch": (frozenset({"-n", "-d", "--interval"}), 0),
    "caffeinate": (frozenset(), 0),
    "xvfb-run": (frozenset({"-s", "-n", "-f", "-e"}), 0),
    "unshare": (frozenset({"-S", "-G", "--setuid", "--setgid", "-R", "-w"}), 0),
}


def name_matcher(index_name: str) -> IndexMatcher:
    """Match any file with this name (case-insensitive), also through a glob pattern."""
    return IndexMatcher(index_name, None)


def path_matcher(index_path: str) -> IndexMatcher:
    """Match exactly one file: resolved path, or the same device and inode (a hard link)."""
    return IndexMatcher(None, index_path)


def index_write(
    command: str,
    matcher: IndexMatcher,
    cwd: str,
    literal: list[tuple[str, str]] | None = None,
) -> str | None:
    """The target (as written) through which ``command`` would write the index, else ``None``.

    :data:`TOO_DEEP` and :data:`TOO_LONG` stand for a command the guard cannot
    follow to the end: it is decided as a write. ``literal``, when given, receives
    ``(absolute path, text)`` for each ``.md`` file the command writes text spelled out
    in it (``echo``/``printf`` arguments, a here-document or here-string, text piped
    into ``tee``), as far as the scan went.
    """
    if len(command) > MAX_COMMAND:
        return TOO_LONG
    scan = _Scan(matcher, cwd, 0)
    scan.literal = literal
    return scan.run(command)


# -- expansion -------------------------------------------------------------------------


def _mark_globs(text: str) -> str:
    return text.replace("*", STAR).replace("?", QUESTION).replace("[", BRACKET)


def _first_brace_group(text: str) -> tuple[int, list[str], int] | None:
    """The outermost, leftmost ``{a,b}`` or ``{a..c}`` group: open, alternatives, close."""
    stack: list[tuple[int, list[int]]] = []
    best: tuple[int, list[str], int] | None = None
    for j, c in enumerate(text):
        if c == sp.BRACE_OPEN:
            stack.append((j, []))
        elif c == sp.BRACE_COMMA and stack:
            stack[-1][1].append(j)
        elif c == sp.BRACE_CLOSE and stack:
            start, commas = stack.pop()
            if best is not None and start >= best[0]:
                continue
            if commas:
                cuts = [start, *commas, j]
                best = (start, [text[a + 1 : b] for a, b in zip(cuts, cuts[1:])], j)
            elif ".." in text[start + 1 : j]:
                sequence = shellvalue.brace_sequence(text[start + 1 : j])
                if sequence:
                    best = (start, sequence, j)
    return best


def _brace_expand(text: str) -> list[str]:
    """Brace expansion over the unquoted brace markers (bounded in words and in work)."""
    if sp.BRACE_OPEN not in text:
        return [text]
    if len(text) > MAX_BRACE_WORD or text.count(sp.BRACE_OPEN) > MAX_BRACE_GROUPS:
        return [text[: text.find(sp.BRACE_OPEN)] + UNKNOWN]
    group = _first_brace_group(text)
    if group is None:
        return [text]
    start, alternatives, end = group
    head, tail = text[:start], text[end + 1 :]
    out: list[str] = []
    for alternative in alternatives:
        for rest in _brace_expand(alternative + tail):
            out.append(head + rest)
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


def _finish(text: str) -> str:
    """Leftover brace markers become plain characters; a leading ``~`` is expanded."""
    text = text.replace(sp.BRACE_OPEN, "{").replace(sp.BRACE_COMMA, ",")
    text = text.replace(sp.BRACE_CLOSE, "}")
    if text.startswith(TILDE):
        head, slash, rest = text[1:].partition("/")
        home = os.path.expanduser("~" + head)
        text = home + slash + rest if not home.startswith("~") else "~" + text[1:]
    return text.replace(TILDE, "~")


def _stored(value: str) -> str:
    """A value as a variable keeps it: globs are not expanded in assignments; bounded."""
    if len(value) > MAX_VALUE:
        return UNKNOWN
    return sp.plain(value) if UNKNOWN not in value else value


def _is_glob(text: str) -> bool:
    return any(c in GLOB_MARKS for c in text)


class _Scan:
    """Walks one command string in order, keeping ``cd`` and variables."""

    def __init__(self, matcher: IndexMatcher, cwd: str, depth: int) -> None:
        self.matcher = matcher
        self.cwd = cwd
        self.depth = depth
        self.variables: dict[str, list[str]] = {}
        self.scripts: dict[str, str] = {}  # process substitution path -> what it prints
        self.functions: dict[str, str] = {}  # shell function -> its body
        self.calling: set[str] = set()  # functions being followed (no recursion)
        self.aliases: set[str] = set()  # links made to the index by this command
        self.files: dict[str, str] = {}  # file -> the literal text this command wrote to it
        self.archives: dict[str, list[str]] = {}  # archive -> the sources this command put in
        self.literal: list[tuple[str, str]] | None = None  # (.md file, literal text written)
        self.budget = [MAX_FOLLOWED]  # shared: what is left to follow of text run again

    # entry points

    def run(self, command: str) -> str | None:
        return self.program(sp.parse(command, self.depth))

    def nested_run(self, code: str, positional: list[str] | None = None) -> str | None:
        """Follow ``code`` as a nested shell (``$0``, ``$1``... from ``positional``)."""
        inner = _Scan(self.matcher, self.cwd, self.depth + 1)
        inner.variables = dict(self.variables)
        inner.scripts, inner.functions, inner.calling = self.scripts, self.functions, self.calling
        inner.aliases, inner.files, inner.archives = self.aliases, self.files, self.archives
        inner.literal, inner.budget = self.literal, self.budget
        if positional is not None:
            self.positional(inner.variables, positional[1:])
            inner.variables["0"] = positional[:1] or [""]
        return inner.run(code)

    @staticmethod
    def positional(variables: dict[str, list[str]], values: list[str]) -> None:
        """``$1``... and ``$@`` (any one of the values) set to ``values``."""
        for key in [k for k in variables if k.isdigit() and k != "0"]:
            del variables[key]
        for number, value in enumerate(values[:9], 1):
            variables[str(number)] = [value]
        variables["@"] = values[:MAX_CANDIDATES] or [""]

    def program(self, program: Program) -> str | None:
        if program.too_deep:
            return TOO_DEEP
        self.functions.update(program.functions)
        for command in program.commands:
            found = self.command(command)
            if found:
                return found
        return None

    # expansion

    def expand(self, word: list) -> list[str]:
        """The candidate values of one word (markers kept for globs)."""
        choices = [self.part_values(part)[:MAX_CANDIDATES] for part in word]
        if all(len(options) == 1 for options in choices):
            values = ["".join(options[0] for options in choices)]
        else:
            values = [""]
            multi = 0
            for options in choices:
                multi += len(options) > 1
                kept = options if len(options) == 1 or multi <= MAX_CHOICES else [UNKNOWN]
                values = [v + o for v in values for o in kept][:MAX_CANDIDATES]
        out: list[str] = []
        for value in values:
            out.extend(_finish(v) for v in _brace_expand(value))
        return out[:MAX_CANDIDATES]

    def part_values(self, part: tuple) -> list[str]:
        kind = part[0]
        if kind == "t":
            return [part[1]]
        if kind == "v":
            _, name, op, default, quoted = part
            values = self.variables.get(name)
            if values is None:
                if op in ("-", "=") and default is not None:
                    values = [sp.plain(v) for v in self.expand(default)]
                    if op == "=":
                        self.variables[name] = values
                else:
                    return [UNKNOWN]
            return values if quoted else [_mark_globs(v) for v in values]
        if kind == "x":
            return self.operated(part)
        if kind == "a":
            out = [v for word in part[1] for v in self.expand(word)]
            return out[:MAX_CANDIDATES] or [""]
        if kind == "p":
            path = f"/dev/fd/{63 - len(self.scripts)}"
            printed = _printed(part[1])
            if printed is not None:
                self.scripts[path] = printed
            return [path]
        if kind == "s":
            printed = _printed(part[1])
            return [UNKNOWN] if printed is None else [printed.strip("\n")]
        return [UNKNOWN]

    def operated(self, part: tuple) -> list[str]:
        """The values of ``${name%pattern}``, ``${!name}`` and the like (see shellparse)."""
        _, name, op, words, quoted = part
        values = self.variables.get(name)
        if values is None:
            return [UNKNOWN]
        if op == "!":
            out = [v for value in values for v in self.variables.get(value, [UNKNOWN])]
        elif op == "+":
            out = self.expand(words[0]) if values != [""] else [""]
        else:
            pattern = (self.expand(words[0]) or [""])[0] if words else ""
            replacement = sp.plain((self.expand(words[1]) or [""])[0]) if len(words) > 1 else ""
            out = []
            for value in values:
                done = None
                if UNKNOWN not in pattern + replacement and UNKNOWN not in value:
                    done = shellvalue.operate(value, op, pattern, replacement)
                out.append(UNKNOWN if done is None else done)
        out = out[:MAX_CANDIDATES] or [UNKNOWN]
        return out if quoted else [_mark_globs(v) for v in out]

    def words(self, words: Iterable[list]) -> list[str]:
        out: list[str] = []
        for word in words:
            out.extend(self.expand(word))
        return out

    def hit(self, candidate: str) -> bool:
        if self.aliases and self.resolved(candidate) in self.aliases:
            return True
        if _is_glob(candidate):
            return self.matcher.pattern(candidate, self.cwd)
        return self.matcher.literal(candidate, self.cwd)

    def resolved(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, sp.plain(path)))

    def first_hit(self, candidates: Iterable[str]) -> str | None:
        for candidate in candidates:
            if self.hit(candidate):
                return sp.plain(candidate)
        return None

    # one simple command

    def substitutions(self, word: list) -> str | None:
        for part in word:
            if part[0] in ("s", "p"):
                found = self.program(part[1])
                if found:
                    return found
            elif part[0] == "v" and part[3]:
                found = self.substitutions(part[3])
                if found:
                    return found
        return None

    def command(self, command: Command) -> str | None:
        for word in command.words:
            found = self.substitutions(word)
            if found:
                return found
        found = self.redirected(command)
        if found:
            return found
        words = list(command.words)
        while words and self.assign(words[0]):
            words.pop(0)
        if not words:
            return None
        argv = self.words(words)
        found = self.simple(argv, command)
        if argv:
            self.variables["_"] = [_stored(argv[-1])]
        return found

    def redirected(self, command: Command) -> str | None:
        """The index, when one of the command's redirections writes it."""
        output: tuple[str, list[str]] | None = None  # where stdout goes: the last redirect wins
        for redirect in command.redirects:
            found = self.substitutions(redirect.target or []) or self.substitutions(
                redirect.body_parts or []
            )
            if found:
                return found
            op = redirect.op.lstrip("0123456789")
            if op not in _WRITE_OPS or not redirect.target:
                continue
            targets = self.expand(redirect.target)
            if op == ">&" and all(t.isdigit() or t == "-" for t in targets):
                continue
            found = self.first_hit(targets)
            if found:
                if self.literal is not None:
                    self.output_text(command, op, targets)  # its text is checked for secrets too
                return found
            if redirect.op[:1] in ("1", ">", "&"):
                output = (op, targets)
        if output is not None:
            self.output_text(command, *output)
        return None

    def collect(self, targets: list[str], text: Callable[[], str | None]) -> None:
        """Record the literal text written to each ``.md`` target (for the secret check)."""
        notes = [sp.plain(t) for t in targets if sp.plain(t).lower().endswith(".md")]
        written = text() if notes and self.literal is not None else None
        if written:
            self.literal.extend((os.path.join(self.cwd, note), written) for note in notes)

    def output_text(self, command: Command, op: str, targets: list[str]) -> None:
        """Keep the literal text a command prints into a file: a script run later by name
        (``printf .. > s.sh; bash s.sh``), and a ``.md`` file's text for the secret check."""
        notes = self.literal is not None and any(
            sp.plain(t).lower().endswith(".md") for t in targets
        )
        single = len(targets) == 1 and op in (">", ">>", ">|") and not _is_glob(targets[0])
        if not single and not notes:
            return
        printed = _printed_command(command, self)
        if printed is None or len(printed) > MAX_VALUE:
            return
        if single:
            key = self.resolved(targets[0])
            text = (self.files.get(key, "") if op == ">>" else "") + printed
            if len(text) <= MAX_VALUE:
                self.files[key] = text
            else:
                self.files.pop(key, None)  # too long to keep: the script is unknown
        if notes:
            self.collect(targets, lambda: printed)

    def assign(self, word: list) -> bool:
        """Record ``NAME=value`` (or ``NAME+=value``); ``False`` when the word is not one."""
        if not word or word[0][0] != "t":
            return False
        name, equals, rest = word[0][1].partition("=")
        appended = name.endswith("+") or sp.BRACKET in name
        name = name[:-1] if name.endswith("+") else name
        name = name.partition(sp.BRACKET)[0]  # A[1]=value: one more value of the array
        if not equals or not name.isidentifier() or not name.isascii():
            return False
        value_word = ([("t", rest)] if rest else []) + list(word[1:])
        values = [_stored(v) for v in (self.expand(value_word) if value_word else [""])]
        if appended and name in self.variables:
            values = (self.variables[name] + values)[:MAX_CANDIDATES]
        self.variables[name] = values
        return True

    def declare(self, arg: str) -> None:
        """``export NAME=value`` and the like (``arg`` already expanded)."""
        name, equals, value = arg.partition("=")
        name = name[:-1] if name.endswith("+") else name
        if equals and name.isidentifier() and name.isascii():
            self.variables[name] = [_stored(value)]

    def simple(self, argv: list[str], command: Command) -> str | None:  # noqa: PLR0912 - one branch per shell keyword or wrapper
        while argv:
            head = sp.plain(argv[0])
            name = os.path.basename(head)
            if head in _RESERVED:
                argv = argv[1:]
            elif head in _ENDINGS or head == "case":
                return None
            elif head in ("for", "select"):
                if len(argv) >= 3 and argv[2] == "in":
                    values = argv[3 : 3 + MAX_CANDIDATES]  # globs here are expanded
                    self.variables[argv[1]] = [v if len(v) < MAX_VALUE else UNKNOWN for v in values]
                return None
            elif name in _WRAPPERS:
                unwrapped = self.unwrap(argv)
                if unwrapped is None or unwrapped == argv:
                    return None
                argv = unwrapped
            elif name == "uv" and len(argv) > 1 and argv[1] == "run":
                argv = _skip_options(
                    argv[2:], frozenset({"--with", "--python", "-p", "--project", "--env-file"})
                )
            elif name == "xargs":
                argv = self.xargs(argv, command)
            else:
                break
        if not argv:
            return None
        name = os.path.basename(sp.plain(argv[0]))
        args = argv[1:]
        if name in _DECLARERS:
            for arg in args:
                self.declare(arg)
            return None
        if name in ("cd", "pushd"):
            known = [a for a in args if not a.startswith("-") and UNKNOWN not in a]
            if known and len(self.cwd) + len(known[-1]) < MAX_CWD:
                self.cwd = os.path.join(self.cwd, sp.plain(known[-1]))
            return None
        if name in self.functions and name not in self.calling:
            if not self.spend(self.functions[name]):
                return TOO_LONG
            self.calling.add(name)
            try:
                return self.nested_run(self.functions[name], [name, *map(sp.plain, args)])
            finally:
                self.calling.discard(name)
        return self.writes(name, args, command)

    def spend(self, text: str) -> bool:
        """Take ``text`` from what may still be followed a second time; ``False`` when spent
        (a function called, or a script run, over and over: decided as a write)."""
        self.budget[0] -= len(text) + 1
        return self.budget[0] >= 0

    def set_positional(self, plain: list[str]) -> None:
        """``set -- a b`` (or ``set a b``) sets ``$1``, ``$2``... and ``$@``."""
        if "--" in plain:
            self.positional(self.variables, plain[plain.index("--") + 1 :])
        elif plain and not plain[0].startswith(("-", "+")):
            self.positional(self.variables, plain)

    def printf_variable(self, plain: list[str]) -> None:
        """``printf -v NAME FORMAT ARGS``: NAME holds what printf would print."""
        if plain[:1] == ["-v"] and len(plain) > 2:
            name, words = plain[1], plain[2:]
        elif plain[:1] and plain[0].startswith("-v") and len(plain) > 1:
            name, words = plain[0][2:], plain[1:]
        else:
            return
        words = words[1:] if words[:1] == ["--"] else words
        value = shellvalue.printf_format(words[0], words[1:]) if words else None
        self.variables[name] = [UNKNOWN if value is None else _stored(value)]

    def trap(self, plain: list[str]) -> str | None:
        """``trap CODE SIGNAL...``: CODE runs later (at exit, on a signal): followed now."""
        plain = plain[1:] if plain[:1] == ["--"] else plain
        if len(plain) < 2 or plain[0] in ("-", "-p", "-l", "-P"):
            return None
        return self.nested_run(plain[0])

    def unwrap(self, argv: list[str]) -> list[str] | None:
        name = os.path.basename(sp.plain(argv[0]))
        takes_value, positionals = _WRAPPERS[name]
        i = 1
        while i < len(argv):
            arg = sp.plain(argv[i])
            if arg == "--":
                i += 1
                break
            if name == "command" and arg in ("-v", "-V"):
                return None
            if name == "env" and (arg in ("-C", "--chdir") or arg.startswith("--chdir=")):
                value = (
                    arg.split("=", 1)[1]
                    if "=" in arg
                    else sp.plain(argv[min(i + 1, len(argv) - 1)])
                )
                self.cwd = os.path.join(self.cwd, value)
            if name == "env" and (arg == "-S" or arg.startswith("--split-string")):
                code = (
                    arg.split("=", 1)[1] if "=" in arg else " ".join(map(sp.plain, argv[i + 1 :]))
                )
                return ["eval", code, *argv[i + 2 :]] if code else None
            if name == "strace" and arg == "-o" and i + 1 < len(argv) and self.hit(argv[i + 1]):
                return ["tee", argv[i + 1]]
            if arg.startswith("-") and len(arg) > 1:
                i += 2 if arg in takes_value else 1
            elif name == "env" and "=" in arg and arg.split("=", 1)[0].isidentifier():
                i += 1
            else:
                break
        if name == "flock" and i + positionals < len(argv):
            rest = argv[i + positionals :]
            if rest and sp.plain(rest[0]) in ("-c", "--command") and len(rest) > 1:
                return ["sh", "-c", rest[1]]
        if name == "watch" and i < len(argv):
            return ["sh", "-c", " ".join(map(sp.plain, argv[i:]))]
        return argv[i + positionals :]

    def xargs(self, argv: list[str], command: Command) -> list[str]:
        """The command ``xargs`` runs, with the words it would read appended."""
        rest = _skip_options(
            argv[1:], frozenset({"-I", "-n", "-L", "-P", "-s", "-d", "-E", "-a", "--delimiter"})
        )
        replace = None
        for i, arg in enumerate(argv[1:], 1):
            if arg in ("-I", "--replace") and i + 1 < len(argv):
                replace = argv[i + 1]
            elif arg.startswith("-I") and len(arg) > 2:
                replace = arg[2:]
            elif arg == "-i" or arg.startswith("--replace="):
                replace = arg.partition("=")[2] or "{}"
            elif not arg.startswith("-"):
                break
        text = self.stdin_text(command)
        items = text.split() if text is not None else [self.somewhere_below(".", STAR)]
        if replace is not None:
            return [a.replace(replace, item) for item in items[:1] for a in rest] or rest
        return rest + items if rest else ["echo"]

    # writers

    def writes(self, name: str, args: list[str], command: Command) -> str | None:
        """The index (as written), when program ``name`` run with ``args`` writes it."""
        handler = _HANDLERS.get(name) or _HANDLERS.get(name.rstrip("0123456789."))
        if handler is None:
            return None
        return handler(self, name, args, [sp.plain(a) for a in args], command)

    def operands_written(
        self, name: str, args: list[str], plain: list[str], command: Command
    ) -> str | None:
        """``tee``, ``rm`` and the like: every operand is written (``rm -r``: and below it)."""
        operands = [a for a, p in zip(args, plain) if not p.startswith("-") or p == "-"]
        if name == "tee" and self.literal is not None:
            self.collect(operands, lambda: self.stdin_text(command))
        recursive = name == "rm" and any(_short_flag(p, "rR") or p == "--recursive" for p in plain)
        return self.first_hit(operands) or (self.below(operands) if recursive else None)

    def other_editor(self, args: list[str], plain: list[str]) -> str | None:
        if any(p in ("-v", "--view") for p in plain):
            return None
        operands = [a for a, p in zip(args, plain) if not p.startswith(("-", "+")) or p == "-"]
        return self.first_hit(operands)

    def sourced(self, plain: list[str], command: Command) -> str | None:
        if plain and plain[0] in self.scripts:
            return self.nested_run(self.scripts[plain[0]], plain)
        return self.stdin_code(command) if plain and plain[0] in _STDIN_PATHS else None

    def somewhere_below(self, start: str, pattern: str) -> str:
        """A path standing for "some file below ``start`` named like ``pattern``".

        ``find``'s ``{}`` and the words ``xargs`` reads from an unknown input
        may be any file in the tree, not only in ``start`` itself: the index
        when it may lie below, else the glob over ``start``'s own entries.
        """
        if not self.matcher.under(start, pattern, self.cwd):
            return os.path.join(start, pattern)
        if self.matcher.index is not None:
            return self.matcher.identity()[0]
        return os.path.join(start, self.matcher.name or pattern)

    def below(self, operands: list[str]) -> str | None:
        for operand in operands:
            if self.matcher.under(sp.plain(operand), STAR, self.cwd):
                return sp.plain(operand)
        return None

    def stdin_text(self, command: Command) -> str | None:
        """What ``command`` reads on stdin, when the command string says (else ``None``)."""
        for redirect in reversed(command.redirects):
            op = redirect.op.lstrip("0")
            if op == "<<<" and redirect.target is not None:
                return " ".join(sp.plain(v) for v in self.expand(redirect.target)) + "\n"
            if op in ("<<", "<<-"):
                return redirect.body or ""
            if op == "<":
                targets = self.expand(redirect.target or [])
                return self.files.get(self.resolved(targets[0])) if len(targets) == 1 else None
        if command.piped_from is not None:
            return _printed_command(command.piped_from, self)
        return None

    def stdin_code(self, command: Command) -> str | None:
        text = self.stdin_text(command)
        return self.nested_run(text) if text else None

    def shell(self, args: list[str], plain: list[str], command: Command) -> str | None:
        i, has_c, reads_stdin = 0, False, False
        while i < len(plain):
            arg = plain[i]
            if arg == "--":
                i += 1
                break
            if arg in _SHELL_VALUE_OPTIONS:
                i += 2
                continue
            if arg[:1] == "-" and "n" in arg[1:] and not arg.startswith("--"):
                return None  # -n: read the commands, run none
            if arg[:1] in ("-", "+") and len(arg) > 1 and not arg.startswith("--"):
                has_c |= "c" in arg[1:]
                reads_stdin |= "s" in arg[1:]
            elif not arg.startswith("--"):
                break
            i += 1
        if has_c:
            return self.nested_run(plain[i], plain[i + 1 :]) if i < len(plain) else None
        if reads_stdin or i >= len(plain) or plain[i] in _STDIN_PATHS:
            return self.stdin_code(command)
        if plain[i] in self.scripts:
            return self.nested_run(self.scripts[plain[i]], plain[i:])
        return self.script_file(plain[i], plain[i:], "sh")

    def script_file(self, path: str, argv: list[str], language: str) -> str | None:
        """A script this same command wrote with literal text (``printf .. > s.sh; bash s.sh``)."""
        text = self.files.get(self.resolved(path)) if self.files else None
        if text is None:
            return None
        if not self.spend(text):
            return TOO_LONG
        if language == "sh":
            return self.nested_run(text, argv)
        return self.code(text, language, argv[1:])

    def script(self, args: list[str], plain: list[str]) -> str | None:
        """``script [-c CMD] [FILE]``: runs CMD, and writes its log to FILE (``typescript``)."""
        for i, arg in enumerate(plain):
            cluster = arg[:1] == "-" and arg[1:2] != "-" and arg.endswith("c")
            if (arg == "--command" or cluster) and i + 1 < len(plain):
                found = self.nested_run(plain[i + 1])
                if found:
                    return found
        value_options = {"-c", "--command", "-E", "--echo", "-I", "-O", "-B", "-T", "-m"}
        return self.first_hit(_operands(args, plain, value_options)[-1:])

    def read(self, args: list[str], plain: list[str], command: Command) -> str | None:
        """``read NAME...`` from a here-string or here-document sets those variables."""
        names = _operands(args, plain, {"-p", "-d", "-n", "-N", "-t", "-u", "-a"})
        words = (self.stdin_text(command) or "").split()
        for k, name in enumerate(names):
            value = " ".join(words[k:]) if k == len(names) - 1 else (words[k : k + 1] or [""])[0]
            self.variables[sp.plain(name)] = [value] if words else [UNKNOWN]
        return None

    def code(
        self,
        code: str,
        language: str,
        arguments: list[str] | None = None,
        bindings: dict[str, str] | None = None,
    ) -> str | None:
        """Does interpreter ``code`` write the index? ``arguments``: its argv after the code;
        ``bindings``: variables set outside the code (``awk -v f=MEMORY.md``)."""
        return _CodeScan(self, code, language, arguments or [], bindings or {}).writes()

    def python(self, args: list[str], plain: list[str], command: Command) -> str | None:
        i = 0
        while i < len(plain):
            arg = plain[i]
            if arg == "-" or not arg.startswith("-") or arg == "--":
                break
            if arg.startswith("--"):
                i += 1
                continue
            for k, flag in enumerate(arg[1:], 1):
                if flag == "c":
                    attached = arg[k + 1 :]
                    code = attached or (plain[i + 1] if i + 1 < len(plain) else "")
                    return self.code(code, "python", plain[i + (1 if attached else 2) :])
                if flag == "m":
                    return None
                if flag in "WX":
                    i += 0 if arg[k + 1 :] else 1
                    break
            i += 1
        if i < len(plain) and plain[i] not in ("-", "--"):
            return self.script_file(plain[i], plain[i:], "python")
        text = self.stdin_text(command)
        return self.code(text, "python", plain[i + 1 :]) if text else None

    def node(self, name: str, args: list[str], plain: list[str], command: Command) -> str | None:
        if name == "deno" and plain[:1] == ["eval"]:
            return self.code(" ".join(plain[1:]), "js")
        i = 0
        while i < len(plain):
            arg = plain[i]
            for long in ("--eval=", "--print="):
                if arg.startswith(long):
                    return self.code(arg[len(long) :], "js", plain[i + 1 :])
            if arg in ("--eval", "--print") or (
                arg.startswith("-")
                and not arg.startswith("--")
                and arg[-1:] in "ep"
                and len(arg) > 1
            ):
                return self.code(plain[i + 1] if i + 1 < len(plain) else "", "js", plain[i + 2 :])
            if arg in ("-r", "--require", "--import", "--loader", "--input-type", "-C"):
                i += 2
                continue
            if not arg.startswith("-") or arg == "-":
                break
            i += 1
        if i < len(plain) and plain[i] != "-":
            return self.script_file(plain[i], plain[i:], "js")
        text = self.stdin_text(command)
        return self.code(text, "js", plain[i + 1 :]) if text else None

    def php(self, args: list[str], plain: list[str], command: Command) -> str | None:
        for i, arg in enumerate(plain):
            if arg in ("-r", "-B", "-R", "-E") and i + 1 < len(plain):
                return self.code(plain[i + 1], "php", plain[i + 2 :])
        return None

    def perl_ruby(  # noqa: PLR0912 - one branch per option form
        self, name: str, args: list[str], plain: list[str], command: Command
    ) -> str | None:
        value_flags = "MmIdDxC" if name == "perl" else "rICEFKTWx"
        code: str | None = None
        in_place = False
        i = 0
        while i < len(plain):
            arg = plain[i]
            if arg == "--" or not arg.startswith("-") or arg == "-":
                i += 1 if arg == "--" else 0
                break
            k = 1
            while k < len(arg):
                flag = arg[k]
                if flag in "eE" and not (name == "ruby" and flag == "E"):
                    rest = arg[k + 1 :]
                    if rest:
                        code = (code or "") + rest + "\n"
                    elif i + 1 < len(plain):
                        i += 1
                        code = (code or "") + plain[i] + "\n"
                    break
                if flag == "i":
                    in_place = True
                    break
                if flag in value_flags:
                    if k + 1 == len(arg) and flag in "IrCEF" and i + 1 < len(plain):
                        i += 1
                    break
                if flag in "0l":
                    while k + 1 < len(arg) and arg[k + 1] in "01234567xX":
                        k += 1
                k += 1
            i += 1
        operands = args[i:]
        if code is None:
            if operands and sp.plain(operands[0]) != "-":
                script = self.script_file(sp.plain(operands[0]), plain[i:], name)
                if script:
                    return script
                operands = operands[1:]  # the script file
                code = None
            else:
                code = self.stdin_text(command)
        if in_place:
            found = self.first_hit(operands)
            if found:
                return found
        return self.code(code, name, [sp.plain(o) for o in operands]) if code else None

    def awk(self, args: list[str], plain: list[str]) -> str | None:  # noqa: PLR0912 - one branch per option
        program: str | None = None
        in_place = False
        bindings: dict[str, str] = {}
        i = 0
        while i < len(plain):
            arg = plain[i]
            if arg in ("-f", "--file"):
                program = ""
                i += 2
                continue
            if arg in ("-v", "--assign") and i + 1 < len(plain):
                name, _, value = plain[i + 1].partition("=")
                bindings[name] = value
                i += 2
                continue
            if arg.startswith("-v") and "=" in arg:
                name, _, value = arg[2:].partition("=")
                bindings[name] = value
                i += 1
                continue
            if arg in ("-F", "--field-separator"):
                i += 2
                continue
            if arg in ("-i", "--include") and i + 1 < len(plain):
                in_place |= plain[i + 1] == "inplace"
                i += 2
                continue
            if arg in ("-e", "--source") and i + 1 < len(plain):
                program = (program or "") + plain[i + 1]
                i += 2
                continue
            if arg == "--":
                i += 1
                break
            if not arg.startswith("-") or arg == "-":
                break
            i += 1
        if program is None and i < len(plain):
            program = plain[i]
            i += 1
        files = args[i:]
        inputs = [sp.plain(f) for f in files if "=" not in sp.plain(f)]
        for operand in files:
            name, equals, value = sp.plain(operand).partition("=")
            if equals and name.isidentifier():
                bindings[name] = value
        if in_place:
            found = self.first_hit(f for f in files if "=" not in sp.plain(f))
            if found:
                return found
        if inputs:
            bindings["FILENAME"] = self.first_hit(inputs) or inputs[0]
        return self.code(program, "awk", inputs, bindings) if program else None

    def sed(self, args: list[str], plain: list[str]) -> str | None:  # noqa: PLR0912 - one branch per sed option form
        in_place, scripts, i, files = False, [], 0, []
        while i < len(plain):
            arg = plain[i]
            if arg.startswith("--in-place"):
                in_place = True
            elif arg in ("--expression", "-e") and i + 1 < len(plain):
                scripts.append(plain[i + 1])
                i += 1
            elif arg.startswith("--expression="):
                scripts.append(arg.split("=", 1)[1])
            elif arg in ("-f", "--file", "-l", "--line-length"):
                scripts.append("")
                i += 1
            elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
                for k, flag in enumerate(arg[1:], 1):
                    if flag == "i":
                        in_place = True
                        break
                    if flag in "efl":
                        rest = arg[k + 1 :] or (plain[i + 1] if i + 1 < len(plain) else "")
                        scripts.append(rest if flag == "e" else "")
                        i += 0 if arg[k + 1 :] else 1
                        break
            elif not arg.startswith("-"):
                files.append(args[i])
            i += 1
        if not scripts and files:
            scripts.append(sp.plain(files.pop(0)))
        for script in scripts:
            found = self.first_hit(_sed_write_files(script))
            if found:
                return found
        return self.first_hit(files) if in_place else None

    def copy(self, name: str, args: list[str], plain: list[str]) -> str | None:
        if name == "rsync" and any(p == "--dry-run" or _short_flag(p, "n") for p in plain):
            return None
        value_options = {"-S", "--suffix", "-t", "--target-directory", "-m", "--mode", "-o"}
        value_options |= {"-g", "--owner", "--group", "-e", "--rsh", "--exclude", "--include"}
        value_options |= {"-f", "--filter", "--files-from", "--exclude-from", "--include-from"}
        if name != "install":
            value_options -= {"-o", "-g", "-m"}
        if name == "ln":
            value_options -= {"-f", "-e"}
        if name != "rsync":
            value_options -= {"-e", "-f"}
        operands = _operands(args, plain, value_options)
        found = self.copied(name, args, plain, operands)
        if name == "ln" and not found:
            self.remember_links(args, plain, operands)
        return found

    def copied(
        self, name: str, args: list[str], plain: list[str], operands: list[str]
    ) -> str | None:
        copied = self.copied_tree(name, plain, operands)
        if copied:
            return copied
        directory = None
        if name != "rsync":
            directory = next(iter(_option_values(args, plain, ("-t", "--target-directory"))), None)
        no_target_dir = any(p in ("-T", "--no-target-directory") for p in plain)
        if directory is None:
            if len(operands) == 1 and name == "ln":
                operands = [*operands, "."]
            if len(operands) < 2:
                return None
            *sources, destination = operands
            found = self.kept(name, plain, self.first_hit([destination]))
            if found:
                return found
            if not no_target_dir and not (
                sp.plain(destination).endswith("/")
                or os.path.isdir(os.path.join(self.cwd, sp.plain(destination)))
                or UNKNOWN in destination
            ):
                return self.moved_away(name, sources)
            directory = destination
        else:
            sources = operands
        into = [
            os.path.join(sp.plain(directory), os.path.basename(sp.plain(s).rstrip("/")))
            for s in sources
        ]
        return self.kept(name, plain, self.first_hit(into)) or self.moved_away(name, sources)

    def remember_links(self, args: list[str], plain: list[str], operands: list[str]) -> None:
        """``ln [-s] INDEX LINK``: writing through LINK later writes the index."""
        directory = next(iter(_option_values(args, plain, ("-t", "--target-directory"))), None)
        if directory is None and len(operands) >= 2:
            *sources, link = operands
        else:
            sources, link = operands, directory or "."
        for source in sources:
            if self.hit(source):
                into = sp.plain(link).endswith("/") or os.path.isdir(
                    os.path.join(self.cwd, sp.plain(link))
                )
                path = os.path.join(sp.plain(link), os.path.basename(sp.plain(source)))
                self.aliases.add(self.resolved(path if into else link))

    def copied_tree(self, name: str, plain: list[str], operands: list[str]) -> str | None:
        """``cp -r``/``cp -a``/``rsync -a`` of a folder holding a file named like the index:
        the copy is one more such file (the index is guarded by name)."""
        recursive = name in ("cp", "rsync") and any(
            _short_flag(p, "rRa") or p in ("--recursive", "--archive") for p in plain
        )
        if not recursive or self.matcher.name is None or len(operands) < 2:
            return None
        for source in operands[:-1]:
            folder = os.path.join(self.cwd, sp.plain(source))
            if os.path.isdir(folder) and self.matcher.under(sp.plain(source), STAR, self.cwd):
                return os.path.join(sp.plain(operands[-1]), self.matcher.name)
        return None

    def kept(self, name: str, plain: list[str], found: str | None) -> str | None:
        """``found``, unless the command refuses to replace it: ``ln`` without ``-f``, ``cp -n``."""
        if found is None or not os.path.lexists(os.path.join(self.cwd, found)):
            return found
        if name == "ln" and not _forced(plain):
            return None
        no_clobber = any(
            _short_flag(p, "n") or p in ("--no-clobber", "--update=none") for p in plain
        )
        return None if no_clobber and name in ("cp", "mv") else found

    def moved_away(self, name: str, sources: list[str]) -> str | None:
        if name != "mv":
            return None
        return self.first_hit(sources) or self.below(sources)

    def patch(self, args: list[str], plain: list[str], command: Command) -> str | None:
        outputs = _option_values(args, plain, ("-o", "--output"))
        operands = _operands(args, plain, {"-p", "-i", "-d", "-o", "-r", "-B", "-z", "-F", "-D"})
        found = self.first_hit(outputs or operands[:1])
        if found or outputs or operands:
            return found
        text = self.stdin_text(command) or ""
        names = [
            line[4:].split("\t")[0].strip() for line in text.split("\n") if line.startswith("+++ ")
        ]
        strip = [n.split("/", 1)[1] if "/" in n else n for n in names]
        return self.first_hit(names + strip)

    def find(self, args: list[str], plain: list[str]) -> str | None:
        starts: list[str] = []
        i = 0
        while i < len(plain) and not plain[i].startswith(("-", "(", "!")):
            starts.append(plain[i])
            i += 1
        starts = starts or ["."]
        names = [args[k + 1] for k in range(i, len(plain) - 1) if plain[k] in ("-name", "-iname")]
        pattern = _mark_globs(sp.plain(names[0])) if names else STAR
        for k in range(i, len(plain)):
            action = plain[k]
            if action in ("-fprint", "-fprint0", "-fprintf", "-fls") and k + 1 < len(args):
                found = self.first_hit([args[k + 1]])
                if found:
                    return found
            if action == "-delete":
                for start in starts:
                    if self.matcher.under(start, pattern, self.cwd) or self.hit(
                        os.path.join(start, pattern)
                    ):
                        return f"{start} {action}"
            if action in ("-exec", "-execdir", "-ok", "-okdir"):
                end = k + 1
                while end < len(plain) and plain[end] not in (";", "+"):
                    end += 1
                for start in starts:
                    path = self.somewhere_below(start, pattern)
                    if action.endswith("dir") and path == os.path.join(start, pattern):
                        path = pattern
                    inner = [a.replace("{}", path) for a in args[k + 1 : end]]
                    found = self.simple(inner, Command())
                    if found:
                        return found
        return None

    def vi(self, name: str, args: list[str], plain: list[str], command: Command) -> str | None:
        commands: list[str] = []
        read_only = name in ("view", "rview")
        batch = False
        files: list[str] = []
        i = 0
        while i < len(plain):
            arg = plain[i]
            if arg in ("-c", "--cmd", "-S") and i + 1 < len(plain):
                commands.append(plain[i + 1])
                i += 2
                continue
            if arg.startswith("+"):
                commands.append(arg[1:])
            elif arg in ("-R", "-M", "-m"):
                read_only = True
            elif arg in ("-es", "-Es", "-e", "-s", "-E", "--headless") or arg.startswith("-e"):
                batch = batch or "s" in arg or arg == "--headless"
            elif not arg.startswith("-") or arg == "-":
                files.append(args[i])
            i += 1
        if name == "ex" and "-s" in plain:
            batch = True
        if batch and not commands:
            text = self.stdin_text(command)
            commands = text.split("\n") if text else []
        return self.editor_writes(commands, files, read_only or batch)

    def editor_writes(self, commands: list[str], files: list[str], quiet: bool) -> str | None:
        """The index, when ex commands (``w``, ``wq``, ``w FILE``...) write it.

        ``quiet``: no command means no write (read-only or batch mode);
        otherwise an interactive session may write any file it opened.
        """
        buffer_written = False
        for line in commands:
            for target in _ex_write_targets(line):
                if target:
                    found = self.first_hit([target])
                    if found:
                        return found
                else:
                    buffer_written = True
        if quiet and not buffer_written:
            return None
        return self.first_hit(files)

    def ed(self, args: list[str], plain: list[str], command: Command) -> str | None:
        files = [a for a, p in zip(args, plain) if not p.startswith("-") and not p.startswith("!")]
        text = self.stdin_text(command)
        return self.editor_writes(
            text.split("\n") if text is not None else [], files, text is not None
        )

    def emacs(self, args: list[str], plain: list[str]) -> str | None:
        batch = any(p in ("--batch", "-batch", "--script", "-script") for p in plain)
        if batch:
            code = " ".join(plain)
            saving = ("save-buffer", "write-file", "write-region", "append-to-file", "save-some")
            if not any(s in code for s in saving):
                return None
        return self.first_hit(a for a, p in zip(args, plain) if not p.startswith(("-", "+", "(")))


_HANDLERS: dict[str, Callable[[_Scan, str, list, list, Command], str | None]] = {
    **shellwriters.HANDLERS,
    "sed": lambda s, n, a, p, c: s.sed(a, p),
    "perl": lambda s, n, a, p, c: s.perl_ruby(n, a, p, c),
    "ruby": lambda s, n, a, p, c: s.perl_ruby(n, a, p, c),
    "python": lambda s, n, a, p, c: s.python(a, p, c),
    "pypy": lambda s, n, a, p, c: s.python(a, p, c),
    "php": lambda s, n, a, p, c: s.php(a, p, c),
    "dd": lambda s, n, a, p, c: s.first_hit(x[3:] for x in a if x.startswith("of=")),
    "uniq": lambda s, n, a, p, c: s.first_hit(_operands(a, p, {"-f", "-s", "-w"})[1:2]),
    "patch": lambda s, n, a, p, c: s.patch(a, p, c),
    "find": lambda s, n, a, p, c: s.find(a, p),
    "source": lambda s, n, a, p, c: s.sourced(p, c),
    ".": lambda s, n, a, p, c: s.sourced(p, c),
    "eval": lambda s, n, a, p, c: s.nested_run(" ".join(p)),
    "script": lambda s, n, a, p, c: s.script(a, p),
    "read": lambda s, n, a, p, c: s.read(a, p, c),
    "su": lambda s, n, a, p, c: s.shell(a, [x if x != "--command" else "-c" for x in p], c),
    "set": lambda s, n, a, p, c: s.set_positional(p),
    "printf": lambda s, n, a, p, c: s.printf_variable(p),
    "trap": lambda s, n, a, p, c: s.trap(p),
}
_TOUCH_VALUES = {"-s", "--size", "-r", "--reference", "-d", "--date", "-t"}
for _name in ("tee", *_REMOVERS):
    _HANDLERS[_name] = lambda s, n, a, p, c: s.operands_written(n, a, p, c)
for _name in _NODES:
    _HANDLERS[_name] = lambda s, n, a, p, c: s.node(n, a, p, c)
for _name in _AWKS:
    _HANDLERS[_name] = lambda s, n, a, p, c: s.awk(a, p)
for _name in (*_COPIERS, "mv"):
    _HANDLERS[_name] = lambda s, n, a, p, c: s.copy(n, a, p)
for _name in ("truncate", "touch"):
    _HANDLERS[_name] = lambda s, n, a, p, c: s.first_hit(_operands(a, p, _TOUCH_VALUES))
for _name in ("sort", "shuf"):
    _HANDLERS[_name] = lambda s, n, a, p, c: s.first_hit(_option_values(a, p, ("-o", "--output")))
for _name in _VI:
    _HANDLERS[_name] = lambda s, n, a, p, c: s.vi(n, a, p, c)
for _name in ("ed", "red"):
    _HANDLERS[_name] = lambda s, n, a, p, c: s.ed(a, p, c)
for _name in _EDITORS:
    _HANDLERS[_name] = lambda s, n, a, p, c: s.other_editor(a, p)
for _name in ("emacs", "emacsclient"):
    _HANDLERS[_name] = lambda s, n, a, p, c: s.emacs(a, p)
for _name in _SHELLS:
    _HANDLERS[_name] = lambda s, n, a, p, c: s.shell(a, p, c)


# -- helpers for option parsing ------------------------------------------------------


def _forced(plain: list[str]) -> bool:
    """``ln -f``: an existing destination is replaced (without it, ``ln`` refuses)."""
    return any(_short_flag(p, "f") or p == "--force" for p in plain)


def _skip_options(argv: list[str], takes_value: frozenset[str]) -> list[str]:
    i = 0
    while i < len(argv):
        arg = sp.plain(argv[i])
        if arg == "--":
            return argv[i + 1 :]
        if not arg.startswith("-") or arg == "-":
            break
        i += 2 if arg in takes_value else 1
    return argv[i:]


_SED_FLAGS = frozenset("gpiIeMm0123456789")
MAX_SED_NAMES = 8  # per script line: each candidate copies the rest of the line


def _sed_write_files(script: str) -> list[str]:
    """File names after sed ``w``/``W`` commands (``1wFILE``, ``w FILE``) and the ``w`` flag of
    ``s``: the name runs to the end of the line; the name cut at a ``;`` is also given."""
    out: list[str] = []
    for line in script.split("\n"):
        first = len(out)
        for at, c in enumerate(line):
            if c not in "wW":
                continue
            k = at
            while k > 0 and line[k - 1] in _SED_FLAGS and line[k - 1].isalpha():
                k -= 1
            before = line[k - 1] if k > 0 else ""
            if before.isalpha() or before in ("\\", "'", '"'):
                continue
            if k < at and before != "/":
                continue  # letters before a w that are not flags of an s command
            if len(out) >= first + MAX_SED_NAMES:
                break
            name = line[at + 1 :].strip()
            if name:
                out.append(name)
                if ";" in name:
                    out.append(name.partition(";")[0].strip())
    return out


_EX_WRITES = frozenset(
    {"w", "wq", "wqa", "wqall", "x", "xa", "xit", "xall", "exi", "exit", "wa", "wall", "up",
     "upd", "update", "sav", "saveas", "wn", "wnext", "wN", "write", "W"}
)  # fmt: skip


def _ex_write_targets(line: str) -> list[str]:
    """What an ex/ed command line writes: ``""`` for the buffer's own file, else a file name."""
    out: list[str] = []
    for piece in line.split("|"):
        word = piece.strip().lstrip(":").lstrip("%0123456789,.$' ").strip()
        head = ""
        for c in word:
            if not c.isalpha():
                break
            head += c
        if head not in _EX_WRITES:
            continue
        argument = word[len(head) :].lstrip("!").strip()
        if argument.startswith(">>"):
            argument = argument[2:].strip()
        if argument.startswith("!"):
            continue  # writes to a command, not a file
        out.append(argument)
    return out


def _printed(program: Program) -> str | None:
    """The output of ``$(echo ...)``/``$(printf ...)`` when it is spelled out, else ``None``."""
    if len(program.commands) != 1:
        return None
    return _printed_command(program.commands[0], None)


def _printed_command(command: Command, scan: _Scan | None) -> str | None:
    """What a literal ``echo``/``printf``/``cat <<EOF`` command prints, else ``None``."""
    if command.redirects and scan is None:
        return None
    words: list[str] = []
    for word in command.words:
        if any(p[0] != "t" for p in word) and scan is None:
            return None
        words.extend(scan.expand(word) if scan is not None else ["".join(p[1] for p in word)])
    words = [sp.plain(w) for w in words]
    if not words:
        return None
    name = os.path.basename(words[0])
    if name == "echo":
        args = words[1:]
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            args = args[1:]
        return " ".join(args) + "\n"
    if name == "printf" and len(words) > 1 and not words[1].startswith("-v"):
        words = words[1:] if words[1] == "--" else words
        return shellvalue.printf_format(words[1], words[2:]) if len(words) > 1 else None
    if name == "cat" and len(words) == 1 and scan is not None:
        return scan.stdin_text(command)
    return None


# -- interpreter code ----------------------------------------------------------------

_WRITE_CALLS = frozenset(
    {
        "writefile", "writefilesync", "appendfile", "appendfilesync", "createwritestream",
        "file_put_contents", "unlink", "unlinksync", "remove", "rmsync", "rm", "rmtree",
        "truncate", "truncatesync", "touch", "symlink", "symlinksync", "binwrite",
        "write_file", "spew", "outputfile", "delete", "rm_f", "rm_rf", "removedirs",
    }
)  # fmt: skip
# methods whose string argument is content, never a path (``f.write('MEMORY.md')``)
_CONTENT_CALLS = frozenset({"write", "write_text", "write_bytes", "syswrite", "writelines"})
_PATH_WRITE_METHODS = frozenset({"write_text", "write_bytes", "touch", "unlink", "symlink_to"})
# calls that change every path they are given (a rename changes its source too)
_MOVE_CALLS = frozenset(
    {"rename", "renamesync", "replace", "move", "mv", "renames", "utime", "utimes", "utimessync",
     "lutimes", "futimes"}
)  # fmt: skip
_COPY_CALLS = frozenset(
    {"copy", "copy2", "copyfile", "copyfilesync", "cp", "cpsync", "link", "linksync", "install",
     "copy_file", "cp_r", "copyfile_sync"}
)  # fmt: skip
_OPEN_CALLS = frozenset(
    {"open", "fopen", "opensync", "openfile", "new", "sysopen", "filehandle", "openasync"}
)
_PATH_CALLS = frozenset({"path", "purepath", "posixpath", "pathname", "file"})
_SHELL_CALLS = frozenset(
    {"system", "popen", "run", "call", "check_call", "check_output", "getoutput",
     "getstatusoutput", "exec", "execsync", "spawn", "spawnsync", "shell_exec", "passthru",
     "proc_open", "qx", "execfilesync", "capture2", "capture3", "popen3"}
)  # fmt: skip
_READ_CALLS = frozenset(
    {"read", "read_text", "read_bytes", "readfile", "readfilesync", "readlines", "readline",
     "file_get_contents", "createreadstream", "exists", "existssync", "isfile", "is_file",
     "stat", "statsync", "lstat", "getsize", "getmtime", "print", "puts", "say", "len",
     "load", "loads", "foreach", "size", "readlink", "access", "accesssync", "glob",
     "basename", "dirname", "join", "realpath", "abspath", "resolve", "count", "log",
     "readlinessync", "each_line", "lines", "println", "printf", "echo", "warn", "die",
     "fileinput", "input", "str", "repr", "split", "startswith", "endswith", "find", "index",
     "exist", "file_exists", "is_readable", "filesize", "md5", "sha1", "sha256", "hash"}
)  # fmt: skip
_WRITE_HINTS = (
    "write", "append", "truncate", "unlink", "remove", "rename", "replace", "copy", "move",
    "symlink", "'w", '"w', "'a", '"a', "'x", '"x', "'r+", '"r+', "'>", '">', "'+", '"+', "utime",
    "mode=", "mode:", "> ", ">>", "system", "popen", "spawn", "exec",
)  # fmt: skip
_WRITE_MODES = frozenset(
    {"w", "a", "x", "r+", "w+", "a+", "x+", "wb", "ab", "xb", "rb+", "r+b", "wb+", "w+b", "ab+",
     "a+b", "wt", "at", "xt", "w+t", "a+t", "r+t", "c", "c+", "cb", "c+b", "as", "as+", "wx", "ax"}
)  # fmt: skip
_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$@.:")


def _code_tokens(code: str) -> list[tuple[str, str]]:
    """Strings, names, and punctuation of a one-liner (any of the languages), in order."""
    tokens: list[tuple[str, str]] = []
    i = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c in "'\"`":
            j = i + 1
            out: list[str] = []
            while j < n and code[j] != c:
                if code[j] == "\\" and j + 1 < n:
                    out.append(code[j : j + 2] if code[j + 1] not in "'\"`\\" else code[j + 1])
                    j += 2
                else:
                    out.append(code[j])
                    j += 1
            tokens.append(("str" if c != "`" else "cmd", "".join(out)))
            i = j + 1
        elif c in _NAME_CHARACTERS:
            j = i
            while j < n and code[j] in _NAME_CHARACTERS:
                j += 1
            tokens.append(("name", code[i:j]))
            i = j
        elif c in " \t\r":
            i += 1
        elif c == ">" and code.startswith(">>", i):
            tokens.append(("op", ">>"))
            i += 2
        else:
            tokens.append(("op", ";" if c == "\n" else c))
            i += 1
    return tokens


def _call_name(name: str) -> str:
    """``fs.writeFileSync`` -> ``writefilesync``; ``File::open`` -> ``open``."""
    for separator in ("::", "->", "."):
        name = name.rpartition(separator)[2] if separator in name else name
    return name.lstrip("$@").lower()


def _is_perl_mode(text: str) -> bool:
    """A Perl ``open`` mode that writes (``>``, ``>>``, ``+<``, ``>:utf8``...)."""
    return text.strip().startswith((">", "+<", "+>", "|"))


def _is_mode(text: str) -> bool:
    """A file mode that writes, in any of the languages (``'a'``, ``'r+'``, ``'wb'``, ``'>>'``)."""
    stripped = text.strip()
    return _is_perl_mode(stripped) or stripped in _WRITE_MODES


class _Frame:
    """One open call while scanning code: its name, argument index and string arguments."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.argument = 0
        self.strings: list[tuple[int, str]] = []
        self.method = ""
        self.flags = ""


# how each language names its arguments: (names of argv, index of the first argument)
_ARGV: dict[str, tuple[tuple[str, ...], int]] = {
    "python": (("sys.argv", "argv"), 1),
    "js": (("process.argv",), 1),
    "perl": (("$ARGV", "@ARGV"), 0),
    "ruby": (("ARGV", "$*"), 0),
    "php": (("$argv", "$_SERVER"), 1),
    "awk": (("ARGV",), 1),
}
MAX_ARGUMENTS = 16  # an interpreter's arguments looked up by number
_WHOLE_ARGV = frozenset({"shift", "ARGF", "<>", "@ARGV", "$<"})


def _bind(
    tokens: list[tuple[str, str]], language: str, arguments: list[str], bindings: dict[str, str]
) -> tuple[list[tuple[str, str]], bool]:
    """Tokens with ``sys.argv[1]``, ``$ARGV[0]``, ``process.argv[1]`` (also inside strings) and
    bound variables replaced by their value as a string; and whether the code reads its
    arguments in a way not worked out (``sys.argv[1:]``, ``@ARGV``, ``shift``)."""
    names, first = _ARGV.get(language, ((), 0))
    arguments = arguments[:MAX_ARGUMENTS]
    out: list[tuple[str, str]] = []
    unresolved = False
    k = 0
    while k < len(tokens):
        kind, value = tokens[k]
        window = tokens[k + 1 : k + 4]
        if kind == "name" and value in names and arguments:
            if (
                len(window) == 3
                and window[0] == ("op", "[")
                and window[1][0] == "name"
                and window[1][1].isdigit()
                and window[2] == ("op", "]")
            ):
                index = int(window[1][1]) - first
                out.append(("str", arguments[index] if 0 <= index < len(arguments) else ""))
                k += 4
                continue
            unresolved = True
        elif kind == "name" and value in bindings:
            out.append(("str", bindings[value]))
            k += 1
            continue
        elif kind == "name" and (value in _WHOLE_ARGV or value.startswith(names)) and arguments:
            unresolved = True
        elif kind == "str" and arguments and any(n in value for n in names):
            for number in range(len(arguments) + first):
                argument = arguments[number - first] if number >= first else ""
                for name in names:
                    reference = f"{name}[{number}]"
                    for form in (
                        "#{" + reference + "}",
                        "${" + reference + "}",
                        "{" + reference + "}",
                        reference,
                    ):
                        value = value.replace(form, argument)
            unresolved |= any(n in value for n in names)
            out.append(("str", value))
            k += 1
            continue
        out.append((kind, value))
        k += 1
    return out, unresolved


class _CodeScan:
    """Does a one-liner write the index? Each string naming it is judged by its call."""

    def __init__(
        self,
        scan: _Scan,
        code: str,
        language: str,
        arguments: list[str] | None = None,
        bindings: dict[str, str] | None = None,
    ) -> None:
        self.scan = scan
        self.code = code
        self.language = language
        self.arguments = arguments or []
        self.bindings = bindings or {}

    def writes(self) -> str | None:  # noqa: PLR0912 - one branch per token kind
        tokens, unresolved = _bind(
            _code_tokens(self.code), self.language, self.arguments, self.bindings
        )
        hints = self.code.lower()
        may_write = any(h in hints for h in _WRITE_HINTS)
        stack: list[_Frame] = []
        judged: list[tuple[str, _Frame | None, int, str]] = []  # literal, call, arg index, before
        closed: list[_Frame] = []
        previous_kind, previous = "", ""
        statement_strings: list[str] = []
        for k, (kind, value) in enumerate(tokens):
            if kind == "op" and value == "(":
                stack.append(_Frame(previous if previous_kind == "name" else ""))
            elif kind == "op" and value == ")" and stack:
                frame = stack.pop()
                after = tokens[k + 1] if k + 1 < len(tokens) else ("", "")
                if after[0] == "name" and after[1].startswith("."):
                    frame.method = _call_name(after[1])
                closed.append(frame)
            elif kind == "op" and value == "," and stack:
                stack[-1].argument += 1
            elif kind == "op" and value == ";":
                statement_strings = []
            elif kind == "name" and stack:
                stack[-1].flags += value.upper() + " "
            elif kind == "cmd":
                found = self.scan.nested_run(value)
                if found:
                    return found
            elif kind == "str":
                frame = stack[-1] if stack else None
                if frame is not None:
                    frame.strings.append((frame.argument, value))
                    if _call_name(frame.name) in _SHELL_CALLS:
                        found = self.scan.nested_run(value)
                        if found:
                            return found
                if self.names_index(value):
                    bare = previous if previous_kind == "name" and frame is None else ""
                    context = previous if previous_kind == "op" else ""
                    if frame is None and statement_strings and _is_perl_mode(statement_strings[-1]):
                        context = ">"
                    judged.append((value, frame, frame.argument if frame else 0, context or bare))
                statement_strings.append(value)
            previous_kind, previous = kind, value
        if unresolved:  # the code reads its arguments: each one may be the file it writes
            judged.extend((a, None, 0, "") for a in self.arguments if self.names_index(a))
        for literal, frame, argument, before in judged:
            verdict = self.judge(literal, frame, argument, before)
            if verdict == "write" or (verdict == "unknown" and may_write):
                return literal.strip(" <>+")
        return None

    def names_index(self, literal: str) -> bool:
        path = literal.strip().lstrip("<>+|& ").strip()
        if not path or len(path) > 4096 or any(c in path for c in " \t\n;"):
            return False
        return self.scan.hit(path) or (
            "/" not in path and any(c in path for c in "*?[") and self.scan.hit(_mark_globs(path))
        )

    def judge(self, literal: str, frame: _Frame | None, argument: int, before: str) -> str:  # noqa: PLR0912 - one branch per kind of call
        if literal.strip().startswith((">", "+<", "+>")):
            return "write"
        if before in (">", ">>", "|"):
            return "write"
        if before == "<":
            return "read"
        if frame is not None and frame.name == "":
            frame = None  # grouping parentheses, not a call
        if frame is None:
            name = _call_name(before) if before else ""
            if name in _WRITE_CALLS or name in _MOVE_CALLS:
                return "write"
            if name in _READ_CALLS or name in _OPEN_CALLS:
                return "read"
            return "unknown"
        name = _call_name(frame.name)
        if name in _MOVE_CALLS:
            return "write"
        if name in _WRITE_CALLS:
            return "write" if argument == 0 else "read"
        if name in _CONTENT_CALLS:
            qualified = frame.name.lower().replace("::", ".")
            path_first = qualified.endswith(("file.write", "io.write", "file.binwrite"))
            return "write" if path_first and argument == 0 else "read"
        if name in _COPY_CALLS:
            destination = [s for a, s in frame.strings if a == 1]
            into = destination and (
                destination[0].endswith("/")
                or os.path.isdir(os.path.join(self.scan.cwd, destination[0]))
            )
            return "write" if argument >= 1 or (argument == 0 and into) else "read"
        if name in _SHELL_CALLS:
            return "read"  # already read as a shell command
        if name in _OPEN_CALLS or (name in _PATH_CALLS and frame.method == ""):
            others = [s for a, s in frame.strings if s != literal]
            flags = frame.flags
            if any(_is_mode(s) for s in others) or any(
                f in flags for f in ("O_WRONLY", "O_RDWR", "O_APPEND", "O_CREAT", "O_TRUNC")
            ):
                return "write"
            if name in _PATH_CALLS and frame.method == "":
                return "unknown"
            return "read"
        if name in _PATH_CALLS:
            method = frame.method
            if method in _PATH_WRITE_METHODS or method in _WRITE_CALLS or method in _MOVE_CALLS:
                return "write"
            return "read" if method in _READ_CALLS else "unknown"
        if name in _READ_CALLS:
            return "read"
        return "unknown"
