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

TYPE_SECTIONS = ("user", "feedback", "project", "reference")

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(\S+)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{1,}:?[ \t]*(\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*$")
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


def mask_code_spans(line: str) -> str:
    """Replace inline code spans with spaces of the same length (a code span is not a link)."""
    if "`" not in line:
        return line
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def has_code_span_path(line: str) -> bool:
    """True when an inline code span holds something that looks like a ``.md`` path."""
    return any(m.group(2).strip().lower().endswith(".md") for m in _CODE_SPAN.finditer(line))


def wikilink_target(inner: str) -> str:
    """``"slug|Alias"`` -> ``"slug"``; ``"slug#Heading"`` -> ``"slug"``; stripped."""
    return inner.split("|", 1)[0].split("#", 1)[0].strip()


def _skip_blanks(line: str, i: int) -> int:
    while i < len(line) and line[i] in " \t":
        i += 1
    return i


def _read_target(line: str, i: int) -> tuple[str | None, int]:
    """The destination itself: ``<...>`` or a run without spaces and with balanced parens."""
    if i < len(line) and line[i] == "<":
        close = line.find(">", i + 1)
        return (None, i) if close < 0 else (line[i + 1 : close], close + 1)
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


def _after_title(line: str, i: int) -> int | None:
    """The index after ``"title")`` (or ``'title')``, ``(title))``) at ``i``, else ``None``."""
    closer = ")" if line[i] == "(" else line[i]
    end = line.find(closer, i + 1)
    if end < 0:
        return None
    rest = _skip_blanks(line, end + 1)
    return rest + 1 if rest < len(line) and line[rest] == ")" else None


def _read_destination(line: str, start: int) -> tuple[str | None, int, str]:
    """Read a link destination at ``start`` (just after ``](``).

    Returns ``(target, end, reason)``: ``end`` is the index after the closing
    ``)``; ``target`` is ``None`` when the text is not a parsable link, with
    ``reason`` saying why (empty when it simply is not a link).
    """
    target, i = _read_target(line, _skip_blanks(line, start))
    if target is None:
        return None, i, "an angle-bracket target without its closing '>'"
    i = _skip_blanks(line, i)
    if i < len(line) and line[i] == ")":
        return target, i + 1, ""
    if i < len(line) and line[i] in "\"'(":
        end = _after_title(line, i)
        if end is not None:
            return target, end, ""
    close = line.find(")", i)
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
    while True:
        opener = text.find("](", pos)
        if opener < 0 or opener > last_close:
            break
        bracket = text.rfind("[", pos, opener)  # bounded by the previous link: linear overall
        target, end, reason = _read_destination(text, opener + 2)
        pos = max(end, opener + 2)
        if bracket < 0 or (bracket > 0 and text[bracket - 1] == "!"):
            continue  # not a link, or an image
        if target is not None:
            links.append(Link(INLINE, target))
        elif reason:
            links.append(Link(UNPARSABLE, text[opener + 2 : end - 1].strip(), reason))
    return links


def heading_section(text: str) -> str | None:
    """The note type a heading names (``## Feedback`` -> ``feedback``), else ``None``."""
    match = _HEADING.match(text)
    if not match:
        return None
    title = (match.group(2) or "").strip().lower()
    return title if title in TYPE_SECTIONS else None


def _table_rule_next(lines: list[str], index: int) -> bool:
    return (
        index + 1 < len(lines)
        and "|" in lines[index + 1]
        and bool(_TABLE_RULE.match(lines[index + 1]))
    )


def _kind_of_plain_line(line: str, lines: list[str], i: int) -> str:
    """The kind of a line outside code blocks and comments (not blank)."""
    if _HEADING.match(line):
        return HEADING
    if _THEMATIC_BREAK.match(line):
        return RULE
    stripped = line.strip()
    if stripped.startswith(">"):
        return QUOTE
    if "|" in stripped and (_TABLE_RULE.match(line) or _table_rule_next(lines, i)):
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
