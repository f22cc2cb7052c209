"""The V4A patch parser and applier (engramory/guard/v4a.py), and apply_patch in shell commands.

The corpus gives each patch with the file before and the exact text after (or "does not
apply"). Rows marked ``codex:`` repeat an expectation of Codex's own tests
(``openai/codex``, ``codex-rs/apply-patch/src/lib.rs``, ``parser.rs``,
``seek_sequence.rs``); rows marked ``rule:`` follow a rule of Codex's code named in the
comment (``compute_replacements``, ``seek_sequence``, ``text_file.rs``), worked out by hand.
The service's use of all this: tests/test_guard_patch.py; linear time: tests/test_v4a_linear.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.guard import v4a

MISMATCH = v4a.MISMATCH


def wrap(body: str) -> str:
    """A patch around ``body``, as Codex's tests write one (``wrap_patch``)."""
    return f"*** Begin Patch\n{body}\n*** End Patch"


def update(before: str, patch: str) -> str:
    """Apply the patch's single update to ``before``: the new text, or ``MISMATCH``."""
    parsed = v4a.parse(patch)
    assert parsed.error is None, parsed.error
    (op,) = parsed.ops
    assert op.kind == v4a.UPDATE
    applied = v4a.apply(before, op.hunks)
    if applied.status == v4a.APPLIED:
        assert applied.text is not None
        return applied.text
    assert applied.text is None and applied.hunk >= 1 and applied.reason
    return applied.status


