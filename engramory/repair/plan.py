"""Turn the doctor's findings into new file contents: the pure middle of ``engramory fix``.

The command reads the notes and the index and finds dates; :func:`plan`
decides every change without touching the disk. Frontmatter fixes go through
:mod:`.fmedit`, index fixes through :mod:`engramory.write.indexedit`, so each touches
only the lines concerned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from engramory.doctor.model import Finding
from engramory.doctor.rules import RULES
from engramory.repair import (
    DUPLICATE_POINTER,
    FIX_IDS,
    INVALID_DATE,
    MISSING_DATE,
    NAME_MISMATCH,
    ORPHAN,
    POINTER_SECTION_MISMATCH,
    duplicate_pointer,
    fmedit,
    invalid_date,
    missing_date,
    name_mismatch,
    orphan,
    pointer_section_mismatch,
)
from engramory.repair.indexlines import single_link_lines
from engramory.repair.model import IndexInput, NoteInput, Plan
from engramory.store.caps import INDEX_NAME, Caps, Measurement
from engramory.store.frontmatter import decode
from engramory.util.textfmt import printable
from engramory.write import indexedit

NOTE_FIXES: dict[str, Callable[[NoteInput, list[Finding]], Iterator[tuple[str, str, Finding]]]] = {
    NAME_MISMATCH: name_mismatch.fixes,
    MISSING_DATE: missing_date.fixes,
    INVALID_DATE: invalid_date.fixes,
}


def fix_of(finding: Finding) -> str | None:
    """The id of the repair that handles ``finding``, as its rule says (:attr:`Rule.repair`)."""
    rule = RULES.get(finding.rule)
    return rule.repair_of(finding) if rule is not None else None


def plan(
    findings: Iterable[Finding],
    notes: Mapping[str, NoteInput],
    index: IndexInput | None,
    section_types: Mapping[int, str],
    caps: Caps,
    selected: Iterable[str] = FIX_IDS,
) -> Plan:
    """What ``engramory fix`` would change, given the doctor's ``findings``.

    ``notes`` holds the notes with a fixable finding (by path), ``index`` the
    index (``None`` when it was not read), ``section_types`` the type of the
    note each ``pointer-section-mismatch`` line leads to. Only the fixes in
    ``selected`` run.
    """
    chosen = set(selected)
    result = Plan()
    wanted: list[Finding] = []
    for finding in findings:
        (wanted if fix_of(finding) in chosen else result.remaining).append(finding)
    by_path: dict[str, list[Finding]] = {}
    for finding in wanted:
        by_path.setdefault(finding.path, []).append(finding)
    index_findings = by_path.pop(INDEX_NAME, [])
    orphans = []
    for path, found in sorted(by_path.items()):
        orphans += [f for f in found if f.rule == ORPHAN]
        _fix_note(notes.get(path), [f for f in found if f.rule != ORPHAN], result)
    _fix_index(index, index_findings, orphans, notes, section_types, caps, result)
    result.remaining.sort(key=Finding.sort_key)
    result.fixed.sort(key=Finding.sort_key)
    return result


def _fix_note(note: NoteInput | None, findings: list[Finding], result: Plan) -> None:
    """The frontmatter fixes of one note, applied one line at a time."""
    if not findings:
        return
    if note is None or not note.editable:
        why = note.why if note is not None else "it could not be read"
        result.remaining += findings
        result.notes.append(printable(f"{findings[0].path}: left as it is: {why}"))
        return
    data = note.data
    done: set[int] = set()
    for fix_id in (NAME_MISMATCH, INVALID_DATE, MISSING_DATE):
        mine = [f for f in findings if fix_of(f) == fix_id]
        for key, value, finding in NOTE_FIXES[fix_id](note, mine) if mine else ():
            data = fmedit.set_field(data, key, value)
            done.add(id(finding))
    for finding in findings:
        (result.fixed if id(finding) in done else result.remaining).append(finding)
    if any(f.rule == MISSING_DATE and id(f) not in done for f in findings):
        why = note.dates.why or "its history gives no date that fits"
        result.undated.setdefault(why, []).append(note.rel)
    if data != note.data:
        result.changes[note.rel] = data
        result.sources[note.rel] = note.data


def _fix_index(
    index: IndexInput | None,
    findings: list[Finding],
    orphans: list[Finding],
    notes: Mapping[str, NoteInput],
    section_types: Mapping[int, str],
    caps: Caps,
    result: Plan,
) -> None:
    """Drop repeated pointers, move misplaced ones, then add a pointer for each orphan."""
    if index is None or not index.editable:
        result.remaining += findings + orphans
        if findings or orphans:
            why = index.why if index is not None else "it could not be read"
            result.notes.append(f"{INDEX_NAME}: left as it is: {why}")
        return
    single = single_link_lines(index.text)
    drop, left = duplicate_pointer.removals(findings, single)
    move, left_moves = pointer_section_mismatch.moves(
        [f for f in findings if f.line not in drop], single, section_types
    )
    result.remaining += left + left_moves
    result.remaining += [
        f for f in findings if f.rule not in (DUPLICATE_POINTER, POINTER_SECTION_MISMATCH)
    ]
    for line in drop:
        result.fixed += drop[line]
    moved_dropped = [f for f in findings if f.rule == POINTER_SECTION_MISMATCH and f.line in drop]
    result.fixed += moved_dropped
    text = indexedit.remove_lines(index.text, [*drop, *move])
    for line, (section, fixed) in sorted(move.items()):
        text = indexedit.add_pointer(text, section, single[line].text)
        result.fixed += fixed
    for finding in orphans:
        text = _add_orphan(text, index, finding, notes.get(finding.path), caps, result)
    if text != index.text:
        result.changes[INDEX_NAME] = index.encode(text)
        result.sources[INDEX_NAME] = index.encode(index.text)


def _add_orphan(
    text: str,
    index: IndexInput,
    finding: Finding,
    note: NoteInput | None,
    caps: Caps,
    result: Plan,
) -> str:
    """``text`` with a pointer to the orphan added, unless it cannot or may not be."""
    if note is None or not note.editable:
        made: tuple[str, str] | str = f"not indexed: {note.why if note else 'it could not be read'}"
    else:
        made = orphan.pointer(note)
    if isinstance(made, str):
        result.remaining.append(finding)
        result.notes.append(printable(f"{finding.path}: {made}"))
        return text
    section, line = made
    added = indexedit.add_pointer(text, section, line)
    size = Measurement.of_raw(index.encode(added))
    over = size.over(caps.hard_lines, caps.hard_bytes)
    if over:
        result.remaining.append(finding)
        result.notes.append(
            printable(
                f"{finding.path}: not indexed: its pointer would take {INDEX_NAME} to "
                f"{size.lines} lines / {size.bytes} bytes, over the hard cap "
                f"({caps.hard_lines} lines / {caps.hard_bytes} bytes): compact the index first"
            )
        )
        return text
    result.fixed.append(finding)
    return added


def decoded_index(raw: bytes) -> IndexInput:
    """The index's bytes as :class:`IndexInput` (not editable when they are not UTF-8)."""
    bom = raw.startswith(b"\xef\xbb\xbf")
    try:
        (raw[3:] if bom else raw).decode("utf-8")
    except UnicodeDecodeError:
        return IndexInput(decode(raw), bom, False, "it holds bytes that are not UTF-8")
    return IndexInput(decode(raw), bom)
