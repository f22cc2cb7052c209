"""Text and JSON Lines output for ``engramory trace``.

Everything printed from a transcript is masked first (every value the
``secret-value`` detector finds, and every other occurrence in the session of a
value it found anywhere in that session, is cut to its first four characters:
:mod:`engramory.trace.mask`), so a key in old tool output is not echoed into a
new session. Text output escapes
control characters (:func:`engramory.util.textfmt.printable`) and marks matches in
colour only when asked to (a terminal, no ``NO_COLOR``), else with ``**``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from engramory.trace.mask import masked
from engramory.trace.model import TOOL, Message
from engramory.trace.search import Query, Summary, moment
from engramory.util.textfmt import human_size, plural, printable

CONTEXT_LINES = 3
LINE_WIDTH = 240
LEAD = 80
EXCERPT_LINES = 5
EXCERPT_CHARS = 400
COLOUR_ON, COLOUR_OFF = "\x1b[1;31m", "\x1b[0m"
PLAIN_ON, PLAIN_OFF = "**", "**"


def when(timestamp: str | None, seconds: bool = False) -> str:
    """``YYYY-MM-DD HH:MM`` (UTC) of a record's timestamp, or ``(no time)``."""
    found = moment(timestamp)
    if found is None:
        return "(no time)"
    return found.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def json_line(message: Message, known: Collection[str] = ()) -> str:
    """One hit as a JSON object on one line (text masked; ``known``: the session's secrets)."""
    fields = message._asdict()
    fields["text"] = masked(message.text, known)
    return json.dumps(fields, ensure_ascii=False)


def _marked(line: str, spans: Sequence[tuple[int, int]], colour: bool) -> str:
    """``line`` made printable, each span marked."""
    on, off = (COLOUR_ON, COLOUR_OFF) if colour else (PLAIN_ON, PLAIN_OFF)
    out, done = [], 0
    for start, end in spans:
        if start < done:
            continue
        out += [printable(line[done:start]), on, printable(line[start:end]), off]
        done = end
    out.append(printable(line[done:]))
    return "".join(out)


def _window(line: str, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """At most :data:`LINE_WIDTH` characters of ``line`` around its first match."""
    if len(line) <= LINE_WIDTH:
        return line, spans
    start = max(0, (spans[0][0] if spans else 0) - LEAD)
    end = start + LINE_WIDTH
    piece = ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")
    shift = start - (1 if start else 0)
    kept = [(a - shift, b - shift) for a, b in spans if a >= start and b <= end]
    return piece, kept


def context(text: str, query: Query, colour: bool, known: Collection[str] = ()) -> list[str]:
    """Up to three lines of ``text`` around its first match, the matches marked."""
    lines = masked(text, known).split("\n")
    spans_of = [query.spans(line) for line in lines]
    at = next((i for i, spans in enumerate(spans_of) if spans), 0)
    first = max(0, at - (CONTEXT_LINES // 2))
    shown = []
    for i in range(first, min(len(lines), first + CONTEXT_LINES)):
        piece, spans = _window(lines[i], spans_of[i])
        shown.append("  " + _marked(piece, spans, colour))
    return shown


def header(message: Message, seconds: bool = False) -> str:
    """``SESSION  YYYY-MM-DD HH:MM  host  role``."""
    return printable(
        f"{message.session}  {when(message.timestamp, seconds)}  {message.host}  {message.role}"
    )


def hit_block(
    message: Message, query: Query, colour: bool, known: Collection[str] = ()
) -> list[str]:
    """One hit: its header and its context (``known``: the session's secrets, masked)."""
    return [header(message), *context(message.text, query, colour, known)]


def best_session(hits: Sequence[Message]) -> str:
    """The session with the most hits (the latest hit breaks a tie)."""
    counts: dict[str, int] = {}
    latest: dict[str, int] = {}
    for index, hit in enumerate(hits):
        counts[hit.session] = counts.get(hit.session, 0) + 1
        latest[hit.session] = index
    return max(counts, key=lambda session: (counts[session], latest[session]))


def summary(hits: Sequence[Message], shown: int) -> str:
    """The last line: hit and session counts, and the command that opens the best session."""
    sessions = len({hit.session for hit in hits})
    text = f"{plural(len(hits), 'hit')} in {plural(sessions, 'session')}"
    if shown < len(hits):
        text += f" (the {shown} most recent shown; --limit N shows more)"
    return printable(f"{text}; open the best: engramory trace --show {best_session(hits)}")


def excerpt(text: str) -> str:
    """The start of a tool's output: a few lines, a few hundred characters."""
    lines = text.split("\n")
    cut = "\n".join(lines[:EXCERPT_LINES])
    if len(cut) > EXCERPT_CHARS:
        cut = cut[:EXCERPT_CHARS]
    return cut + ("\n…" if cut != text else "")


def replay_block(message: Message, known: Collection[str] = ()) -> list[str]:
    """One message of ``--show``: its time and role, then its text indented (masked)."""
    text = excerpt(message.text) if message.role == TOOL else message.text
    lines = [printable(f"{when(message.timestamp, seconds=True)}  {message.role}")]
    lines += ["  " + printable(line) for line in masked(text, known).split("\n")]
    return lines


def summary_json(found: Summary) -> str:
    """One ``--list`` session as a JSON object on one line."""
    fields = found._asdict()
    fields["opening"] = masked(found.opening)
    return json.dumps(fields, ensure_ascii=False)


def summary_line(found: Summary) -> str:
    """One ``--list`` session: id, host, first and last time, messages, size, first line."""
    opening = masked(found.opening)
    if len(opening) > 100:
        opening = opening[:100] + "…"
    return printable(
        f"{found.session}  {found.host}  {when(found.first)} .. {when(found.last)}  "
        f"{plural(found.messages, 'message')}  {human_size(found.size)}  {opening}"
    )