CORPUS = [
    # (name, file before, patch, file after or MISMATCH)
    (
        # codex: test_update_file_hunk_modifies_content
        "one hunk",
        "foo\nbar\n",
        wrap("*** Update File: f\n@@\n foo\n-bar\n+baz"),
        "foo\nbaz\n",
    ),
    (
        # codex: test_multiple_update_chunks_apply_to_single_file
        "several hunks",
        "foo\nbar\nbaz\nqux\n",
        wrap("*** Update File: f\n@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX"),
        "foo\nBAR\nbaz\nQUX\n",
    ),
    (
        # codex: test_update_file_hunk_interleaved_changes (with *** End of File)
        "several hunks and an end-of-file addition",
        "a\nb\nc\nd\ne\nf\n",
        wrap("*** Update File: f\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File"),
        "a\nB\nc\nd\nE\nf\ng\n",
    ),
    (
        # rule: compute_replacements moves past the first line matching the @@ header
        "@@ context header picks the second of two equal blocks",
        "class A:\n    def f():\n        pass\nclass B:\n    def f():\n        pass\n",
        wrap("*** Update File: f\n@@ class B:\n     def f():\n-        pass\n+        return 1"),
        "class A:\n    def f():\n        pass\nclass B:\n    def f():\n        return 1\n",
    ),
    (
        # rule: the @@ header is searched with seek_sequence too (whitespace-tolerant)
        "@@ context header matched ignoring whitespace",
        "intro\n  ## feedback  \n- a\n",
        wrap("*** Update File: f\n@@ ## feedback\n-- a\n+- b"),
        "intro\n  ## feedback  \n- b\n",
    ),
    (
        # rule: an @@ header that is not in the file fails the hunk
        "@@ context header not found",
        "a\nb\n",
        wrap("*** Update File: f\n@@ nowhere\n-a\n+c"),
        MISMATCH,
    ),
    (
        # rule: a hunk's old lines are searched after the @@ header only
        "old lines only before the @@ header",
        "x\nheader\ny\n",
        wrap("*** Update File: f\n@@ header\n-x\n+z"),
        MISMATCH,
    ),
    (
        # codex: test_pure_addition_chunk_followed_by_removal
        "pure addition goes at the end, even before a later hunk",
        "line1\nline2\nline3\n",
        wrap(
            "*** Update File: f\n@@\n+after-context\n+second-line\n"
            "@@\n line1\n-line2\n-line3\n+line2-replacement"
        ),
        "line1\nline2-replacement\nafter-context\nsecond-line\n",
    ),
    (
        # codex: test_unified_diff_insert_at_eof
        "pure addition with *** End of File",
        "foo\nbar\nbaz\n",
        wrap("*** Update File: f\n@@\n+quux\n*** End of File\n"),
        "foo\nbar\nbaz\nquux\n",
    ),
    (
        # rule: compute_replacements inserts a pure addition before a final blank line
        "pure addition before a final blank line",
        "a\n\n",
        wrap("*** Update File: f\n@@\n+new"),
        "a\nnew\n\n",
    ),
    (
        # rule: a pure addition to an empty file
        "pure addition to an empty file",
        "",
        wrap("*** Update File: f\n@@\n+first"),
        "first\n",
    ),
    (
        # rule: seek_sequence with eof=true tries the last position first (and only)
        "*** End of File prefers the end",
        "x\ny\nx\n",
        wrap("*** Update File: f\n@@\n-x\n+z\n*** End of File"),
        "x\ny\nz\n",
    ),
    (
        # rule: the same hunk without *** End of File takes the first match
        "without *** End of File the first match is used",
        "x\ny\nx\n",
        wrap("*** Update File: f\n@@\n-x\n+z"),
        "z\ny\nx\n",
    ),
    (
        # rule: seek_sequence with eof=true only tries the end; no fallback in its code
        "*** End of File lines not at the end",
        "x\ny\n",
        wrap("*** Update File: f\n@@\n-x\n+z\n*** End of File"),
        MISMATCH,
    ),
    (
        # rule: seek_sequence fails in every pass
        "context not found",
        "alpha\nbeta\n",
        wrap("*** Update File: f\n@@\n alpha\n-gamma\n+delta"),
        MISMATCH,
    ),
    (
        # rule: the search starts after the previous hunk, never before it
        "a second hunk cannot match before the first",
        "a\nb\n",
        wrap("*** Update File: f\n@@\n-b\n+B\n@@\n-a\n+A"),
        MISMATCH,
    ),
    (
        # codex: test_derive_new_contents_lf_trailing_newline (a trailing "" old line is
        # retried without it, as the file's final line ending)
        "a trailing empty context line stands for the final newline",
        "foo\nbar\n",
        wrap("*** Update File: f\n@@\n foo\n-bar\n+BAR\n"),
        "foo\nBAR\n",
    ),
    (
        # codex: seek_sequence's test_rstrip_match_ignores_trailing_whitespace
        "trailing whitespace ignored",
        "foo   \nbar\t\t\n",
        wrap("*** Update File: f\n@@\n-foo\n-bar\n+baz"),
        "baz\n",
    ),
    (
        # codex: seek_sequence's test_trim_match_ignores_leading_and_trailing_whitespace
        "surrounding whitespace ignored",
        "    foo   \n   bar\t\n",
        wrap("*** Update File: f\n@@\n-foo\n-bar\n+baz"),
        "baz\n",
    ),
    (
        # codex: test_update_line_with_unicode_dash
        "typographic dashes read as ASCII",
        "import asyncio  # local import \u2013 avoids top\u2011level dep\n",
        wrap(
            "*** Update File: f\n@@\n-import asyncio  # local import - avoids top-level dep\n"
            "+import asyncio  # HELLO"
        ),
        "import asyncio  # HELLO\n",
    ),
    (
        # rule: seek_sequence tries exact matches everywhere before any looser one
        "an exact match later beats a whitespace-tolerant one earlier",
        "a \nb\na\nb\n",
        wrap("*** Update File: f\n@@\n-a\n-b\n+X"),
        "a \nb\nX\n",
    ),
    (
        # rule: U+001C is not whitespace for Rust's trim (it is for Python's str.strip)
        "only Unicode White_Space is trimmed",
        "a\x1c\n",
        wrap("*** Update File: f\n@@\n-a\n+b"),
        MISMATCH,
    ),
    (
        # codex: test_preserve_crlf_line_endings_on_update (text_file.rs: added lines take
        # the file's line ending)
        "a CRLF file keeps CRLF",
        "a\r\nb\r\nc\r\n",
        wrap("*** Update File: f\n@@\n a\n-b\n+B\n@@\n c\n+d\n*** End of File"),
        "a\r\nB\r\nc\r\nd\r\n",
    ),
    (
        # codex: test_preserve_crlf_embedded_carriage_returns_on_append
        "a CR inside a CRLF line survives",
        "foo\r\r\nbar\r\n",
        wrap("*** Update File: f\n@@\n+BAZ\n*** End of File"),
        "foo\r\r\nbar\r\nBAZ\r\n",
    ),
    (
        # rule: text_file.rs: the first line's ending is the file's; old lines keep theirs
        "a mixed file: new lines take the first line's ending",
        "a\nb\r\nc\n",
        wrap("*** Update File: f\n@@\n c\n+d"),
        "a\nb\r\nc\nd\n",
    ),
    (
        # rule: text_file.rs: an updated file always ends with a line ending
        "an unterminated last line gets an ending",
        "a\nb",
        wrap("*** Update File: f\n@@\n a\n-b\n+c"),
        "a\nc\n",
    ),
    (
        # rule: the patch's own CRLF endings are line endings, not text
        "a CRLF patch",
        "foo\nbar\n",
        wrap("*** Update File: f\n@@\n foo\n-bar\n+baz").replace("\n", "\r\n"),
        "foo\nbaz\n",
    ),
    (
        # codex: parser.rs test_parse_patch (the first hunk may leave out its @@ line)
        "first hunk without @@",
        "import foo\n",
        wrap("*** Update File: f\n import foo\n+bar"),
        "import foo\nbar\n",
    ),
    (
        # rule: text_file.rs apply_replacements: an *** End of File hunk overlapping the
        # previous one (Codex's unsigned start - done wraps: the new lines are appended)
        "an end-of-file hunk overlapping the previous hunk",
        "a\nb\n",
        wrap("*** Update File: f\n@@\n-a\n-b\n+X\n@@\n-b\n+Y\n*** End of File"),
        "X\nY\n",
    ),
]


