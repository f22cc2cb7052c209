"""The search: the query, the raw-bytes prefilter, the filters, and the sessions in scope.

Most of a transcript is tool output nobody searches, so a line is parsed only
when its raw bytes can hold a hit. For each query word the *needle* is the
longest run of the word's plain ASCII characters (``"`` and ``\\`` in their
JSON-escaped forms ``\\"`` and ``\\\\``; a control or non-ASCII character, and
``<``, ``>``, ``&``, which some writers escape, end a run), lower-cased unless
the search is case-sensitive, and searched in the block's bytes lower-cased the
same way (``bytes.lower`` touches ASCII only). Every candidate is then
confirmed on the decoded text with Unicode case folding (:func:`fold`).

The prefilter never drops a hit: a reader's text is made of whole JSON strings
joined by newlines, so a plain run of it is in the raw line, provided the
writer escapes only what JSON requires (``"``, ``\\``, control characters, and
optionally non-ASCII ones), as Claude Code, Codex and every common JSON writer
do. Under case folding, the 11 characters whose folding is plain ASCII (``ß``
-> ``ss``, the Kelvin sign -> ``k``, ``ſ`` -> ``s``, ``ﬁ`` -> ``fi``) make ASCII
runs of the folded text that are not in the raw line: the prefilter then
searches the longest piece of the needle none of their foldings can make
(``relwing`` of ``kestrelwing``), or, when that piece is short, the needle and
the bytes of those characters (UTF-8 and ``\\uXXXX`` escape) whose folding
could make part of it: ``strasse`` finds ``straße``. The 8 characters
whose folding mixes ASCII with other characters (``İ`` -> ``i̇``) are matched as
themselves. A property test holds the prefiltered search to a
parse-every-line oracle.

Dedupe (Claude records by ``uuid`` and block) is over hits: the first copy of
a record that matches counts, later copies do not.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Callable, NamedTuple

from engramory.trace import claude, codex, parallel, scope
from engramory.trace.lines import ReadStats, Selector, line_numbers, mostly_holes, read_lines
from engramory.trace.mask import masked, values_in
from engramory.trace.model import AGENT, TOOL, USER, Message, SessionFile
from engramory.util.errors import UsageError

HEAD_READ = 1 << 16
HEAD_LIMIT = 4 << 20  # a head without a working directory in its first 4 MiB has none
FOLDER_PROBES = 8  # the files of a folder tried for its recorded directory
READERS: dict[str, ModuleType] = {claude.HOST: claude, codex.HOST: codex}
ROOTS: dict[str, Callable[[Mapping[str, str]], list[str]]] = {
    claude.HOST: scope.claude_roots,
    codex.HOST: scope.codex_roots,
}
# Without --tools a Codex line can only say something when it is an event record.
_EVENT_MARK = {codex.HOST: b'"event_msg"'}
_SELF_MARK = b"engramory"
_CWD_MARK = b'"cwd"'
# The characters whose case folding is plain ASCII (``ß`` -> ``ss``, the Kelvin sign -> ``k``,
# ``ﬁ`` -> ``fi``; a test checks the list against every code point). They fold like any
# other letter; a line holding one is also picked by the prefilter (its UTF-8 form or its
# JSON escape) when its folding could make part of the needle.
FOLDS_TO_PLAIN_ASCII = "\u00df\u017f\u1e9e\u212a\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
# The characters whose folding holds ASCII mixed with other characters (``İ`` -> ``i̇``):
# kept as themselves, so an ASCII run of the folded text is an ASCII run of the text.
FOLDS_TO_MIXED_ASCII = "\u0130\u0149\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a"
_KEEP_AS_IS = {ord(char): 0xF0000 + i for i, char in enumerate(FOLDS_TO_MIXED_ASCII)}
# A piece of a needle no folding can make this long is selective enough to search alone.
MIN_PIECE = 4
# Plain characters some JSON writers escape (Go's: HTML-safe output): they end a needle.
_ESCAPED_BY_SOME = "<>&"
_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?\Z",
    re.IGNORECASE,
)


# --- the query --------------------------------------------------------------------------


def needle(word: str) -> bytes:
    """The longest run of ``word`` as it reads inside a JSON string (``b""`` when none)."""
    best, run = "", []
    for char in word + "\0":
        if char in ('"', "\\"):
            run.append("\\" + char)
        elif " " <= char <= "~" and char not in _ESCAPED_BY_SOME:
            run.append(char)
        else:
            text = "".join(run)
            best = text if len(text) > len(best) else best
            run = []
    return best.encode("ascii")


def fold(text: str) -> str:
    """``text`` case-folded (``straße`` -> ``strasse``), except the characters whose folding
    mixes ASCII with other characters (kept as themselves)."""
    if text.isascii():
        return text.lower()
    return text.translate(_KEEP_AS_IS).casefold()


def _placements(wanted: bytes, folded: bytes) -> Iterator[range]:
    """The stretches of ``wanted`` that ``folded`` (a character's ASCII folding) could make
    in an occurrence of it: wherever the two agree, inside it or over one of its ends."""
    for start in range(1 - len(folded), len(wanted)):
        inside = range(max(start, 0), min(start + len(folded), len(wanted)))
        if all(wanted[at] == folded[at - start] for at in inside):
            yield inside


def untouched_run(wanted: bytes) -> bytes:
    """The longest run of ``wanted`` (a lower-cased needle) that no plain-ASCII folding can
    make part of: in a line whose folded text holds ``wanted``, that run is in the raw
    line as it is (lower-cased)."""
    touched = [False] * len(wanted)
    for char in FOLDS_TO_PLAIN_ASCII:
        for inside in _placements(wanted, char.casefold().encode("ascii")):
            for at in inside:
                touched[at] = True
    best, start = b"", 0
    for at, hit in enumerate([*touched, True]):
        if hit:
            best = max(best, wanted[start:at], key=len)
            start = at + 1
    return best


def folding_markers(wanted: bytes) -> list[bytes]:
    """The bytes (UTF-8 and lower-cased JSON escape) of each character whose ASCII folding
    could make part of the lower-cased needle ``wanted``."""
    markers: list[bytes] = []
    for char in FOLDS_TO_PLAIN_ASCII:
        if any(_placements(wanted, char.casefold().encode("ascii"))):
            markers.append(char.encode("utf-8"))
            markers.append(f"\\u{ord(char):04x}".encode("ascii"))
    return markers


def _find_all(hay: bytes, what: bytes, out: list[int]) -> None:
    """Append the offset of ``what`` in each line of ``hay`` holding it (the first per line)."""
    at = hay.find(what)
    while at >= 0:
        out.append(at)
        end = hay.find(b"\n", at + len(what))
        if end < 0:
            return
        at = hay.find(what, end)


class Query:
    """What to find: every word in one message (folded case unless ``case_sensitive``), or
    one regular expression."""

    def __init__(
        self, words: Sequence[str], regex: bool = False, case_sensitive: bool = False
    ) -> None:
        if not words or any(not word for word in words):
            raise UsageError(
                "give a QUERY: one or more words to find (an empty word finds nothing)"
            )
        if regex and len(words) != 1:
            raise UsageError("--regex takes exactly one QUERY (quote the pattern)")
        self.words = list(words)
        self.fold = not case_sensitive
        flags = 0 if case_sensitive else re.IGNORECASE
        if regex:
            try:
                self.pattern: re.Pattern[str] | None = re.compile(words[0], flags)
            except (re.error, OverflowError, RecursionError) as exc:
                raise UsageError(
                    f"--regex {words[0]!r} is not a valid regular expression: {exc}"
                ) from exc
            self.marker = self.pattern
            self.folded: list[str] = []
        else:
            self.pattern = None
            self.folded = [fold(word) for word in words] if self.fold else list(words)
            self.marker = re.compile("|".join(re.escape(word) for word in words), flags)

    def matches(self, text: str) -> bool:
        """Whether ``text`` holds a hit."""
        if self.pattern is not None:
            return self.pattern.search(text) is not None
        hay = fold(text) if self.fold else text
        return all(word in hay for word in self.folded)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the query's words (or pattern) occur in ``text``, to mark them (bounded)."""
        found = []
        for match in self.marker.finditer(text):
            if match.end() > match.start():
                found.append(match.span())
            if len(found) >= 1000:
                break
        return found

    def needle(self) -> bytes | None:
        """The bytes a candidate line must hold, lower-cased when folding (``None``: none)."""
        if self.pattern is not None:
            return None
        best = max((needle(word) for word in self.folded), key=len)
        if not best:
            return None
        return best.lower() if self.fold else best

    def selector(self, markers: Sequence[bytes] = ()) -> Selector | None:
        """The prefilter: offsets in a block of the lines that may hold a hit.

        When folding, a line may hold the needle only once folded (``straße`` for
        ``strasse``): the prefilter then looks for the longest piece of a needle no
        plain-ASCII folding can make (``relwing`` of ``kestrelwing``), else, when that
        piece is short, for the needle and those characters' own bytes."""
        wanted = self.needle()
        if wanted is None:
            return None
        lower = self.fold and wanted != wanted.upper()  # lower-casing changes only letters
        if lower:
            words = [needle(word).lower() for word in self.folded]
            piece = max((untouched_run(word) for word in words), key=len)
            if piece == wanted or len(piece) >= MIN_PIECE:
                wanted = piece
            else:
                markers = [*markers, *folding_markers(wanted)]

        def select(block: bytes) -> list[int]:
            hay = block.lower() if lower else block
            found: list[int] = []
            _find_all(hay, wanted, found)
            for marker in markers:
                _find_all(hay, marker, found)
            return found

        return select


# --- filters ----------------------------------------------------------------------------


def moment(timestamp: object) -> datetime.datetime | None:
    """A record's timestamp as an aware UTC datetime (``None`` when absent or unreadable)."""
    if not isinstance(timestamp, str):
        return None
    match = _TIMESTAMP.match(timestamp.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    offset = datetime.timedelta(0)
    if zone and zone.upper() != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    try:
        local = datetime.datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second or 0),
            micro,
            tzinfo=datetime.timezone(offset),
        )
    except ValueError:
        return None
    return local.astimezone(datetime.timezone.utc)


