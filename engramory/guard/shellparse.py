"""A small parser for the subset of bash that decides where a command writes.

It does not run anything. It reads a command string the way bash reads it --
words with single, double, ANSI-C (``$'..'``) and backslash quoting, quote
concatenation, backslash-newline continuation, comments only at the start of
a word, the control operators (``;`` ``&`` ``&&`` ``||`` ``|`` ``|&`` ``(``
``)`` newline), every redirection form, here-documents (found in the token
stream: the body starts on the line after the operator's line; a quoted
delimiter makes it literal), ``$(...)``, backticks and process substitution
(parsed as nested programs), ``$((...))`` and ``((...))`` (skipped) -- and
returns the simple commands in order.

A word is kept as a list of parts, so the caller can expand variables it knows
and mark the rest unknown:

* ``("t", text)`` -- literal text. Characters that are special when unquoted
  (glob ``* ? [`` and brace ``{ , }``, a leading ``~``) are replaced by the
  private-use markers below; quoted ones stay as they are.
* ``("v", name, op, word, quoted)`` -- ``$name``, ``${name}``, ``${name[i]}``
  (an array's element: any of its values), ``$@``/``$*`` (``name`` ``"@"``),
  ``${name:-word}`` / ``${name:=word}`` (``op`` ``""``, ``"-"``, ``"="``).
* ``("x", name, op, words, quoted)`` -- an operation on a parameter's value:
  ``op`` ``%`` ``%%`` ``#`` ``##`` (remove a suffix or prefix: ``words`` holds
  the pattern), ``/`` ``//`` ``/#`` ``/%`` (pattern and replacement), ``^``
  ``^^`` ``,`` ``,,`` (case), ``+`` (the word when set), ``:`` (a substring:
  offset and length as literal text) and ``!`` (indirection: the value of the
  variable named by the value).
* ``("a", words)`` -- the elements of an array assignment ``NAME=(a b c)``.
* ``("s", program, quoted)`` -- a command substitution; ``("p", program)`` a
  process substitution (``<(...)``, ``>(...)``: its value is a path).
* ``("u",)`` -- something whose value is unknown (``$1``, ``$((..))``, ...).

Every loop advances through the input, so parsing is linear in its length;
nesting deeper than :data:`MAX_DEPTH` sets ``Program.too_deep``.
"""

from __future__ import annotations

from engramory.guard.indexmatch import (
    BRACE_CLOSE,
    BRACE_COMMA,
    BRACE_OPEN,
    BRACKET,
    QUESTION,
    STAR,
    TILDE,
    plain,
)

_UNQUOTED_MARKS = {
    "*": STAR,
    "?": QUESTION,
    "[": BRACKET,
    "{": BRACE_OPEN,
    ",": BRACE_COMMA,
    "}": BRACE_CLOSE,
}
MAX_DEPTH = 12
MAX_FUNCTIONS = 16  # later definitions are not recorded (each body is found by a scan)
MAX_BODY = 16 * 1024
_METACHARACTERS = frozenset(" \t\n;&|()<>")
_SPECIAL_PARAMETERS = frozenset("@*#?$!-0123456789")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}

Part = tuple  # see the module docstring
Word = list  # list[Part]


class Redirect:
    """One redirection: operator (with its fd), target word, here-document body."""

    __slots__ = ("body", "body_parts", "literal_body", "op", "target")

    def __init__(self, op: str) -> None:
        self.op = op
        self.target: Word | None = None
        self.body: str | None = None
        self.literal_body = True
        self.body_parts: Word | None = None


class Command:
    """One simple command: its words, its redirections, and the command piped into it."""

    __slots__ = ("piped_from", "redirects", "words")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.piped_from: Command | None = None


class Program:
    """The simple commands of a command string, in order."""

    __slots__ = ("commands", "functions", "too_deep")

    def __init__(self, too_deep: bool = False) -> None:
        self.commands: list[Command] = []
        self.functions: dict[str, str] = {}  # name -> the source text of its body
        self.too_deep = too_deep