@pytest.mark.parametrize(
    ("before", "patch", "after"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS]
)
def test_corpus(before: str, patch: str, after: str) -> None:
    assert update(before, patch) == after


def test_missing_begin_and_end_lines_are_accepted() -> None:
    body = "*** Update File: f\n@@\n foo\n-bar\n+baz"
    for patch in (body, "*** Begin Patch\n" + body, body + "\n*** End Patch"):
        assert update("foo\nbar\n", patch) == "foo\nbaz\n"


def test_surrounding_whitespace_and_padded_markers() -> None:
    # codex: parser.rs test_parse_patch (markers padded with spaces still parse)
    parsed = v4a.parse("\n\n  *** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch\n\n")
    assert parsed.error is None
    (op,) = parsed.ops
    assert (op.kind, op.path, op.content) == (v4a.ADD, "foo", "hi\n")


@pytest.mark.parametrize("opener", ["<<EOF", "<<'EOF'", '<<"EOF"'])
def test_heredoc_wrapper_is_stripped(opener: str) -> None:
    # codex: parser.rs test_parse_patch_lenient
    patch = f"{opener}\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n"
    (op,) = v4a.parse(patch).ops
    assert (op.path, op.hunks[0].old, op.hunks[0].new) == (
        "file2.py",
        ["import foo"],
        ["import foo", "bar"],
    )


