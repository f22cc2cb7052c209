"""Managed blocks and the .gitignore entry: byte-exact install and uninstall."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engramory.wiring import managed

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
    try:
        installed = install(original)
    except managed.UnclosedFenceError:
        # refused on purpose: appended after an open fence, the block would be quoted
        assume(False)
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


# --- line endings: every line keeps its own (issue 10 item 13) ----------------------------


@pytest.mark.parametrize(
    "original",
    [
        "a\r\nb\nc\r\n",  # mixed, CRLF dominant
        "a\nb\r\nc\n",  # mixed, LF dominant
        "a\rb\rc\r",  # lone CR (classic Mac)
        "a\r\nb\rc\nd",  # all three, no final newline
        "\ufeffa\r\nb\r\n",  # BOM
        "x\r",
    ],
)
def test_mixed_endings_round_trip_and_reinstall_is_identical(original: str) -> None:
    installed = install(original)
    assert installed.startswith(original.rstrip("\r\n"))
    assert install(installed) == installed
    assert remove(installed) == original


def test_the_block_takes_the_dominant_ending() -> None:
    assert BLOCK.replace("\n", "\r\n") in install("a\r\nb\r\nc\n")
    assert BLOCK.replace("\n", "\r") in install("a\rb\r")
    assert BLOCK in install("a\nb\nc\r\n")


def test_refreshing_keeps_the_blocks_own_ending_and_the_rest_of_the_file() -> None:
    text = "top\n\n" + BLOCK.replace("\n", "\r\n") + "\r\n\nbottom\r\n"
    newer = BLOCK.replace("rules here", "newer")
    assert install(text, newer) == "top\n\n" + newer.replace("\n", "\r\n") + "\r\n\nbottom\r\n"


endings = st.sampled_from(["\n", "\r\n", "\r"])
plain_line = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)))


@st.composite
def rules_texts(draw: st.DrawFn) -> str:
    """Any text: lines (some markdown-ish) with any mix of endings, a final newline or not, a BOM."""
    content = draw(
        st.lists(st.one_of(plain_line, st.sampled_from(["", "```", "~~~~", "  ```md", "#"]))),
    )
    text = "".join(line + draw(endings) for line in content)
    if draw(st.booleans()):
        text += draw(plain_line)
    return ("\ufeff" if draw(st.booleans()) else "") + text


@settings(max_examples=400)
@given(rules_texts())
def test_install_then_uninstall_is_identity_for_any_text(original: str) -> None:
    lines = managed.split_lines(original)
    assert "".join(t + e for t, e in lines) == original
    if any(text.strip().lstrip("\ufeff") in (BEGIN, END) for text, _ in lines):
        return
    try:
        installed = install(original)
    except managed.UnclosedFenceError:
        return
    assert install(installed) == installed
    assert remove(installed) == original


# --- markers inside code fences are not markers (issue 10 item 15) ------------------------

QUOTED = f"# Rules\n\nThe block looks like this:\n\n```md\n{BEGIN}\n...\n{END}\n```\n"


@pytest.mark.parametrize(
    "fenced",
    [
        QUOTED,
        QUOTED.replace("```md", "~~~").replace("```", "~~~"),
        f"````\n{BEGIN}\n```\n{END}\n`````  \n",  # closed only by a run at least as long
        QUOTED.replace("\n", "\r\n"),
    ],
)
def test_quoted_markers_in_a_fence_survive_install_and_uninstall(fenced: str) -> None:
    assert managed.find_block(fenced, BEGIN, END).status == managed.ABSENT
    installed = install(fenced)
    assert installed.startswith(fenced) and installed.count(BEGIN) == 2
    assert install(installed) == installed
    assert remove(installed) == fenced


def test_a_real_block_after_a_fence_is_found() -> None:
    text = QUOTED + "\n" + BLOCK + "\n\nafter\n"
    state = managed.find_block(text, BEGIN, END)
    assert state.status == managed.PRESENT
    assert managed.split_lines(text)[state.begin][0] == BEGIN and state.begin > 8
    assert remove(text) == QUOTED + "\nafter\n"


@pytest.mark.parametrize(
    "not_a_fence",
    [
        "    ```\n",  # indented four spaces: code, not a fence
        "``\n",  # two backticks
        "``` a`b\n",  # a backtick fence's info string holds no backtick
    ],
)
def test_lines_that_do_not_open_a_fence_leave_markers_live(not_a_fence: str) -> None:
    text = not_a_fence + BLOCK + "\n"
    assert managed.find_block(text, BEGIN, END).status == managed.PRESENT


@pytest.mark.parametrize(
    "closing",
    ["~~~\n", "``\n", "```x\n", "    ```\n"],  # other char, shorter, info string, too indented
)
def test_a_fence_closes_only_on_a_matching_run(closing: str) -> None:
    text = f"```\n{closing}{BEGIN}\n```\n"
    assert managed.find_block(text, BEGIN, END).status == managed.ABSENT


def test_an_unclosed_fence_runs_to_the_end_and_install_refuses_to_append_into_it() -> None:
    text = f"```\n{BEGIN}\nquoted\n"
    assert managed.find_block(text, BEGIN, END).status == managed.ABSENT
    with pytest.raises(managed.UnclosedFenceError, match="line 1"):
        install(text)
