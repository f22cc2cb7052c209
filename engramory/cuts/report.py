"""``engramory check --host``'s words and JSON for one host's cut: pure, no I/O."""

from __future__ import annotations

from engramory.cuts.falloff import FallOff
from engramory.cuts.model import Cut
from engramory.util.textfmt import plural, printable

SHOWN = 20  # fall-off lines printed in text; JSON lists them all
NAMED = 3  # entries named in a reminder or a deny message


def as_json(cut: Cut, falls_off: list[FallOff]) -> dict[str, object]:
    """The ``host`` object of ``check --host --format json``."""
    return {
        "name": cut.host,
        "measure": cut.measure,
        "limit": cut.limit,
        "used": cut.used,
        "over_by": cut.over_by,
        "loads_all": cut.loads_all,
        "explain": cut.explain,
        "falls_off": [item.as_json() for item in falls_off],
        "corrections_lost": sum(1 for item in falls_off if item.corrects_line is not None),
    }


def summary(cut: Cut, path: str) -> str:
    """One line: the host's measure of the file and whether all of it loads."""
    limit = "no limit" if cut.limit is None else f"limit {cut.limit:,}"
    size = f"{cut.used:,} {cut.measure} ({limit}; {cut.explain})"
    if cut.loads_all:
        return f"{cut.host}: {path} loads in full: {size}."
    if not cut.cut_at_load:
        return (
            f"{cut.host}: {path} is {cut.over_by:,} {cut.measure} over its cap: {size}; "
            f"{plural(len(cut.dropped), 'entry', 'entries')} (the newest) do not fit."
        )
    return (
        f"{cut.host}: {path} does not load in full: {size}; "
        f"{plural(len(cut.dropped), 'line')} fall off."
    )


def item_text(path: str, item: FallOff) -> str:
    """One fall-off line: ``PATH:LINE: note — description [correction ...]``."""
    note = item.note or "(no note)"
    described = f" — {item.description}" if item.description else ""
    flag = (
        f" [a correction of line {item.corrects_line} ({item.corrects_note}), which stays "
        "loaded: move it above, or fold it into that note]"
        if item.corrects_line is not None
        else ""
    )
    return f"  {path}:{item.line}: {note}{described}{flag}"


def text_lines(cut: Cut, falls_off: list[FallOff], path: str) -> list[str]:
    """Every text line ``check --host`` prints after the usual verdict line (escaped)."""
    lines = [summary(cut, path)]
    lines.extend(item_text(path, item) for item in falls_off[:SHOWN])
    if len(falls_off) > SHOWN:
        lines.append(f"  ... and {len(falls_off) - SHOWN} more (--format json lists them all)")
    lost = [item for item in falls_off if item.corrects_line is not None]
    if lost:
        lines.append(
            f"{cut.host}: {plural(len(lost), 'correction')} fall off while the text "
            "they correct stays loaded (anthropics/claude-code#92998)."
        )
    return [printable(line) for line in lines]


def first_named(falls_off: list[FallOff], limit: int = NAMED) -> str:
    """The first few entries that fall off, for a reminder or a deny: ``line 201 (x.md), ...``."""
    named = [
        f"line {item.line}" + (f" ({item.note})" if item.note else "") for item in falls_off[:limit]
    ]
    more = len(falls_off) - len(named)
    return ", ".join(named) + (f" and {more} more" if more > 0 else "")