def test_add_delete_update_and_move() -> None:
    # codex: parser.rs test_parse_patch
    parsed = v4a.parse(
        wrap(
            "*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n"
            "*** Update File: path/update.py\n*** Move to: path/update2.py\n"
            "@@ def f():\n-    pass\n+    return 123"
        )
    )
    assert parsed.error is None
    add, delete, upd = parsed.ops
    assert (add.kind, add.path, add.content) == (v4a.ADD, "path/add.py", "abc\ndef\n")
    assert (delete.kind, delete.path, delete.destination) == (
        v4a.DELETE,
        "path/delete.py",
        "path/delete.py",
    )
    assert (upd.kind, upd.path, upd.move_to, upd.destination) == (
        v4a.UPDATE,
        "path/update.py",
        "path/update2.py",
        "path/update2.py",
    )
    (hunk,) = upd.hunks
    assert (hunk.context, hunk.old, hunk.new, hunk.end_of_file) == (
        "def f():",
        ["    pass"],
        ["    return 123"],
        False,
    )


def test_an_update_followed_by_an_add() -> None:
    # codex: parser.rs test_parse_patch ("Update hunk followed by another hunk (Add File)")
    parsed = v4a.parse(
        wrap("*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content")
    )
    upd, add = parsed.ops
    assert (upd.hunks[0].old, upd.hunks[0].new) == ([], ["line"])
    assert (add.path, add.content) == ("other.py", "content\n")


def test_a_patch_touching_two_files() -> None:
    parsed = v4a.parse(wrap("*** Update File: a.md\n@@\n-x\n+y\n*** Update File: b.md\n@@\n-y\n+z"))
    assert [op.path for op in parsed.ops] == ["a.md", "b.md"]
    assert update("x\n", wrap("*** Update File: a.md\n@@\n-x\n+y")) == "y\n"


def test_an_add_with_no_lines_is_an_empty_file() -> None:
    (op,) = v4a.parse(wrap("*** Add File: empty.md")).ops
    assert (op.kind, op.content) == (v4a.ADD, "")


def test_parsing_stops_at_the_first_end_patch() -> None:
    parsed = v4a.parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\ntrailing words\nEOF")
    assert parsed.error is None and [op.path for op in parsed.ops] == ["a"]


def test_an_empty_patch_has_no_operations() -> None:
    for text in ("", "  \n", wrap("").replace("\n\n", "\n")):
        parsed = v4a.parse(text)
        assert parsed.error is None and parsed.ops == []


@pytest.mark.parametrize(
    ("patch", "says"),
    [
        ("hello world", "line 1: not a file operation"),
        (wrap("*** Update File: test.py"), "has no hunk"),  # codex: "... is empty"
        (wrap("*** Update File: f\n@@"), "without lines"),  # codex: test_update_file_chunk
        (wrap("*** Update File: f\n@@\nbad"), "without lines"),
        (wrap("*** Update File: f\n@@\n*** End of File"), "without lines"),
        (wrap("*** Update File: f\n@@\n-a\n+b\nnot a hunk line"), "must start with @@"),
        (wrap("*** Add File: a\n+x\ngarbage"), "line 4: not a file operation"),
        (wrap("*** Frobnicate File: a"), "not a file operation"),
        ("*** Begin Patch\n*** Add File:\n+x\n*** End Patch", "not a file operation"),
    ],
)
def test_malformed_patches_are_results_not_exceptions(patch: str, says: str) -> None:
    parsed = v4a.parse(patch)
    assert parsed.ops == [] and parsed.error is not None and says in parsed.error


def test_mismatch_names_the_hunk() -> None:
    (op,) = v4a.parse(wrap("*** Update File: f\n@@\n-a\n+b\n@@\n-zzz\n+c")).ops
    applied = v4a.apply("a\nq\n", op.hunks)
    assert (applied.status, applied.hunk, applied.text) == (MISMATCH, 2, None)
    assert "not found" in applied.reason


