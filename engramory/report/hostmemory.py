"""``where HOST`` (for a host other than Claude Code) and ``where --all``: text and JSON."""

from __future__ import annotations

import os
from pathlib import Path

from engramory.cuts.folders import FileSize, sizes
from engramory.store.hostmemory.model import Found
from engramory.util.textfmt import plural


def found_json(found: Found, project: Path) -> dict[str, object]:
    """One host's memory as JSON: where, why, whether it exists, its files and their cuts."""
    return {
        "host": found.host,
        "label": found.label,
        "project": os.fspath(project),
        "path": os.fspath(found.path),
        "rule": found.rule,
        "rule_text": found.rule_text,
        "exists": found.exists,
        "notes_store": found.notes_store,
        "read_only": found.read_only,
        "loaded": list(found.loaded),
        "layers": [
            {"what": what, "path": os.fspath(path), "exists": os.path.exists(path)}
            for what, path in found.layers
        ],
        "files": [size.as_json() for size in sizes(found)],
    }


def cut_text(cut: dict[str, object]) -> str:
    """``2,400 of 2,500 tokens: loads all`` / ``... 3 lines not loaded``."""
    if "error" in cut:
        return f"not measured: {cut['error']}"
    limit = cut["limit"]
    used = f"{cut['used']:,} {cut['measure']}"
    if limit is None:
        return f"{used}, no cap: loads all"
    head = f"{cut['used']:,} of {limit:,} {cut['measure']}"
    if cut["loads_all"]:
        return f"{head}: loads all"
    dropped = int(cut["lines_not_loaded"])  # type: ignore[call-overload]
    if dropped:
        return f"{head}: {plural(dropped, 'line')} not loaded"
    return f"{head}: {cut['over_by']:,} over, the host refuses to add more"


def file_text(size: FileSize) -> str:
    """One file's line: its sizes, and the host's cut when it loads the file."""
    if size.lines is None:
        return f"{size.name}: {size.bytes:,} bytes ({size.problem})"
    text = (
        f"{size.name}: {plural(size.lines, 'line')}, {size.bytes:,} bytes, "
        f"{size.chars:,} characters"
    )
    return f"{text}; host's cut: {cut_text(size.cut)}" if size.cut is not None else text


def found_text(found: Found, project: Path, *, heading: bool = True) -> list[str]:
    """The text lines for one host's memory."""
    lines = [f"{found.owner} memory for {project}:"] if heading else [f"{found.label}:"]
    state = "exists" if found.exists else "does not exist"
    lines.append(f"  {found.path} ({state})")
    lines.append(f"  chosen by: {found.rule_text}")
    if found.read_only:
        lines.append("  managed by the host: Engramory reads it and never writes it")
    for what, path in found.layers:
        lines.append(f"  {what}: {path} ({'exists' if os.path.exists(path) else 'absent'})")
    lines += [f"  {file_text(size)}" for size in sizes(found)]
    return lines
