"""Managed blocks and the .gitignore entry: byte-exact install and uninstall."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory import managed

BEGIN = "<!-- BEGIN ENGRAMORY CLAUDE -->"
END = "<!-- END ENGRAMORY CLAUDE -->"
BLOCK = f"{BEGIN}\n## Memory (Engramory)\nrules here\n{END}"
OTHER_BEGIN = "<!-- BEGIN ENGRAMORY CODEX -->"
OTHER_END = "<!-- END ENGRAMORY CODEX -->"


def install(text: str, block: str = BLOCK) -> str:
    return managed.install_block(text, block, BEGIN, END)


def remove(text: str) -> str:
    return managed.remove_block(text, BEGIN, END)


@pytest.mark.parametrize(
    "original",
    ["", "# CLAUDE.md\n", "# CLAUDE.md", "a\r\nb\r\n", "a\r\nb", "text\n\n\n", "\n", "x\n  \n"],
)
def test_install_then_remove_gives_back_the_exact_bytes(original: str) -> None:
    installed = install(original)
    assert BEGIN in installed
    assert remove(installed) == original


def test_new_file_is_just_the_block() -> None:
    assert install("") == BLOCK + "\n"


def test_appending_keeps_one_blank_line_and_the_final_newline() -> None:
    assert install("# Project\n") == "# Project\n\n" + BLOCK + "\n"
    assert install("# Project") == "# Project\n\n" + BLOCK


def test_crlf_files_stay_crlf() -> None:
    installed = install("a\r\nb\r\n")
    assert "\n" not in installed.replace("\r\n", "")
    assert installed.endswith(END + "\r\n")


def test_reinstalling_is_byte_identical_and_updates_in_place() -> None:
    once = install("# Title\n\nuser text\n")
    assert install(once) == once
    newer = BLOCK.replace("rules here", "newer rules\nmore")
    updated = install(once, newer)
    assert "newer rules" in updated and "rules here" not in updated
    assert updated.startswith("# Title\n\nuser text\n\n")


def test_block_in_the_middle_is_replaced_in_place_and_removed_with_one_blank_line() -> None:
    text = f"top\n\n{BLOCK}\n\nbottom\n"
    assert install(text) == text
    assert remove(text) == "top\n\nbottom\n"


def test_other_hosts_blocks_are_untouched() -> None:
    other = f"{OTHER_BEGIN}\ncodex rules\n{OTHER_END}"
    text = install(managed.install_block("# AGENTS.md\n", other, OTHER_BEGIN, OTHER_END))
    assert other in text
    assert remove(text) == "# AGENTS.md\n\n" + other + "\n"


def test_indented_markers_count_quoted_ones_do_not() -> None:
    text = f"see the line {BEGIN} in prose\n  {BEGIN}  \nold\n\t{END}\n"
    state = managed.find_block(text, BEGIN, END)
    assert (state.status, state.begin, state.end) == ("present", 1, 3)


@pytest.mark.parametrize(
    "text",
    [
        f"{BEGIN}\nno end\n",
        f"{END}\n{BEGIN}\n",
        f"{BEGIN}\n{BEGIN}\n{END}\n",
        f"x\n{END}\n",
        f"{BEGIN}\na\n{END}\n{BEGIN}\nb\n{END}\n",
    ],
)
def test_damaged_markers_are_refused_both_ways(text: str) -> None:
    with pytest.raises(ValueError, match="damaged"):
        install(text)
    with pytest.raises(ValueError, match="line"):
        remove(text)


def test_removing_an_absent_block_is_a_lookup_error() -> None:
    with pytest.raises(LookupError):
        remove("# nothing here\n")


def test_removing_the_only_content_leaves_nothing() -> None:
    assert remove(install("")) == ""


lines = st.lists(st.text(st.characters(blacklist_characters="\r\n"), max_size=20), max_size=8)


@settings(max_examples=300)
@given(lines, st.booleans(), st.booleans())
def test_round_trip_property(content: list[str], crlf: bool, final_newline: bool) -> None:
    content = [line for line in content if line.strip() not in (BEGIN, END)]
    nl = "\r\n" if crlf else "\n"
    original = nl.join(content) + (nl if final_newline and content else "")
    installed = install(original)
    assert install(installed) == installed
    assert remove(installed) == original


# --- .gitignore ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "existing",
    [
        "/.engramory-memory/\n",
        ".engramory-memory/\n",
        "/.engramory-memory\n",
        ".engramory-memory\n",
        "/.engramory-memory/**\n",
        "node_modules\n.engramory-memory/",
    ],
)
def test_equivalent_ignore_entries_are_recognised(existing: str) -> None:
    assert managed.has_gitignore_entry(existing, ".engramory-memory")


@pytest.mark.parametrize(
    "existing",
    [
        "",
        "# .engramory-memory/\n",
        "!.engramory-memory/\n",
        "/.engramory-memory-old/\n",
        "docs/.engramory-memory/\n",
    ],
)
def test_other_lines_are_not_the_entry(existing: str) -> None:
    assert not managed.has_gitignore_entry(existing, ".engramory-memory")


def test_adding_the_entry_keeps_line_endings_and_separates_with_a_blank_line() -> None:
    assert managed.add_gitignore_entry("", "mem", "# c") == "# c\n/mem/\n"
    assert managed.add_gitignore_entry("dist\n", "mem", "# c") == "dist\n\n# c\n/mem/\n"
    assert managed.add_gitignore_entry("dist", "mem", "# c") == "dist\n\n# c\n/mem/\n"
    assert managed.add_gitignore_entry("dist\r\n", "a/b", "# c") == "dist\r\n\r\n# c\r\n/a/b/\r\n"