def test_a_search_past_its_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v4a, "BUDGET_FLOOR", 0)
    monkeypatch.setattr(v4a, "BUDGET_FACTOR", 1)
    # Every position starts with "a", none holds the whole pattern: each candidate costs
    # the pattern's length, far past 1 x (file + patch) lines.
    (op,) = v4a.parse(wrap("*** Update File: f\n@@\n" + " a\n b\n" * 20 + "-a\n-a\n+c")).ops
    applied = v4a.apply("a\nb\n" * 200, op.hunks)
    assert applied.status == v4a.TOO_COMPLEX and applied.hunk == 1


# --- the hunk search against a plain reading of Codex's seek_sequence ---------------------

WS = " \t\u3000"


# Codex's normalise(): typographic dashes, quotes and spaces read as their ASCII forms.
LOOSE = {
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys(
        "\xa0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
    ),
}


def naive_seek(lines: list[str], pattern: list[str], start: int, eof: bool) -> int | None:
    """Codex's seek_sequence as written there: four full scans, strictest first."""
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if eof else start
    comparisons = [
        lambda s: s,
        lambda s: s.rstrip(v4a.WHITESPACE),
        lambda s: s.strip(v4a.WHITESPACE),
        lambda s: "".join(LOOSE.get(c, c) for c in s.strip(v4a.WHITESPACE)),
    ]
    for norm in comparisons:
        for i in range(first, len(lines) - len(pattern) + 1):
            if all(norm(lines[i + j]) == norm(p) for j, p in enumerate(pattern)):
                return i
    return None


LINE = st.text(alphabet="ab -\u2013\u00a0" + WS, max_size=4)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(LINE, max_size=14),
    st.lists(LINE, min_size=1, max_size=4),
    st.integers(0, 15),
    st.booleans(),
)
def test_the_indexed_search_finds_what_seek_sequence_finds(
    lines: list[str], pattern: list[str], start: int, eof: bool
) -> None:
    finder = v4a._Finder(lines, 10**9)
    assert finder.seek(pattern, start, eof) == naive_seek(lines, pattern, start, eof)


# --- never an exception --------------------------------------------------------------------

PATCH_PIECES = st.lists(
    st.sampled_from(
        [
            "*** Begin Patch\n",
            "*** End Patch\n",
            "*** Add File: MEMORY.md\n",
            "*** Update File: MEMORY.md\n",
            "*** Delete File: a\n",
            "*** Move to: b\n",
            "*** End of File\n",
            "@@\n",
            "@@ x\n",
            " x\n",
            "-x\n",
            "+y\n",
            "-\n",
            "\n",
            "\r\n",
            "<<'EOF'\n",
            "EOF\n",
            "x",
            " ",
        ]
    ),
    max_size=25,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300), st.text(alphabet="x\ny \r\t", max_size=40))
def test_parse_and_apply_never_raise_on_any_text(patch: str, before: str) -> None:
    parsed = v4a.parse(patch)
    assert (parsed.error is None) or parsed.ops == []
    for op in parsed.ops:
        applied = v4a.apply(before, op.hunks)
        assert applied.status in (v4a.APPLIED, MISMATCH, v4a.TOO_COMPLEX)


@settings(max_examples=800, deadline=None)
@given(PATCH_PIECES, st.text(alphabet="xy \n\r", max_size=30))
def test_parse_and_apply_never_raise_on_patch_shaped_text(patch: str, before: str) -> None:
    for op in v4a.parse(patch).ops:
        applied = v4a.apply(before, op.hunks)
        assert (applied.text is None) == (applied.status != v4a.APPLIED)


VALID = wrap(
    "*** Add File: a.md\n+one\n+two\n*** Update File: MEMORY.md\n*** Move to: b.md\n"
    "@@ head\n ctx\n-old\n+new\n@@\n+tail\n*** End of File\n*** Delete File: c.md"
)


