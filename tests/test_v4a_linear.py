"""The V4A patch parser, hunk search and guard are linear: 1 MiB vs 4 MiB costs about 4x.

In the style of tests/test_linear_time.py (and with its measuring helpers): each row of
:data:`CASES` builds a hostile input of about ``size`` characters -- for the applier, a
file and a patch of about ``size`` each, joined by ``SEPARATOR`` -- and runs the real code
on it in a child process (``python tests/test_v4a_linear.py NAME TMP``), so a quadratic
search fails the growth check (or the timeout) instead of hanging the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_linear_time import (
    MIB,
    Case,
    assert_linear_row,
    child_row,
)

from engramory.guard import service, toolcall, v4a

SEPARATOR = "\0"
BEGIN = "*** Begin Patch\n*** Update File: MEMORY.md\n"


def applied(text: str, tmp: Path) -> object:
    """Parse the patch half and apply its update to the file half."""
    before, patch = text.split(SEPARATOR)
    (op,) = v4a.parse(patch).ops
    return v4a.apply(before, op.hunks).status


def guarded(text: str, tmp: Path) -> object:
    """The whole guard on a PATCH call: the file half is the index, caps raised to read it."""
    before, patch = text.split(SEPARATOR)
    (tmp / "MEMORY.md").write_text(before)
    env = {"ENGRAMORY_HARD_BYTES": str(8 * MIB), "ENGRAMORY_WARN_BYTES": str(8 * MIB)}
    env["ENGRAMORY_HARD"] = env["ENGRAMORY_WARN"] = str(8 * MIB)
    call = toolcall.ToolCall(toolcall.PATCH, cwd=str(tmp), command=patch)
    return service.check(call, env).kind


def parsed(text: str, tmp: Path) -> object:
    return len(v4a.parse(text).ops)


def from_command(text: str, tmp: Path) -> object:
    return [len(v4a.parse(patch).ops) for patch, _ in v4a.patches_in_command(text)]


PAD = "-" * 24  # lines of some width: fewer hunks per MiB, still tens of thousands


def equal_lines(size: int) -> str:
    """Many equal lines, and a hunk replacing each in turn: every line is a candidate."""
    line = "x" + PAD
    count = size // (len(line) + 9)  # one "@@\n-LINE\n+y\n" hunk per line
    return (line + "\n") * count + SEPARATOR + BEGIN + f"@@\n-{line}\n+y\n" * count


def nowhere(size: int) -> str:
    """A pattern that starts at every other line and matches nowhere (the budget stops it)."""
    pairs = size // 4
    return "a\nb\n" * pairs + SEPARATOR + BEGIN + "@@\n" + " a\n b\n" * (pairs // 4) + " a\n a\n"


def long_line(size: int) -> str:
    """One huge line, matched only once its trailing whitespace is ignored."""
    return "x" * size + " \n" + SEPARATOR + BEGIN + "@@\n-" + "x" * size + "\n+y\n"


def contexts(size: int) -> str:
    """Thousands of hunks, each found through its own @@ line."""
    count = size // (2 * len(PAD) + 30)
    before = "".join(f"h{i}{PAD}\nv{PAD}\n" for i in range(count))
    hunks = "".join(f"@@ h{i}{PAD}\n-v{PAD}\n+w\n" for i in range(count))
    return before + SEPARATOR + BEGIN + hunks


def tolerant(size: int) -> str:
    """Thousands of hunks that each fail the exact pass and match ignoring whitespace."""
    count = size // (len(PAD) + 20)
    before = "".join(f"v{i}{PAD} \n" for i in range(count))
    hunks = "".join(f"@@\n-v{i}{PAD}\n+w\n" for i in range(count))
    return before + SEPARATOR + BEGIN + hunks


CASES: list[Case] = [
    Case("apply: a pattern starting everywhere, matching nowhere", nowhere, applied),
    Case("apply: one long line, trailing whitespace ignored", long_line, applied),
    Case("apply: thousands of @@ context hunks", contexts, applied),
    Case("apply: thousands of whitespace-tolerant hunks", tolerant, applied),
    Case("guard: a hunk per line of a big index", equal_lines, guarded),
    Case(
        "parse: thousands of added lines and files",
        lambda n: "".join(f"*** Add File: f{i}\n+{PAD}\n+{PAD}\n" for i in range(n // 70)),
        parsed,
    ),
    Case(
        "command: a heredoc patch in a shell command",
        lambda n: "apply_patch <<'EOF'\n" + tolerant(n).split(SEPARATOR)[1] + "EOF\n",
        from_command,
    ),
]


def test_the_cases_do_what_they_say(tmp_path: Path) -> None:
    """The hostile inputs, small: each takes the path its name promises."""
    assert applied(equal_lines(900), tmp_path) == v4a.APPLIED
    assert applied(nowhere(40_000), tmp_path) == v4a.TOO_COMPLEX
    assert applied(long_line(1000), tmp_path) == v4a.APPLIED
    assert applied(contexts(1000), tmp_path) == v4a.APPLIED
    assert applied(tolerant(1000), tmp_path) == v4a.APPLIED
    assert guarded(equal_lines(900), tmp_path) == "silent"
    assert parsed(CASES[5].build(7000), tmp_path) == 100
    assert from_command(CASES[6].build(900), tmp_path) == [1]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_time_grows_linearly(case: Case, tmp_path: Path) -> None:
    assert_linear_row(__file__, case, tmp_path)


if __name__ == "__main__":
    child_row(CASES, sys.argv[1], sys.argv[2])
