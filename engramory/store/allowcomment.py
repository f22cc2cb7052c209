"""The inline allow comment, parsed: ``<!-- engramory: allow RULE[,RULE...] -->``.

Like a linter's inline ignore: the comment silences the rules it names on its
own line and, alone on its line, on the next line too. The doctor applies it to
its findings (:mod:`engramory.doctor.allow`); the guard to a secret it would
refuse. Unknown rule ids are kept (the caller ignores them). Parsing is by
string search, line by line: linear, and it imports nothing.
"""

from __future__ import annotations

MARKER = "engramory:"
OPEN, CLOSE = "<!--", "-->"

# Rule ids silenced on each line (1-based) of one file.
LineAllows = dict[int, frozenset[str]]


def _comment_rules(inner: str) -> frozenset[str] | None:
    """The rule ids of one comment's inside, or ``None`` when it is not an allow comment."""
    inner = inner.strip()
    if not inner.startswith(MARKER):
        return None
    rest = inner[len(MARKER) :].lstrip()
    if not rest.startswith("allow") or rest[5:6] not in (" ", "\t"):
        return None
    return frozenset(part.strip() for part in rest[5:].split(",") if part.strip())


def _line_rules(line: str) -> tuple[frozenset[str], bool]:
    """The ids the allow comments on ``line`` name, and whether one stands alone on it."""
    found: set[str] = set()
    alone = False
    start = line.find(OPEN)
    while start >= 0:
        end = line.find(CLOSE, start + len(OPEN))
        if end < 0:
            break
        rules = _comment_rules(line[start + len(OPEN) : end])
        if rules is not None:
            found |= rules
            alone = alone or line.strip() == line[start : end + len(CLOSE)]
        start = line.find(OPEN, end + len(CLOSE))
    return frozenset(found), alone


def line_allows(text: str) -> LineAllows:
    """Rule ids silenced per line of ``text`` (empty when it holds no allow comment)."""
    allows: LineAllows = {}
    number, counted = 1, 0
    pos = text.find(MARKER)
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        rules, alone = _line_rules(text[start:end])
        number += text.count("\n", counted, start)
        counted = start
        if rules:
            for line in (number, number + 1) if alone else (number,):
                allows[line] = allows.get(line, frozenset()) | rules
        pos = text.find(MARKER, end)
    return allows