@settings(max_examples=800, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(VALID)), st.integers(0, 3), st.text(max_size=3)),
        min_size=1,
        max_size=4,
    ),
    st.text(alphabet="head\nctx old\r\n", max_size=40),
)
def test_mutated_valid_patches_never_raise(edits: list[tuple[int, int, str]], before: str) -> None:
    patch = VALID
    for at, cut, insert in edits:
        patch = patch[:at] + insert + patch[at + cut :]
    for op in v4a.parse(patch).ops:
        v4a.apply(before, op.hunks)


# --- apply_patch in a shell command ---------------------------------------------------------

PATCH = "*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # codex: lib.rs tests (test_heredoc, test_heredoc_applypatch, test_heredoc_with_leading_cd,
        # test_cd_single_quoted_path_with_spaces, test_cd_double_quoted_path_with_spaces)
        (f"apply_patch <<'PATCH'\n{PATCH}\nPATCH", (PATCH + "\n", None)),
        (f"applypatch <<'PATCH'\n{PATCH}\nPATCH", (PATCH + "\n", None)),
        (f"apply_patch <<EOF\n{PATCH}\nEOF\n", (PATCH + "\n", None)),
        (f'apply_patch <<"EOF"\n{PATCH}\nEOF\n', (PATCH + "\n", None)),
        (f"cd foo && apply_patch <<'PATCH'\n{PATCH}\nPATCH", (PATCH + "\n", "foo")),
        (f"cd 'foo bar' && apply_patch <<'PATCH'\n{PATCH}\nPATCH", (PATCH + "\n", "foo bar")),
        (f"cd \"foo bar\" && apply_patch <<'PATCH'\n{PATCH}\nPATCH", (PATCH + "\n", "foo bar")),
        # codex: test_literal (the patch as the one argument)
        (f"apply_patch '{PATCH}'", (PATCH, None)),
        (f'apply_patch "{PATCH}"', (PATCH, None)),
        # more than Codex intercepts (it would run the command, and its apply_patch with it)
        (f"cd a && cd b && apply_patch <<'PATCH'\n{PATCH}\nPATCH", (PATCH + "\n", "a/b")),
        (f"apply_patch <<'PATCH' && echo done\n{PATCH}\nPATCH", (PATCH + "\n", None)),
        (f"bash -lc \"apply_patch <<'EOF'\n{PATCH}\nEOF\n\"", (PATCH + "\n", None)),
        (f"/usr/local/bin/apply_patch <<'EOF'\n{PATCH}\nEOF", (PATCH + "\n", None)),
        (f"apply_patch <<'EOF'\n{PATCH}", (PATCH + "\n", None)),  # no terminator: to the end
        # no patch
        ("echo apply_patch", None),
        ("git apply x.patch", None),
        ('apply_patch "$PATCH"', None),
        ("grep apply_patch notes.md", None),
    ],
)
def test_patch_in_command(command: str, expected: tuple[str, str | None] | None) -> None:
    assert v4a.patch_in_command(command) == expected


def test_every_patch_of_a_command_is_found() -> None:
    command = f"apply_patch <<'A'\n{PATCH}\nA\napply_patch <<'B'\n{PATCH}\nB\n"
    assert v4a.patches_in_command(command) == [(PATCH + "\n", None)] * 2


def test_a_cd_to_an_unknown_place_leaves_the_directory_unknown() -> None:
    found = v4a.patch_in_command(f"cd \"$DIR\" && apply_patch <<'P'\n{PATCH}\nP")
    assert found == (PATCH + "\n", None)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="apply_ch<'\"EOF\n$()cd &;|\\", max_size=60))
def test_patch_in_command_never_raises(command: str) -> None:
    for patch, directory in v4a.patches_in_command("apply_patch " + command):
        assert isinstance(patch, str)
        assert directory is None or isinstance(directory, str)


def test_the_module_imports_nothing_up_front() -> None:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(v4a.__file__).read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [n.module for n in top if isinstance(n, ast.ImportFrom)] == ["__future__"]
    assert not [n for n in top if isinstance(n, ast.Import)]
