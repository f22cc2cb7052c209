"""Pointer text a person would write: a title made from a slug (acronyms kept), text cut
where a person would cut it (at a word, never inside a link or a code span, with ``…``),
and a pointer line kept within the index's line limit.

Shared by ``new``, ``fix``'s orphan step and ``compact``'s inline step. Pure text: no I/O.
"""

from __future__ import annotations

import unicodedata

from engramory.store.markdown import code_spans
from engramory.write import indexedit

ELLIPSIS = "…"
ACRONYMS = frozenset(
    {
        *("api", "ci", "cd", "cli", "ui", "ux", "url", "id", "sql", "http", "json", "yaml"),
        *("aws", "gcp", "pr", "mcp", "llm", "sdk", "db", "jwt", "ssh", "tls", "dns", "vm"),
        *("os", "gpu", "cpu"),
    }
)
LINK_WINDOW = 2048  # how far past the cut a link or code span that holds it is looked for
_TRAILING = " \t,;:—–-"


def title_from_slug(slug: str) -> str:
    """``ci-dashboard`` -> ``CI dashboard``; ``api_v2`` -> ``API v2``: dashes and
    underscores as spaces, the first letter upper-case, common acronyms (and any segment
    already all capitals) in capitals."""
    words = slug.replace("_", " ").replace("-", " ").split()
    if not words:
        return slug
    out = []
    for number, word in enumerate(words):
        if word.lower() in ACRONYMS or word.isupper():
            out.append(word.upper())
        elif number == 0:
            out.append(word[:1].upper() + word[1:])
        else:
            out.append(word)
    return " ".join(out)


def _link_spans(text: str, until: int) -> list[tuple[int, int]]:
    """``(start, end)`` of the inline links and wikilinks of ``text`` that start before
    ``until`` (one pass)."""
    spans = []
    at = 0
    while True:
        start = text.find("[", at, until)
        if start < 0:
            return spans
        if text.startswith("[[", start):
            close = text.find("]]", start + 2)
            if close >= 0:
                spans.append((start, close + 2))
                at = close + 2
                continue
        middle = text.find("](", start)
        if middle < 0:
            return spans
        end = text.find(")", middle + 2)
        if end < 0:
            return spans
        spans.append((text.rfind("[", start, middle), end + 1))
        at = end + 1


def _wide(ch: str) -> bool:
    """A character of a script written without spaces (CJK): a cut may fall beside it."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _balanced(text: str) -> str:
    """``text`` without an unbalanced ``**`` (the last one dropped)."""
    if text.count("**") % 2:
        cut = text.rfind("**")
        text = text[:cut] + text[cut + 2 :]
    return text


def word_cut(text: str, limit: int) -> int:
    """The longest head of ``text`` of at most ``limit`` characters that ends at a word
    (never inside a word, a number, a link or a code span) and holds text: its length
    (``0``: none). ``text`` itself when it fits."""
    if len(text) <= limit:
        return len(text)
    window = text[: limit + LINK_WINDOW]
    protected = _link_spans(window, limit) + [(s, e) for s, _c, _ce, e in code_spans(window)]
    inside = [False] * (limit + 1)
    for start, end in protected:
        for i in range(start + 1, min(end, limit + 1)):
            inside[i] = True
    for cut in range(limit, 0, -1):
        if inside[cut]:
            continue
        spaced = text[cut] in " \t" or text[cut - 1] in " \t"
        wide = _wide(text[cut - 1]) or _wide(text[cut])
        if (spaced or wide) and text[:cut].rstrip(_TRAILING):
            return cut
    return 0


def shorten(text: str, limit: int) -> str:
    """``text`` when it fits ``limit`` characters, else its longest head that ends at a
    word (see :func:`word_cut`) followed by ``…``; ``""`` when no such head fits."""
    if len(text) <= limit:
        return text
    cut = word_cut(text, limit - len(ELLIPSIS))
    return _balanced(text[:cut].rstrip(_TRAILING)) + ELLIPSIS if cut else ""


def fitted_pointer_line(title: str, target: str, hook: str, limit: int) -> str:
    """:func:`indexedit.pointer_line` within ``limit`` characters: the hook cut at a word
    (with ``…``), dropped when nothing of it fits, then the title cut the same way. A
    line that cannot fit (a target longer than the limit) keeps the title's first word."""
    line = indexedit.pointer_line(title, target, hook)
    if len(line) <= limit:
        return line
    bare = indexedit.pointer_line(title, target, "")
    room = limit - len(bare) - len(" — ")
    while hook and room > len(ELLIPSIS):
        line = indexedit.pointer_line(title, target, shorten(hook, room))
        if len(line) <= limit and line != bare:
            return line
        room -= max(len(line) - limit, 1)
    room = len(title) - (len(bare) - limit)
    while len(bare) > limit and room > len(ELLIPSIS):
        short = shorten(title, room)
        if not short:
            break
        bare = indexedit.pointer_line(short, target, "")
        room -= max(len(bare) - limit, 1)
    first_word = (title.split(maxsplit=1) or [title])[0]
    return bare if len(bare) <= limit else indexedit.pointer_line(first_word, target, "")