class Filters(NamedTuple):
    """Which messages count: roles (``None``: every role searched) and a UTC date range."""

    roles: frozenset[str] | None = None
    since: datetime.date | None = None
    until: datetime.date | None = None

    def keeps(self, role: str, when: datetime.datetime | None) -> bool:
        """Whether a message of ``role`` written at ``when`` passes."""
        if self.roles is not None and role not in self.roles:
            return False
        if self.since is None and self.until is None:
            return True
        if when is None:
            return False
        day = when.date()
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )


def sort_key(message: Message) -> tuple[datetime.datetime, str, int]:
    """Messages in time order (undated first), then by file and line."""
    when = moment(message.timestamp) or datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    return when, message.file, message.line


# --- reading one file -------------------------------------------------------------------


def parse(raw: bytes, stats: ReadStats) -> dict | None:
    """One line as a JSON object; a line that is not one is counted and ``None``."""
    try:
        record = json.loads(raw.decode("utf-8").lstrip("\ufeff"))
    except (ValueError, RecursionError):
        stats.unreadable += 1
        return None
    if not isinstance(record, dict):
        stats.unreadable += 1
        return None
    return record


class _OverBudget(Exception):
    """A head read went past :data:`HEAD_LIMIT` without finding a working directory."""


def head(file: SessionFile) -> SessionFile:
    """``file`` with its session's first recorded working directory (and, for a flat
    Claude subagent file, its session id) read from the first record that has one."""
    reader = READERS[file.host]
    scratch = ReadStats()
    budget = [HEAD_LIMIT]

    def select(block: bytes) -> list[int]:
        budget[0] -= len(block)
        if budget[0] < 0:
            raise _OverBudget
        found: list[int] = []
        _find_all(block, _CWD_MARK, found)
        return found

    try:
        for _offset, raw in read_lines(file.path, select, scratch, HEAD_READ):
            record = parse(raw, scratch)
            facts = reader.head_facts(record) if record is not None else None
            if facts is not None:
                cwd, session = facts
                return file._replace(cwd=cwd, session=file.session or session or _stem(file.path))
    except (OSError, _OverBudget):
        pass
    return file._replace(session=file.session or _stem(file.path))


