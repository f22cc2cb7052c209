"""Labelled values: a label that names a secret (``api key``, ``dbPassword``, ``HCP Token``)
followed by a value, in prose, frontmatter, YAML, JSON, env files, Markdown bold or a table.

The grammar, read by hand from each label word so every step is bounded:

* the label word ends in ``password``, ``passwd``, ``passphrase``, ``pass``, ``pwd``,
  ``pw``, ``secret``, ``token``, ``key``, ``credential(s)`` or ``auth`` (any case). The
  long words may have letters in front (``dbPassword``, ``accessToken``,
  ``SecretAccessKey``); the short ones need a break before them (``_``, ``-``, a blank,
  a lower-to-upper step) or a known qualifier (``api``, ``access``, ``private``, …).
  ``tokenizer``, ``secret_name``, ``client id`` and ``key_id`` do not end in one;
  ``public key`` is not a secret's label;
* then, after closing quotes, ``**`` and blanks, a separator: ``:``, ``=``, ``:=``,
  ``=>``, a table's ``|``, the word ``is``/``was``, or a short parenthesis then one of
  those (``password (old server): …``; a parenthesis holding ``ID:`` ends the label);
* then the value: one run of characters up to a blank, a quote, a backtick, ``|``,
  ``;`` or ``,`` (trailing ``.`` ``)`` ``*`` dropped).

A password's value needs 8+ characters with a digit or a symbol and 2.5 bits of entropy
each (or 12+ with 3 bits each); any other label's value 12+ characters with 3 bits each, or 32+
hexadecimal digits; never a placeholder, a pointer, a hash of a password, or code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engramory.secrets import values

# A label word and what may follow it up to a separator, found in one pass over the
# lowered text; only these candidates pay for the checks written in Python.
_LABEL_WORDS = ("pass(?:word|wd|phrase)?|pwd|pw", "secret", "token", "key", "credential", "auth")
_AFTER_WORD = r"s?[\"'`*_ \t]{0,8}(?:(?P<paren>\()|:=|=>|[:=|]|is |was )"
CANDIDATE = re.compile(f"(?P<word>{'|'.join(_LABEL_WORDS)}){_AFTER_WORD}")
# The same, one pattern per first letter: each opens with a literal, so its search skips
# ahead to it (CANDIDATE is tried at each of their first letters, a third of a text). No
# match holds another's start, so their matches in order are CANDIDATE's.
BY_WORD = tuple(re.compile(f"(?P<word>{words}){_AFTER_WORD}") for words in _LABEL_WORDS)
# After the separator: blanks, ``**``, one opening quote, then the value.
VALUE = re.compile(r"[ \t*_]{0,12}[\"'`]?(?P<value>[^ \t\r\n\"'`|;,<>]{0,512})")
LONG_WORDS = frozenset({"password", "passwd", "passphrase", "secret", "token", "credential"})
PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "pass", "pwd", "pw"})
QUALIFIERS = (
    "api", "access", "secret", "private", "account", "app", "master", "encryption",
    "signing", "client", "service", "session", "license", "auth", "admin", "root", "db",
)  # fmt: skip
PUBLIC = ("public", "publishable", "pub")
LABEL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")
MAX_LABEL = 48
MAX_PAREN = 48
MAX_VALUE = 512
VALUE_TRAILERS = ".)]*"
MIN_PASSWORD = 8
MIN_VALUE = 12
MIN_ENTROPY = 3.0
MIN_PASSWORD_ENTROPY = 2.5  # "pwd=pwd=" is 2.0: a repeated piece is not a password
MIN_HEX_KEY = 32
_CLOSERS = "\"'`*_ \t"
_ID_IN_PAREN = re.compile(r"(?i)\bid\s*[:=]")


def _label_start(text: str, start: int) -> int:
    """Where the label word that holds ``text[start]`` begins (bounded look back)."""
    at = start
    floor = max(0, start - MAX_LABEL)
    while at > floor and text[at - 1] in LABEL_CHARS:
        at -= 1
    return at


def _accepts_prefix(text: str, begin: int, start: int, word: str) -> bool:
    """Whether the letters before the keyword make a label of a secret (see the docstring)."""
    prefix = text[begin:start].lower()
    word_before = text[max(0, begin - 13) : begin].lower().rstrip(" \t_-")
    if "public" in prefix or prefix.endswith(PUBLIC) or word_before.endswith(PUBLIC):
        return False
    if not prefix or prefix[-1] in "_-." or word in LONG_WORDS:
        return True
    if text[start - 1].islower() and text[start].isupper():
        return True  # camelCase: apiKey, dbPwd
    return prefix.endswith(QUALIFIERS)


def _separator(text: str, at: int) -> int | None:
    """Where the value may start after a label ending at ``at``; ``None`` without a separator."""
    limit = min(len(text), at + 8)
    while at < limit and text[at] in _CLOSERS:
        at += 1
    if text.startswith("(", at):
        close = text.find(")", at, at + MAX_PAREN)
        if close == -1 or "\n" in text[at:close] or _ID_IN_PAREN.search(text, at, close):
            return None
        return _separator(text, close + 1)
    for mark in (":=", "=>", ":", "=", "|"):
        if text.startswith(mark, at):
            return at + len(mark)
    for word in ("is ", "was "):
        if text[at : at + len(word)].lower() == word:
            return at + len(word)
    return None


def _value_span(text: str, at: int) -> tuple[int, int] | None:
    """``(start, end)`` of the value that begins after blanks, ``**`` and one quote."""
    match = VALUE.match(text, at)
    start, end = match.span("value")  # type: ignore[union-attr] - the pattern always matches
    while end > start and text[end - 1] in VALUE_TRAILERS:
        end -= 1
    return (start, end) if end > start else None


def password_value(value: str) -> bool:
    """Whether a value after a password's label is a password."""
    if len(value) < MIN_PASSWORD or not any(ch.isalpha() for ch in value):
        return False  # a date, a time, a number: not a password (the cheap tests first)
    if values.is_hash_or_id(value) or values.is_pointer(value):
        return False
    if values.entropy(value) < MIN_PASSWORD_ENTROPY:
        return False  # a repeated piece, a version: not a password
    if any(not ch.isalnum() for ch in value) or any(ch.isdigit() for ch in value):
        return not value.isdigit() or len(value) >= MIN_VALUE
    return len(value) >= MIN_VALUE and values.entropy(value) >= MIN_ENTROPY


