"""The Hermes rules (profile ``hermes``): ``MEMORY.md`` and ``USER.md``, entries separated by
a line holding ``§``, each file under its character cap (:mod:`engramory.cuts.hermes`)."""

from __future__ import annotations

from collections.abc import Iterator

from engramory.cuts import hermes as hermescut
from engramory.cuts.model import decoded
from engramory.doctor.context import StoreView
from engramory.doctor.model import ERROR, STORE, WARNING, Example, Issue, rule
from engramory.doctor.rules.hostread import file_bytes
from engramory.util.textfmt import plural

FILES = ("MEMORY.md", "USER.md")
SEPARATOR = "§"
PROFILE_FLAGS = ("--profile", "hermes")


def _texts(root: str) -> Iterator[tuple[str, str]]:
    for name in FILES:
        data = file_bytes(root, name)
        if data is not None:
            yield name, decoded(data)


@rule(
    "hermes-over-cap",
    ERROR,
    "a Hermes memory file's entries are over its character cap (2,200 MEMORY.md, 1,375 USER.md)",
    fires=(
        Example("a 3,000-character MEMORY.md", sizes={"MEMORY.md": 3_000}, flags=PROFILE_FLAGS),
    ),
    quiet=(
        Example("a 2,000-character MEMORY.md", sizes={"MEMORY.md": 2_000}, flags=PROFILE_FLAGS),
    ),
    scope=STORE,
    fix="remove or shorten entries (`engramory check --host hermes` names the ones past the "
    "cap): until then Hermes' memory tool refuses every add",
)
def hermes_over_cap(view: StoreView) -> Iterator[Issue]:
    """Fires: the entries (stripped, duplicates dropped, joined by ``\\n§\\n``) pass the cap.
    Quiet: within it."""
    for name, text in _texts(view.root):
        cut = hermescut.cut(text, name)
        if cut.over_by:
            yield (
                name,
                cut.dropped[0] if cut.dropped else None,
                f"{cut.used:,} characters, {cut.over_by:,} over Hermes' {cut.limit:,} for {name}: "
                "its memory tool refuses every add; "
                f"{plural(len(cut.dropped), 'entry', 'entries')} from this line on do not fit",
            )


@rule(
    "hermes-separator",
    WARNING,
    "a line that looks like an entry separator is not `§` alone, so Hermes joins two entries",
    fires=(
        Example(
            "a separator with a space", {"MEMORY.md": "first\n§ \nsecond\n"}, flags=PROFILE_FLAGS
        ),
        Example("a doubled separator", {"MEMORY.md": "first\n§§\nsecond\n"}, flags=PROFILE_FLAGS),
    ),
    quiet=(
        Example(
            "entries split by `§` lines", {"MEMORY.md": "first\n§\nsecond\n"}, flags=PROFILE_FLAGS
        ),
    ),
    scope=STORE,
    fix="make the line hold `§` and nothing else",
)
def hermes_separator(view: StoreView) -> Iterator[Issue]:
    """Fires: a line of only ``§`` and whitespace that is not exactly ``§``. Quiet: ``§``."""
    for name, text in _texts(view.root):
        for number, line in enumerate(text.split("\n"), 1):
            stripped = line.strip()
            if line != SEPARATOR and stripped and not stripped.strip(SEPARATOR + " \t"):
                yield (
                    name,
                    number,
                    "not a separator to Hermes (it splits only at a line holding `§` alone): "
                    "the entries around it are read as one",
                )


@rule(
    "hermes-duplicate-entry",
    WARNING,
    "a Hermes memory entry repeats an earlier one (the host drops the copy at load)",
    fires=(
        Example(
            "the same entry twice",
            {"MEMORY.md": "prefers tabs\n§\nuses uv\n§\nprefers tabs\n"},
            flags=PROFILE_FLAGS,
        ),
    ),
    quiet=(
        Example(
            "two different entries",
            {"MEMORY.md": "prefers tabs\n§\nuses uv\n"},
            flags=PROFILE_FLAGS,
        ),
    ),
    scope=STORE,
    fix="remove the copy",
)
def hermes_duplicate_entry(view: StoreView) -> Iterator[Issue]:
    """Fires: an entry equal (stripped) to an earlier one in the same file. Quiet: none."""
    for name, text in _texts(view.root):
        first: dict[str, int] = {}
        for entry in hermescut.every_entry(text):
            if entry.text in first:
                yield (name, entry.line, f"repeats the entry at line {first[entry.text]}")
            else:
                first[entry.text] = entry.line