def delegated(file: SessionFile) -> bool:
    """Whether ``file`` is a subagent's session by its head record (Codex's
    ``session_meta``; a bounded read of the first record)."""
    reader = READERS[file.host]
    try:
        for _offset, raw in read_lines(file.path, None, ReadStats(), HEAD_READ):
            record = parse(raw, ReadStats())
            return record is not None and reader.delegated(record)
    except OSError:
        pass
    return False


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


def messages(
    file: SessionFile,
    tools: bool,
    stats: ReadStats,
    select: Selector | None = None,
) -> Iterator[tuple[Message, str | None]]:
    """The searched messages of one file with their dedupe keys, in file order (only the
    lines ``select`` picks). A message's ``line`` is its line's file offset until
    :func:`finished` numbers it.

    A tool call that runs ``engramory trace`` and its output are left out. An
    unreadable file counts as one unreadable line.
    """
    reader = READERS[file.host]
    required = None if tools else _EVENT_MARK.get(file.host)
    self_calls: set[str] = set()
    # A subagent's session, when its head says so: read at the file's first user message.
    subagent: bool | None = None if reader.SUBAGENT_IN_HEAD else False
    try:
        for offset, raw in read_lines(file.path, select, stats):
            if required is not None and required not in raw:
                continue
            record = parse(raw, stats)
            if record is None:
                continue
            cwd = reader.record_cwd(record) or file.cwd
            timestamp = record.get("timestamp")
            timestamp = timestamp if isinstance(timestamp, str) else None
            for part in reader.parts(record, tools):
                if part.self_call:
                    if part.call is not None:
                        self_calls.add(part.call)
                    continue
                if part.role == TOOL and part.call is not None and part.call in self_calls:
                    continue
                role = part.role
                if role == USER:
                    subagent = delegated(file) if subagent is None else subagent
                    role = AGENT if subagent else USER
                found = Message(
                    file.host, file.session, cwd, timestamp, role, part.text, file.path, offset
                )
                yield found, part.key
    except OSError:
        stats.unreadable += 1


