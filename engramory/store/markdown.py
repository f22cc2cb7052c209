"""Just enough Markdown to read an index and find links: pure text, no I/O.

An index line is judged by what it holds: a heading, a blockquote, part of an
HTML comment or a code block, a table separator, a horizontal rule, or links.
Links are CommonMark inline links ``[title](target "optional title")`` (angle
brackets allowed, images excluded, code spans ignored) and Obsidian-style
``[[slug]]`` / ``[[slug|alias]]`` / ``[[slug#heading]]`` wikilinks. A link the
doctor cannot turn into a path (a raw space in the target, a reference-style
definition) is returned as *unparsable* with the reason, so it can be reported
instead of silently ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engramory.store.frontmatter import NOTE_TYPES

INLINE = "link"
WIKI = "wikilink"
UNPARSABLE = "unparsable"

BLANK = "blank"
HEADING = "heading"
QUOTE = "quote"
COMMENT = "comment"
RULE = "rule"
TABLE_RULE = "table-rule"
CODE = "code"
TEXT = "text"  # anything else: it may or may not hold links

# Every pattern here is linear on its worst input: a literal start or an
# anchored match, no adjacent unbounded quantifiers over the same characters.
# Code spans, headings and table rules are scanned by hand instead (their
# natural patterns backtrack cubically or quadratically on a hostile line).
_BACKTICKS = re.compile(r"`+")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(\S+)")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Link:
    """A link found on a line: ``form`` is ``link``, ``wikilink`` or ``unparsable``."""

    form: str
    target: str
    reason: str = ""


@dataclass(frozen=True)
class IndexLine:
    """One classified line of an index."""

    number: int
    text: str
    kind: str
    section: str | None = None
    links: tuple[Link, ...] = field(default=())


def _backtick_runs(text: str) -> list[tuple[int, int]]:
    """``(start, length)`` of every maximal run of backticks, in order."""
    return [(m.start(), m.end() - m.start()) for m in _BACKTICKS.finditer(text)]


def _longest_after(runs: list[tuple[int, int]], text: str) -> list[int]:
    """For each run, the longest later run on the same line (0 when none)."""
    longest = [0] * len(runs)
    best = 0
    for i in range(len(runs) - 1, 0, -1):
        start, length = runs[i]
        previous_end = runs[i - 1][0] + runs[i - 1][1]
        best = 0 if "\n" in text[previous_end:start] else max(best, length)
        longest[i - 1] = best
    return longest


def code_spans(text: str) -> list[tuple[int, int, int, int]]:
    """``(start, content start, content end, end)`` of every inline code span, in order.

    The spans are exactly those of the pattern ``(`+)(.+?)\\1`` (an opening run
    of backticks, at least one character on the same line, the same number of
    backticks), found in one pass: at a run of ``n`` backticks the longest
    opener that can close wins, where ``k`` backticks close inside the run
    itself when ``2k + 1 <= n``, or at the first later run on the line holding
    at least ``k``. The pattern itself backtracks cubically on a line of backticks.
    """
    runs = _backtick_runs(text)
    longest = _longest_after(runs, text)
    spans = []
    i = 0
    offset = 0  # backticks of run i already used by the previous span
    while i < len(runs):
        start, length = runs[i][0] + offset, runs[i][1] - offset
        opener = min(length, max((length - 1) // 2, longest[i]))
        if opener == 0:
            i, offset = i + 1, 0
            continue
        if 2 * opener + 1 <= length:
            spans.append((start, start + opener, start + opener + 1, start + 2 * opener + 1))
            offset += 2 * opener + 1
            if offset == runs[i][1]:
                i, offset = i + 1, 0
            continue
        j = i + 1
        while runs[j][1] < opener:
            j += 1
        close = runs[j][0]
        spans.append((start, start + opener, close, close + opener))
        i, offset = (j + 1, 0) if opener == runs[j][1] else (j, opener)
    return spans


def mask_code_spans(line: str) -> str:
    """Replace inline code spans with spaces of the same length (a code span is not a link)."""
    if "`" not in line:
        return line
    out = []
    done = 0
    for start, _content, _content_end, end in code_spans(line):
        out.append(line[done:start])
        out.append(" " * (end - start))
        done = end
    out.append(line[done:])
    return "".join(out)


def has_code_span_path(line: str) -> bool:
    """True when an inline code span holds something that looks like a ``.md`` path."""
    if "`" not in line:
        return False
    return any(
        line[begin:end].strip().lower().endswith(".md")
        for _start, begin, end, _end in code_spans(line)
    )


def wikilink_target(inner: str) -> str:
    """``"slug|Alias"`` -> ``"slug"``; ``"slug#Heading"`` -> ``"slug"``; stripped."""
    return inner.split("|", 1)[0].split("#", 1)[0].strip()


def _skip_blanks(line: str, i: int) -> int:
    while i < len(line) and line[i] in " \t":
        i += 1
    return i


class _Finder:
    """``line.find(ch, start)`` for one line, remembering each answer.

    The link scan asks again and again from later and later starts (one
    ``[a](<`` after another with no ``>`` left on the line): a remembered
    answer that still lies ahead is reused instead of scanning the rest of
    the line again, which keeps the scan linear.
    """

    __slots__ = ("line", "seen")

    def __init__(self, line: str) -> None:
        self.line = line
        self.seen: dict[str, tuple[int, int]] = {}  # ch -> (searched from, found at or -1)

    def find(self, ch: str, start: int) -> int:
        origin, found = self.seen.get(ch, (len(self.line) + 1, -1))
        if origin <= start and (found < 0 or found >= start):
            return found
        found = self.line.find(ch, start)
        self.seen[ch] = (start, found)
        return found


def _read_target(line: str, i: int, finder: _Finder) -> tuple[str | None, int]:
    """The destination itself: ``<...>`` or a run without spaces and with balanced parens."""
    if i < len(line) and line[i] == "<":
        close = finder.find(">", i + 1)
        return (None, i) if close < 0 else (line[i + 1 : close], close + 1)
    stop = len(line)
    for ch in " \t)":
        at = finder.find(ch, i)
        if 0 <= at < stop:
            stop = at
    opening = finder.find("(", i)
    if opening < 0 or opening >= stop:  # no parenthesis inside: it ends at the first of them
        return line[i:stop], stop
    depth = 0
    begin = i
    while i < len(line) and line[i] not in " \t":
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            if depth == 0:
                break
            depth -= 1
        i += 1
    return line[begin:i], i


def _after_title(line: str, i: int, finder: _Finder) -> int | None:
    """The index after ``"title")`` (or ``'title')``, ``(title))``) at ``i``, else ``None``."""
    closer = ")" if line[i] == "(" else line[i]
    end = finder.find(closer, i + 1)
    if end < 0:
        return None
    rest = _skip_blanks(line, end + 1)
    return rest + 1 if rest < len(line) and line[rest] == ")" else None


def _read_destination(line: str, start: int, finder: _Finder) -> tuple[str | None, int, str]:
    """Read a link destination at ``start`` (just after ``](``).

    Returns ``(target, end, reason)``: ``end`` is the index after the closing
    ``)``; ``target`` is ``None`` when the text is not a parsable link, with
    ``reason`` saying why (empty when it simply is not a link).
    """
    target, i = _read_target(line, _skip_blanks(line, start), finder)
    if target is None:
        return None, i, "an angle-bracket target without its closing '>'"
    i = _skip_blanks(line, i)
    if i < len(line) and line[i] == ")":
        return target, i + 1, ""
    if i < len(line) and line[i] in "\"'(":
        end = _after_title(line, i, finder)
        if end is not None:
            return target, end, ""
    close = finder.find(")", i)
    if close < 0:
        return None, i, ""
    return (
        None,
        close + 1,
        (
            f"the target {line[start:close].strip()!r} has a raw space: write it as "
            "<name with spaces.md> or with %20"
        ),
    )


def find_links(line: str) -> list[Link]:
    """Every link on one line, in order; code spans and images are skipped."""
    text = mask_code_spans(line)
    links: list[Link] = []
    definition = _REFERENCE_DEFINITION.match(text)
    if definition and not definition.group(1).startswith("["):
        return [
            Link(
                UNPARSABLE,
                definition.group(2),
                "a reference-style link definition is not followed: write [title](target) "
                "on the pointer line",
            )
        ]
    if "[[" in text:
        for match in _WIKILINK.finditer(text):
            links.append(Link(WIKI, wikilink_target(match.group(1))))
        text = _WIKILINK.sub(lambda m: " " * len(m.group(0)), text)
    pos = 0
    last_close = text.rfind(")")
    finder = _Finder(text)
    while True:
        opener = text.find("](", pos)
        if opener < 0 or opener > last_close:
            break
        bracket = text.rfind("[", pos, opener)  # bounded by the previous link: linear overall
        target, end, reason = _read_destination(text, opener + 2, finder)
        pos = max(end, opener + 2)
        if bracket < 0 or (bracket > 0 and text[bracket - 1] == "!"):
            continue  # not a link, or an image
        if target is not None:
            links.append(Link(INLINE, target))
        elif reason:
            links.append(Link(UNPARSABLE, text[opener + 2 : end - 1].strip(), reason))
    return links


def heading_title(line: str) -> str | None:
    """The title of an ATX heading line (``## Feedback ##`` -> ``Feedback``), else ``None``.

    Up to three spaces, one to six ``#`` and then a space, a tab or the end of
    the line; the title drops its surrounding blanks and trailing ``#``. A run
    of more than six ``#`` is a heading only when nothing but blanks and ``#``
    follow (an empty title). One pass, no backtracking.
    """
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3 or line[indent : indent + 1] != "#":
        return None
    rest = line[indent:].lstrip("#")
    if len(line) - indent - len(rest) > 6:
        return "" if not line[indent + 6 :].strip(" \t#") else None
    if not rest:
        return ""
    if rest[0] not in " \t":
        return None
    return rest.lstrip(" \t").rstrip(" \t#")


def heading_section(text: str) -> str | None:
    """The note type a heading names (``## Feedback`` -> ``feedback``), else ``None``."""
    title = heading_title(text)
    if title is None:
        return None
    title = title.strip().lower()
    return title if title in NOTE_TYPES else None


def _is_delimiter_cell(cell: str) -> bool:
    """``---``, ``:--``, ``--:`` or ``:-:`` with blanks around (a table rule's cell)."""
    cell = cell.strip(" \t")
    if cell[:1] == ":":
        cell = cell[1:]
    if cell[-1:] == ":":
        cell = cell[:-1]
    return bool(cell) and not cell.strip("-")


def is_table_rule(line: str) -> bool:
    """Whether ``line`` is a table's delimiter row (``| --- | :-: |``, ``---|---``).

    Optional outer pipes, one or more delimiter cells between pipes, blanks
    anywhere between them. Split on ``|`` in one pass: the equivalent pattern
    backtracks quadratically on a run of blanks.
    """
    row = line.strip(" \t")
    if row[:1] == "|":
        row = row[1:]
    if row[-1:] == "|":
        row = row[:-1]
    return all(_is_delimiter_cell(cell) for cell in row.split("|"))


def _table_rule_next(lines: list[str], index: int) -> bool:
    return index + 1 < len(lines) and "|" in lines[index + 1] and is_table_rule(lines[index + 1])


def _kind_of_plain_line(line: str, lines: list[str], i: int) -> str:
    """The kind of a line outside code blocks and comments (not blank)."""
    if heading_title(line) is not None:
        return HEADING
    if _THEMATIC_BREAK.match(line):
        return RULE
    stripped = line.strip()
    if stripped.startswith(">"):
        return QUOTE
    if "|" in stripped and (is_table_rule(line) or _table_rule_next(lines, i)):
        return TABLE_RULE
    return TEXT


def classify_index(text: str) -> list[IndexLine]:
    """Classify every line of an index (1-based numbers, ``\\n`` separated)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    result: list[IndexLine] = []
    section: str | None = None
    in_comment = False
    fence: str | None = None
    for i, raw in enumerate(lines):
        line = raw[:-1] if raw.endswith("\r") else raw
        stripped = line.strip()
        fence_match = _FENCE.match(line) if fence is None and not in_comment else None
        if fence is not None:
            kind = CODE
            if stripped.startswith(fence):
                fence = None
        elif in_comment:
            kind = COMMENT
            in_comment = "-->" not in line
        elif not stripped:
            kind = BLANK
        elif fence_match:
            kind = CODE
            fence = fence_match.group(1)[:3]
        elif stripped.startswith("<!--"):
            kind = COMMENT
            in_comment = "-->" not in stripped[4:]
        else:
            kind = _kind_of_plain_line(line, lines, i)
        if kind == HEADING:
            section = heading_section(line)
        links = tuple(find_links(line)) if kind == TEXT else ()
        result.append(IndexLine(i + 1, line, kind, section, links))
    return result


def strip_code(text: str) -> str:
    """Drop fenced code blocks and inline code spans (for scanning note bodies for links)."""
    if "`" not in text and "~~~" not in text:
        return text
    if "```" not in text and "~~~" not in text:
        return mask_code_spans(text)
    kept: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            kept.append("")
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)[:3]
            kept.append("")
            continue
        kept.append(mask_code_spans(line))
    return "\n".join(kept)


def body_wikilinks(body: str, first_line: int) -> list[tuple[str, int]]:
    """``(target, line)`` for every wikilink in a note body outside code."""
    if "[[" not in body:
        return []
    text = strip_code(body)
    found = []
    line, counted = first_line, 0
    for match in _WIKILINK.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        target = wikilink_target(match.group(1))
        if target:
            found.append((target, line))
    return found
