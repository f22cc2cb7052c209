"""Every checked example in README.md and docs/ prints what the document shows.

A checked example is a ``console`` block after ``<!-- example -->`` (see
tests/docexamples.py): its commands run on a scratch copy of examples/store
and their output, paths and dates normalised, must equal the lines shown.
"""

from __future__ import annotations

from pathlib import Path

import docexamples
import pytest

BLOCKS = [block for path in docexamples.documents() for block in docexamples.parse(path)]


def block_id(block: docexamples.Block) -> str:
    return f"{block.path.relative_to(docexamples.REPO)}:{block.line}"


def test_there_are_checked_examples_on_every_command_page() -> None:
    pages = sorted((docexamples.REPO / "docs" / "commands").glob("*.md"))
    assert pages
    with_examples = {block.path for block in BLOCKS}
    assert [page.name for page in pages if page not in with_examples] == []


@pytest.mark.parametrize("block", BLOCKS, ids=block_id)
def test_example_output_is_what_the_command_prints(block: docexamples.Block) -> None:
    for (command, shown), (_same, printed) in zip(block.steps, docexamples.run(block)):
        assert list(shown) == printed, (
            f"{block_id(block)}: `{command}` prints something else now; "
            f"if the change is intended, run `{docexamples.UPDATE}`"
        )


def test_a_console_block_shows_output_only_when_it_is_checked() -> None:
    unchecked = []
    for path in docexamples.documents():
        lines = path.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            if line != docexamples.FENCE_OPEN or (i and lines[i - 1] == docexamples.MARKER):
                continue
            body = lines[i + 1 : lines.index("```", i + 1)]
            if any(not row.startswith(docexamples.PROMPT) for row in body):
                unchecked.append(f"{path.relative_to(docexamples.REPO)}:{i + 1}")
    assert unchecked == []


def test_a_changed_output_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- example -->\n```console\n$ engramory check examples/store\nOK: wrong\n```\n",
        encoding="utf-8",
    )
    (block,) = docexamples.parse(page)
    ((_command, printed),) = docexamples.run(block)
    assert printed != ["OK: wrong"]
    assert printed[0].startswith("OK: examples/store/MEMORY.md is ")


def test_normalise_hides_the_scratch_paths_and_today(tmp_path: Path) -> None:
    import datetime

    today = datetime.date.today().isoformat()
    text = f"{tmp_path}/app/x {tmp_path}/home/y {today} 20991231T235959Z {today}T23:01:02Z"
    assert docexamples.normalise(text, tmp_path) == (
        "/home/me/app/x /home/me/y 2026-12-01 20261201T093000Z 2026-12-01T09:30:00Z"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- example -->\n```sh\n$ x\n```\n", "is not followed by ```console"),
        ("<!-- example -->\n```console\nout\n```\n", "output before the first command"),
        ("<!-- example -->\n```console\n$ x\n", "is not closed"),
    ],
)
def test_a_malformed_example_is_an_error(tmp_path: Path, text: str, message: str) -> None:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        docexamples.parse(page)