class _Parser:
    """Recursive descent over one string; ``stop`` is ``")"`` inside ``$(...)``."""

    def __init__(self, text: str, depth: int) -> None:
        self.s = text
        self.i = 0
        self.depth = depth
        self.program = Program(too_deep=depth > MAX_DEPTH)
        self.pending: list[tuple[Redirect, str, bool]] = []
        self.quoted_word = False

    # -- commands -----------------------------------------------------------------

    def parse(self, stop: str | None = None) -> Program:
        """Read commands until the end (or the ``)`` that closes a substitution)."""
        if self.program.too_deep:
            self.i = len(self.s)
            return self.program
        current = Command()
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and s.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#" and self.at_word_start():
                newline = s.find("\n", self.i)
                self.i = len(s) if newline < 0 else newline
            elif c == "\n":
                self.i += 1
                current = self.end(current)
                self.read_heredocs()
            elif c == ")" and stop == ")":
                self.i += 1
                self.end(current)
                return self.program
            elif c in ";&|()":
                current = self.operator(current)
            elif c in "<>" and not s.startswith("(", self.i + 1):
                self.redirect(current, "")
            else:
                self.word_or_redirect(current)
        self.end(current)
        self.read_heredocs()
        return self.program

    def at_word_start(self) -> bool:
        return self.i == 0 or self.s[self.i - 1] in _METACHARACTERS

    def end(self, current: Command) -> Command:
        if current.words or current.redirects:
            self.program.commands.append(current)
        return Command()

    def operator(self, current: Command) -> Command:
        s, i = self.s, self.i
        if s.startswith("((", i) and not current.words:
            self.i = _skip_balanced(s, i + 2, "(", ")", 2)
            return current
        if s.startswith("(", i) and self.array_assignment(current):
            return current
        if s.startswith("(", i) and self.function_definition(current):
            return Command()
        for op in (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")"):
            if s.startswith(op, i):
                self.i = i + len(op)
                if op == "&" and s.startswith(">", self.i):  # &> and &>>
                    self.i = i
                    self.redirect(current, "")
                    return current
                following = self.end(current)
                if op in ("|", "|&") and (current.words or current.redirects):
                    following.piped_from = current
                return following
        self.i += 1  # unreachable: every operator character is listed above
        return current

    def array_assignment(self, current: Command) -> bool:
        """``NAME=(a b c)``: the elements become an ``("a", words)`` part of the word."""
        last = current.words[-1] if current.words else None
        if not last or last[-1][0] != "t" or not self.s.startswith("=(", self.i - 1):
            return False
        name = last[0][1].partition("=")[0].rstrip("+").partition(BRACKET)[0]
        if len(last) != 1 or not name.isidentifier():
            return False
        s = self.s
        self.i += 1
        elements: list[Word] = []
        while self.i < len(s) and s[self.i] != ")":
            start = self.i
            if s[self.i] in " \t\n":
                self.i += 1
                continue
            word = self.word()
            if word:
                elements.append(word)
            if self.i == start:
                self.i += 1
        self.i += 1
        last.append(("a", elements))
        return True

    def function_definition(self, current: Command) -> bool:
        """``name() BODY``: record the body's text (its commands are still parsed in order)."""
        if len(current.words) != 1 or current.redirects:
            return False
        s = self.s
        j = self.i + 1
        while j < len(s) and s[j] in " \t":
            j += 1
        word = current.words[0]
        if not s.startswith(")", j) or any(p[0] != "t" for p in word):
            return False
        self.i = j + 1
        self.record_function(plain("".join(p[1] for p in word)))
        return True

    def record_function(self, name: str) -> None:
        if len(self.program.functions) >= MAX_FUNCTIONS:
            return
        s = self.s
        j = self.i
        while j < len(s) and s[j] in " \t\n":
            j += 1
        self.program.functions[name] = s[j : _body_end(s[: j + MAX_BODY], j)]

    def word_or_redirect(self, current: Command) -> None:
        start = self.i
        s = self.s
        j = start
        while j < len(s) and s[j].isdigit():
            j += 1
        if j > start and j < len(s) and s[j] in "<>" and not s.startswith("(", j + 1):
            self.i = j
            self.redirect(current, s[start:j])
            return
        word = self.word()
        if word or self.i > start:
            current.words.append(word)
        if len(current.words) == 2 and current.words[0] == [("t", "function")]:
            if self.s.startswith("()", self.i):
                self.i += 2
            self.record_function(plain("".join(p[1] for p in word if p[0] == "t")))
            current.words.clear()
        if self.i == start:  # a stray character no rule consumed: keep moving
            self.i += 1

    def redirect(self, current: Command, fd: str) -> None:
        s, i = self.s, self.i
        for op in ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"):
            if s.startswith(op, i):
                break
        self.i = i + len(op)
        while self.i < len(s) and s[self.i] in " \t":
            self.i += 1
        redirect = Redirect(fd + op)
        self.quoted_word = False
        redirect.target = self.word()
        current.redirects.append(redirect)
        if op in ("<<", "<<-"):
            delimiter = "".join(p[1] for p in redirect.target if p[0] == "t")
            redirect.literal_body = self.quoted_word
            self.pending.append((redirect, plain(delimiter), op == "<<-"))

    def read_heredocs(self) -> None:
        s = self.s
        for redirect, delimiter, strip_tabs in self.pending:
            lines: list[str] = []
            while self.i < len(s):
                end = s.find("\n", self.i)
                end = len(s) if end < 0 else end
                line = s[self.i : end]
                self.i = end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                lines.append(line)
            redirect.body = "\n".join(lines) + ("\n" if lines else "")
            if not redirect.literal_body:
                redirect.body_parts = _Parser(redirect.body, self.depth).double_quoted_text()
        self.pending = []

    # -- words ----------------------------------------------------------------------

    def word(self, terminators: str = "") -> Word:
        """Read one word; stop at an unquoted metacharacter (or one of ``terminators``)."""
        parts: Word = []
        s = self.s
        text: list[str] = []

        def flush() -> None:
            if text:
                parts.append(("t", "".join(text)))
                text.clear()

        while self.i < len(s):
            c = s[self.i]
            if c in terminators or (not terminators and c in _METACHARACTERS):
                if c in "<>" and s.startswith("(", self.i + 1) and not terminators:
                    flush()
                    self.i += 2
                    parts.append(("p", self.nested()))
                    continue
                break
            if c == "\\":
                if s.startswith("\n", self.i + 1):
                    self.i += 2
                    continue
                self.quoted_word = True
                text.append(s[self.i + 1 : self.i + 2])
                self.i += 2
            elif c == "'":
                self.quoted_word = True
                end = s.find("'", self.i + 1)
                end = len(s) if end < 0 else end
                text.append(s[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                self.quoted_word = True
                flush()
                self.i += 1
                parts.extend(self.double_quoted('"'))
            elif c == "$" and s.startswith(("'", '"'), self.i + 1):
                self.quoted_word = True
                flush()
                parts.extend(self.dollar_quoted())
            elif c in "$`":
                flush()
                parts.append(self.expansion(quoted=False))
            elif c == "~" and not parts and not text and self.at_word_start_tilde():
                text.append(TILDE)
                self.i += 1
            else:
                text.append(_UNQUOTED_MARKS.get(c, c))
                self.i += 1
        flush()
        return parts

    def at_word_start_tilde(self) -> bool:
        return self.i == 0 or self.s[self.i - 1] in _METACHARACTERS or self.s[self.i - 1] in "=:"

    def double_quoted(self, closing: str) -> Word:
        """The parts of a double-quoted string, up to ``closing`` (consumed)."""
        parts: Word = []
        text: list[str] = []
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c == closing:
                self.i += 1
                break
            if c == "\\" and self.i + 1 < len(s):
                following = s[self.i + 1]
                if following == "\n":
                    pass
                elif following in '$`"\\':
                    text.append(following)
                else:
                    text.append(c + following)
                self.i += 2
            elif c in "$`":
                if text:
                    parts.append(("t", "".join(text)))
                    text = []
                parts.append(self.expansion(quoted=True))
            else:
                text.append(c)
                self.i += 1
        if text:
            parts.append(("t", "".join(text)))
        return parts

    def double_quoted_text(self) -> Word:
        """Parts of a whole string read as if double-quoted (an unquoted here-document body)."""
        return self.double_quoted("")

    def dollar_quoted(self) -> Word:
        """``$'...'`` (ANSI-C escapes) or ``$"..."`` (a locale string: as ``"..."``)."""
        if self.s.startswith('"', self.i + 1):
            self.i += 2
            return self.double_quoted('"')
        return [("t", self.ansi_c())]

    def ansi_c(self) -> str:
        """Decode ``$'...'`` starting at the ``$``."""
        s = self.s
        self.i += 2
        out: list[str] = []
        while self.i < len(s):
            c = s[self.i]
            if c == "'":
                self.i += 1
                break
            if c != "\\" or self.i + 1 >= len(s):
                out.append(c)
                self.i += 1
                continue
            e = s[self.i + 1]
            self.i += 2
            if e in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[e])
            elif e == "x":
                out.append(self.number(16, 2, "0123456789abcdefABCDEF"))
            elif e in "uU":
                out.append(self.number(16, 4 if e == "u" else 8, "0123456789abcdefABCDEF"))
            elif e in "01234567":
                self.i -= 1
                out.append(self.number(8, 3, "01234567"))
            elif e == "c" and self.i < len(s):
                out.append(chr(ord(s[self.i]) & 0x1F))
                self.i += 1
            else:
                out.append("\\" + e)
        return "".join(out)

    def number(self, base: int, most: int, digits: str) -> str:
        start = self.i
        while self.i < len(self.s) and self.i - start < most and self.s[self.i] in digits:
            self.i += 1
        if self.i == start:
            return ""
        try:
            return chr(int(self.s[start : self.i], base))
        except (ValueError, OverflowError):
            return ""

    def expansion(self, quoted: bool) -> Part:
        """One ``$...`` or backtick expansion, starting at its first character."""
        s, i = self.s, self.i
        if s[i] == "`":
            return self.backticks(quoted)
        if s.startswith("$((", i):
            self.i = _skip_balanced(s, i + 3, "(", ")", 2)
            return ("u",)
        if s.startswith("$(", i):
            self.i = i + 2
            return ("s", self.nested(), quoted)
        if s.startswith("${", i):
            return self.braced(quoted)
        j = i + 1
        if j < len(s) and s[j] in _SPECIAL_PARAMETERS:
            self.i = j + 1
            if s[j] in "@*":
                return ("v", "@", "", None, quoted)
            return ("v", s[j], "", None, quoted) if s[j].isdigit() else ("u",)
        while j < len(s) and (s[j].isalnum() or s[j] == "_") and s[j].isascii():
            j += 1
        self.i = j
        if j == i + 1:
            return ("t", "$")
        return ("v", s[i + 1 : j], "", None, quoted)

    def braced(self, quoted: bool) -> Part:
        s = self.s
        j = self.i + 2
        indirect = s.startswith("!", j)
        j += indirect
        start = j
        while j < len(s) and (s[j].isalnum() or s[j] == "_") and s[j].isascii():
            j += 1
        if j == start and j < len(s) and s[j] in "@*":
            j += 1
        name = s[start:j]
        name = "@" if name == "*" else name
        if name and s.startswith("[", j):  # an array element: any of the array's values
            j = _skip_balanced(s, j + 1, "[", "]")
        self.i = j
        if not name:
            self.i = _skip_balanced(s, j, "{", "}")
            return ("u",)
        if s.startswith("}", j):
            self.i = j + 1
            return ("x", name, "!", [], quoted) if indirect else ("v", name, "", None, quoted)
        if indirect:
            self.i = _skip_balanced(s, j, "{", "}")
            return ("u",)
        op = s[j : j + 2]
        if op in (":-", ":="):
            self.i = j + 2
        elif s[j : j + 1] in ("-", "="):
            op = s[j]
            self.i = j + 1
        else:
            return self.operation(name, quoted)
        default = self.word(terminators="}")
        if s.startswith("}", self.i):
            self.i += 1
        return ("v", name, op[-1], default, quoted)

    def operation(self, name: str, quoted: bool) -> Part:
        """``${name%pat}``, ``${name/pat/rep}``, ``${name^^}``, ``${name:1:2}``, ``${name:+w}``."""
        s, j = self.s, self.i
        for op in (
            "%%",
            "##",
            "//",
            "/#",
            "/%",
            "^^",
            ",,",
            ":+",
            "%",
            "#",
            "/",
            "^",
            ",",
            "+",
            ":",
        ):
            if s.startswith(op, j):
                break
        else:
            self.i = _skip_balanced(s, j, "{", "}")
            return ("u",)
        self.i = j + len(op)
        if op == ":":
            end = _skip_balanced(s, self.i, "{", "}")
            text = s[self.i : end - 1]
            self.i = end
            return ("x", name, ":", [[("t", text)]], quoted)
        if op[0] == "/":
            pattern = self.word(terminators="/}")
            replacement: Word = []
            if s.startswith("/", self.i):
                self.i += 1
                replacement = self.word(terminators="}")
            words = [pattern, replacement]
        else:
            words = [self.word(terminators="}")]
        if s.startswith("}", self.i):
            self.i += 1
        return ("x", name, "+" if op == ":+" else op, words, quoted)

    def backticks(self, quoted: bool) -> Part:
        s = self.s
        j = self.i + 1
        inner: list[str] = []
        while j < len(s) and s[j] != "`":
            if s[j] == "\\" and j + 1 < len(s) and s[j + 1] in "`$\\":
                inner.append(s[j + 1])
                j += 2
            else:
                inner.append(s[j])
                j += 1
        self.i = j + 1
        return ("s", _Parser("".join(inner), self.depth + 1).parse(), quoted)

    def nested(self) -> Program:
        """A ``$( ... )`` / ``<( ... )`` body, starting after the parenthesis."""
        inner = _Parser(self.s, self.depth + 1)
        inner.i = self.i
        program = inner.parse(stop=")")
        self.i = inner.i
        return program


def _body_end(s: str, i: int) -> int:
    """The index just past a function body starting at ``i``: a ``{ ...; }`` or ``( ... )``
    group (quotes respected; braces counted where they stand as words), else the line."""
    if i >= len(s) or s[i] not in "{(":
        newline = s.find("\n", i)
        return len(s) if newline < 0 else newline
    opening = s[i]
    closing = "}" if opening == "{" else ")"
    depth = 0
    j = i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "'":
            end = s.find("'", j + 1)
            j = len(s) if end < 0 else end + 1
            continue
        if c == '"':
            j += 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            j += 1
            continue
        if c == opening and (opening == "(" or _stands_alone(s, j)):
            depth += 1
        elif c == closing and (closing == ")" or _stands_alone(s, j)):
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)


def _stands_alone(s: str, j: int) -> bool:
    """Whether the brace at ``j`` is a word of its own (a group, not ``${x}`` or ``a{b,c}``)."""
    before = s[j - 1] if j > 0 else " "
    after = s[j + 1] if j + 1 < len(s) else " "
    return before in " \t\n;&|(" and after in " \t\n;&|)"


def _skip_balanced(s: str, i: int, opening: str, closing: str, depth: int = 1) -> int:
    """The index just past the ``closing`` that closes ``depth`` already-open ``opening``."""
    while i < len(s):
        c = s[i]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def parse(text: str, depth: int = 0) -> Program:
    """The simple commands of ``text``, in the order bash would run them."""
    return _Parser(text, depth).parse()
