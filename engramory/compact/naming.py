"""The slug, title and description of a note made from an index block ("Details settled")."""

from __future__ import annotations

import hashlib
import unicodedata

from engramory.store.markdown import heading_title
from engramory.write import pointertext

SLUG_LIMIT = 60
DESCRIPTION_LIMIT = 150
SOURCE_LINES = 200  # the block lines a description is looked for in
SOURCE_CHARS = 2000  # of each of those lines, and of the paragraph they make
_LIST_MARKERS = ("- ", "* ", "+ ", "> ", "| ")


def fold_slug(text: str) -> str:
    """``text`` folded to ASCII (NFKD, marks dropped), lower-case, other runs -> ``-``,
    at most 60 characters, no ``-`` at either end."""
    folded = unicodedata.normalize("NFKD", text)
    out: list[str] = []
    for ch in folded:
        if unicodedata.combining(ch):
            continue
        low = ch.lower()
        if low.isascii() and low.isalnum():
            out.append(low)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out)[:SLUG_LIMIT].strip("-")


def slug_for(source: str, block: str) -> str:
    """The slug of a block named ``source`` (heading or first words); ``note-<sha8>`` when
    fewer than 3 letters or digits survive the fold."""
    slug = fold_slug(source)
    if sum(ch.isalnum() for ch in slug) < 3:
        return "note-" + hashlib.sha256(block.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return slug


def unique_slug(slug: str, taken: set[str]) -> str:
    """``slug``, or ``slug-2``, ``slug-3``... the first not in ``taken`` (casefolded); added."""
    candidate = slug
    number = 1
    while candidate.casefold() in taken:
        number += 1
        suffix = f"-{number}"
        candidate = slug[: SLUG_LIMIT - len(suffix)].rstrip("-") + suffix
    taken.add(candidate.casefold())
    return candidate


def _list_item(text: str) -> str | None:
    """The text of a list item (``-``, ``*``, ``+``, ``1.``, ``1)`` or a table row), else
    ``None``."""
    if text[:2] in ("- ", "* ", "+ ") or text.startswith("|"):
        return plain_line(text)
    digits = len(text) - len(text.lstrip("0123456789"))
    if 0 < digits <= 9 and text[digits : digits + 2] in (". ", ") "):
        return plain_line(text[digits + 2 :])
    return None


def plain_line(line: str) -> str:
    """A block line without its list, quote or table markers, blanks around dropped."""
    text = line.strip()
    changed = True
    while changed:
        changed = False
        for marker in _LIST_MARKERS:
            if text.startswith(marker):
                text = text[len(marker) :].strip()
                changed = True
    digits = len(text) - len(text.lstrip("0123456789"))
    if 0 < digits <= 9 and text[digits : digits + 2] in (". ", ") "):
        text = text[digits + 2 :].strip()
    return text.strip("|").strip()


def first_words(lines: list[str], count: int = 6) -> str:
    """The first ``count`` words of the first line with text (no closing ``.``)."""
    for line in lines:
        text = plain_line(line)
        if text:
            return " ".join(text.split()[:count]).rstrip(".,;:")
    return ""


def _is_sentence_end(text: str, at: int, in_list: bool) -> bool | None:
    """Whether the ``.``, ``!`` or ``?`` at ``at`` ends a sentence: not closing an
    abbreviation (``e.g.``, ``J.``) nor the number of an inline list (``Steps: 1. build
    2. push``: after ``:``, ``;`` or ``,``, before a lower-case word, or once such a list
    started, ``in_list``). ``None``: no, and it is such a number."""
    if text[at] != ".":
        return True
    before = text[:at].rstrip()
    word = before.rsplit(" ", 1)[-1]
    if not word or "." in word or (len(word) == 1 and word.isalpha()):
        return False
    if not word.isdigit():
        return True
    lead = before[: len(before) - len(word)].rstrip()
    following = text[at + 1 :].lstrip()[:1]
    if in_list or not lead or lead[-1] in ":;," or following.islower():
        return None
    return True


def _first_sentence(text: str) -> str:
    """The text up to its first sentence end (the whole text when it has none)."""
    in_list = False
    for at, ch in enumerate(text):
        if ch in "。！？":
            return text[: at + 1].strip()
        if ch in ".!?" and text[at + 1 : at + 2] == " ":
            near = text[max(0, at - 40) : at + 40]  # a bounded look: linear on long text
            end = _is_sentence_end(near, min(at, 40), in_list)
            if end:
                return text[: at + 1].strip()
            in_list = in_list or end is None
    return text


def _paragraph(lines: list[str]) -> str:
    """The first paragraph of a block as one line: its first heading alone when it opens
    with one; list items (and table rows) joined with ``; ``, without a closing ``.``."""
    pieces: list[tuple[bool, str]] = []  # (is a list item, text)
    for line in lines[:SOURCE_LINES]:
        text = line.strip()[:SOURCE_CHARS]
        if text.startswith(("```", "~~~")):
            continue  # a fence line: the code itself may still say what the block is
        title = heading_title(text)
        if title is not None:
            if pieces:
                break
            return title.strip()
        if not text:
            if pieces and not pieces[-1][0] and not pieces[-1][1].endswith(":"):
                break
            continue
        item = _list_item(text)
        if item is not None:
            if item and set(item) - set("-:| "):
                pieces.append((True, item.rstrip(".").strip()))
        elif pieces and not pieces[-1][0]:
            pieces[-1] = (False, pieces[-1][1] + " " + plain_line(text))
        elif pieces:
            break  # prose after the list: the paragraph was the list
        else:
            pieces.append((False, plain_line(text)))
    joined = ""
    for _is_item, piece in pieces:
        joiner = " " if joined.endswith(":") else "; "
        joined = piece if not joined else joined + joiner + piece
    return joined


def _balance(text: str) -> str:
    """``text`` without an unbalanced ``**`` or backtick (the last one dropped)."""
    if text.count("**") % 2:
        cut = text.rfind("**")
        text = text[:cut] + text[cut + 2 :]
    if text.count("`") % 2:
        cut = text.rfind("`")
        text = text[:cut] + text[cut + 1 :]
    return " ".join(text.split())


def description_for(lines: list[str], fallback: str) -> str:
    """What a person would write as the block's description: its first sentence (or its
    opening heading; list items joined with ``; ``), at most 150 characters, cut at a word
    with ``…`` (``fallback`` when the block holds no text)."""
    sentence = _balance(_first_sentence(_paragraph(lines)[:SOURCE_CHARS]))
    return pointertext.shorten(sentence, DESCRIPTION_LIMIT) or fallback