# --- the sessions in scope --------------------------------------------------------------


class Roots(NamedTuple):
    """The transcript roots tried and those that exist."""

    tried: list[str]
    found: list[tuple[str, str]]  # (host, root)


def roots(environ: Mapping[str, str], hosts: Iterable[str]) -> Roots:
    """Every root of the chosen hosts, and the existing ones."""
    tried: list[str] = []
    found: list[tuple[str, str]] = []
    for host in hosts:
        for root in ROOTS[host](environ):
            tried.append(root)
            if os.path.isdir(root):
                found.append((host, root))
    return Roots(tried, found)


def folder_cwd(files: Iterable[SessionFile]) -> str | None:
    """The working directory a project folder's sessions recorded: the first one a file's
    head holds (the folder is indexed by it once per run)."""
    for file in list(files)[:FOLDER_PROBES]:
        cwd = None if mostly_holes(file.path) else head(file).cwd
        if cwd:
            return cwd
    return None


def _claude_files(root: str, project: scope.Project) -> list[SessionFile]:
    """The files of the folders under one Claude Code root that may hold the project's
    sessions: a folder whose name fits, or whose sessions recorded a directory in it
    (a folder filed under another name: the project moved, or a key made differently)."""
    files: list[SessionFile] = []
    for name in claude.project_folders(root):
        folder = list(claude.session_files(os.path.join(root, name)))
        if project.may_hold_folder(name) or project.holds(folder_cwd(folder)):
            files += folder
    return files


def session_files(
    found: Sequence[tuple[str, str]],
    project: scope.Project | None,
    sparse: list[str] | None = None,
) -> list[SessionFile]:
    """The transcript files under the roots, with their sessions; only the project's when
    ``project`` is given (the folders that may hold them, each file confirmed by the
    directory its session recorded). A file that is mostly holes is left out (its path
    added to ``sparse``)."""
    files: list[SessionFile] = []
    for host, root in found:
        if project is not None and host == claude.HOST:
            files += _claude_files(root, project)
        else:
            files += READERS[host].find_files(root)
    holes = {file.path for file in files if mostly_holes(file.path)}
    if sparse is not None:
        sparse += sorted(holes)
    files = [file for file in files if file.path not in holes]
    read = [head(f) if project is not None or host_needs_head(f) else f for f in files]
    return [file for file in read if project is None or project.holds(file.cwd)]


def host_needs_head(file: SessionFile) -> bool:
    """Whether a file's head must be read even when every project is searched (a flat
    subagent file's session id is in its records)."""
    return not file.session


def finished(found: list[Message]) -> list[Message]:
    """Messages with line numbers (from their offsets) and, where a record did not say,
    their session's working directory; in time order."""
    by_file: dict[str, list[int]] = {}
    for message in found:
        by_file.setdefault(message.file, []).append(message.line)
    numbers: dict[str, dict[int, int]] = {}
    for path, offsets in by_file.items():
        try:
            numbers[path] = line_numbers(path, offsets)
        except OSError:
            numbers[path] = {}
    heads: dict[str, str | None] = {}
    done = []
    for message in found:
        cwd = message.cwd
        if cwd is None:
            if message.file not in heads:
                heads[message.file] = head(
                    SessionFile(message.host, message.session, message.file)
                ).cwd
            cwd = heads[message.file]
        line = numbers[message.file].get(message.line, 0)
        done.append(message._replace(cwd=cwd, line=line))
    done.sort(key=sort_key)
    return done


