"""The slug, title and description of a note made from an index block ("Details settled")."""

from __future__ import annotations

import hashlib
import unicodedata

SLUG_LIMIT = 60
DESCRIPTION_LIMIT = 150
_SENTENCE_ENDS = (". ", "! ", "? ", "。", "！", "？")
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
    return text.strip("|").strip()


def first_words(lines: list[str], count: int = 6) -> str:
    """The first ``count`` words of the first line with text."""
    for line in lines:
        text = plain_line(line)
        if text:
            return " ".join(text.split()[:count])
    return ""


def _first_sentence(text: str) -> str:
    ends = [i + 1 for i in (text.find(end) for end in _SENTENCE_ENDS) if i >= 0]
    return text[: min(ends)].strip() if ends else text


def _balance(text: str) -> str:
    """``text`` without an unbalanced ``**`` or backtick (the last one dropped)."""
    if text.count("**") % 2:
        cut = text.rfind("**")
        text = text[:cut] + text[cut + 2 :]
    if text.count("`") % 2:
        cut = text.rfind("`")
        text = text[:cut] + text[cut + 1 :]
    return " ".join(text.split())


def cut_words(text: str, limit: int) -> tuple[str, str]:
    """``(kept, rest)``: ``text`` cut at the last space before ``limit`` characters, or
    hard-cut at ``limit`` where it has no space there."""
    if len(text) <= limit:
        return text, ""
    space = text.rfind(" ", 0, limit + 1)
    cut = space if space > 0 else limit
    return text[:cut].rstrip(), text[cut:].strip()


def description_for(lines: list[str], fallback: str) -> str:
    """The block's first sentence, at most 150 characters, markup balanced (``fallback``
    when the block holds no text)."""
    texts = [plain_line(line) for line in lines]
    joined = " ".join(t for t in texts if t and set(t) - set("-:| "))
    sentence = _first_sentence(joined) or fallback
    kept, _rest = cut_words(sentence, DESCRIPTION_LIMIT)
    return _balance(kept) or fallback
