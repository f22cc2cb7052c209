"""The top-level ``engramory --help``: its examples line up in two columns."""

from __future__ import annotations

import re

EXAMPLE_LINE = re.compile(r"^  (engramory(?: \S+)*) {2,}(\S.*)$")


def example_lines(help_text: str) -> list[str]:
    """The lines of the ``examples:`` section, up to the first blank line."""
    section = help_text.split("\nexamples:\n", 1)[1]
    return section.split("\n\n", 1)[0].split("\n")


def test_examples_are_commands_with_descriptions_in_one_column(cli) -> None:
    result = cli("--help")
    assert result.code == 0
    lines = example_lines(result.out)
    assert len(lines) >= 4
    matches = [EXAMPLE_LINE.match(line) for line in lines]
    assert all(matches), [line for line, m in zip(lines, matches) if not m]
    columns = {m.start(2) for m in matches if m}
    assert len(columns) == 1, lines


def test_the_check_catches_a_misaligned_example() -> None:
    good = "  engramory hosts    every host\n  engramory check x  is it within its caps?"
    assert {m.start(2) for m in map(EXAMPLE_LINE.match, good.split("\n")) if m} == {21}
    squeezed = "  engramory init claude --install-hooks wire the rules into a host"
    assert EXAMPLE_LINE.match(squeezed) is None
    shifted = "  engramory hosts    every host\n  engramory check x    is it within its caps?"
    assert len({m.start(2) for m in map(EXAMPLE_LINE.match, shifted.split("\n")) if m}) == 2