def _scan(
    files: Sequence[tuple[int, SessionFile]],
    query: Query,
    tools: bool,
    filters: Filters,
    prefilter: bool,
) -> tuple[list[tuple[int, Message, str | None]], int]:
    """The matching messages of some files (with each file's index and the dedupe key),
    and the number of unreadable lines met."""
    stats = ReadStats()
    markers = (_SELF_MARK,) if tools else ()
    select = query.selector(markers) if prefilter else None
    found = []
    for index, file in files:
        for message, key in messages(file, tools, stats, select):
            if filters.keeps(message.role, moment(message.timestamp)) and query.matches(
                message.text
            ):
                found.append((index, message, key))
    return found, stats.unreadable


def search(
    files: Sequence[SessionFile],
    query: Query,
    tools: bool,
    filters: Filters,
    stats: ReadStats,
    prefilter: bool = True,
) -> list[Message]:
    """Every hit in ``files``, in time order (each Claude record once).

    A large history is scanned by several processes (:mod:`.parallel`); the hits
    are merged in file order, so dedupe keeps the same copy either way.
    """
    indexed = list(enumerate(files))
    sizes = [_size([file]) for file in files]
    count = parallel.workers() if sum(sizes) >= parallel.MIN_BYTES else 1
    shared = parallel.shares(indexed, sizes, count) or [[]]

    def work(share: Sequence[tuple[int, SessionFile]]) -> tuple[list, int]:
        return _scan(share, query, tools, filters, prefilter)

    found: list[tuple[int, Message, str | None]] = []
    for share_found, unreadable in parallel.run(shared, work):
        found += share_found
        stats.unreadable += unreadable
    found.sort(key=lambda entry: (entry[0], entry[1].line))
    seen: set[str] = set()
    hits: list[Message] = []
    for _index, message, key in found:
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        hits.append(message)
    return finished(hits)


# --- whole sessions (--show, --list) ----------------------------------------------------


def by_session(files: Iterable[SessionFile]) -> dict[str, list[SessionFile]]:
    """Files grouped by session id (a session's subagent files with it), in file order."""
    grouped: dict[str, list[SessionFile]] = {}
    for file in files:
        grouped.setdefault(file.session, []).append(file)
    return grouped


def pick_session(sessions: Sequence[str], wanted: str, minimum: int = 6) -> list[str]:
    """The sessions ``wanted`` names: its exact id, else every id it is a prefix of (case
    ignored; a prefix shorter than ``minimum`` names none)."""
    lowered = wanted.lower()
    exact = [session for session in sessions if session.lower() == lowered]
    if exact:
        return exact[:1]
    if len(wanted) < minimum:
        return []
    return sorted(session for session in sessions if session.lower().startswith(lowered))


def replay(files: Sequence[SessionFile], tools: bool, stats: ReadStats) -> list[Message]:
    """Every searched message of one session's files, each record once, in time order."""
    seen: set[str] = set()
    kept: list[Message] = []
    for file in files:
        for message, key in messages(file, tools, stats):
            if key is not None:
                if key in seen:
                    continue
                seen.add(key)
            kept.append(message)
    return finished(kept)


class Summary(NamedTuple):
    """One session as ``--list`` shows it."""

    session: str
    host: str
    cwd: str | None
    first: str | None
    last: str | None
    messages: int
    size: int
    opening: str


def _size(files: Sequence[SessionFile]) -> int:
    total = 0
    for file in files:
        try:
            total += os.stat(file.path, follow_symlinks=False).st_size
        except OSError:
            pass
    return total


def summarize(session: str, files: Sequence[SessionFile], stats: ReadStats) -> Summary:
    """A session's summary: first and last times, messages, size, the person's first line."""
    said = replay(files, False, stats)
    dated = [message for message in said if moment(message.timestamp) is not None]
    opening = next((m.text.strip().split("\n", 1)[0] for m in said if m.role == USER), "")
    if opening:
        opening = masked(opening, values_in(m.text for m in said))
    cwd = next((file.cwd for file in files if file.cwd), None) or folder_cwd(files)
    return Summary(
        session,
        files[0].host,
        cwd,
        dated[0].timestamp if dated else None,
        dated[-1].timestamp if dated else None,
        len(said),
        _size(files),
        opening,
    )


def newest_first(summaries: Iterable[Summary]) -> list[Summary]:
    """Sessions by their last message, newest first (undated last)."""
    oldest = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    return sorted(summaries, key=lambda s: (moment(s.last) or oldest, s.session), reverse=True)