_CODE_MARKS = frozenset("\\[]{}")  # a pattern or code, not a key (Django's keys hold ( and ))


def key_value(value: str) -> bool:
    """Whether a value after a key's, token's or secret's label is one."""
    if value.startswith("(") or any(ch in _CODE_MARKS for ch in value):
        return False
    if values.is_hex(value):
        return len(value) >= MIN_HEX_KEY
    if len(value) < MIN_VALUE or values.is_hash_or_id(value) or values.is_pointer(value):
        return False
    return values.entropy(value) >= MIN_ENTROPY


_SEARCHES = tuple(pattern.search for pattern in BY_WORD)


def candidates(low: str) -> list[re.Match[str]]:
    """``CANDIDATE.finditer(low)``'s matches, found by :data:`BY_WORD` (one search each
    after the last: cheaper than an iterator in the many texts with none)."""
    found: list[re.Match[str]] = []
    for search in _SEARCHES:
        match = search(low)
        while match is not None:
            found.append(match)
            match = search(low, match.end())
    if len(found) > 1:
        found.sort(key=lambda match: match.start())
    return found


def find(text: str, low: str, seen: Mapping[str, int] | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of every labelled secret value in ``text`` (``low``: its lower case).
    ``seen`` (the scan's keywords, or ``None`` for its exhaustive run, which reads with one
    pattern of every label word) only chooses how."""
    found: list[tuple[int, int]] = []
    done = 0
    for match in CANDIDATE.finditer(low) if seen is None else candidates(low):
        start = match.start()
        if start < done:
            continue
        value_at = _separator(text, match.end("word")) if match.group("paren") else match.end()
        if match.group("word") == "pass" and low[match.end() - 1] not in ":=":
            continue  # "first pass | …", "pass is": only DB_PASS= and pass: name a password
        span = None if value_at is None else _value_span(text, value_at)
        if span is None:
            continue
        done = span[1]  # a value is read once: a label word inside it is no label
        if span[1] - span[0] >= MIN_PASSWORD and _judged(text, start, match.group("word"), span):
            found.append(span)
    return found


def _judged(text: str, start: int, word: str, span: tuple[int, int]) -> bool:
    """Whether the label at ``start`` names a secret and the value at ``span`` is one."""
    value = text[span[0] : span[1]]
    if not (password_value(value) if word in PASSWORD_WORDS else key_value(value)):
        return False  # first: it rejects most candidates ("First pass: 2026-04-19"), cheaply
    if not _accepts_prefix(text, _label_start(text, start), start, word):
        return False
    return not values.quiet(value) and value.lower() not in ("bearer", "basic")
