"""memoir's YAML subset (engramory/interop/memoir_yaml.py): read and write, with PyYAML as the oracle.

Tables of tricky values on both sides, hypothesis round trips (what the writer writes, PyYAML
and our reader read back unchanged; what our reader accepts, PyYAML reads the same), syntax
errors with the file's line numbers, and the hostile 1 MiB / 4 MiB inputs of
tests/test_linear_time.py's harness (``python tests/test_memoir_yaml.py NAME TMP`` is the child).
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_linear_time import Case, assert_linear_row, child_row, repeat

from engramory.interop.memoir_yaml import (
    MemoirSyntaxError,
    UnwritableValue,
    dump_frontmatter,
    parse_frontmatter,
    render_entry,
    split_entry,
    write_string,
)

yaml = pytest.importorskip("yaml")

# --- writing: each tricky string is quoted so that YAML reads it back as that string ----------

TRICKY = [
    "plain words",
    "2026-05-14",
    "2026-06-12T09:30:00Z",
    "2026-02-30",
    "42",
    "-7",
    "+1",
    "1.5",
    ".5",
    "1e3",
    "0x1F",
    "010",
    "1_000",
    "1:30",
    ".inf",
    ".NaN",
    "true",
    "False",
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "null",
    "Null",
    "~",
    "",
    "<<",
    "=",
    "- item",
    "-",
    "? key",
    ": x",
    "a: b",
    "ends with colon:",
    "a #comment",
    "#hash first",
    "a#b is fine",
    "[flow]",
    "{flow: map}",
    "]",
    ",comma",
    "&anchor",
    "*alias",
    "!tag",
    "|",
    ">",
    "%directive",
    "@at",
    "`tick`",
    " leading space",
    "trailing space ",
    "tab\tinside",
    "'single quoted'",
    '"double quoted"',
    "it's",
    'say "hi"',
    'it\'s "both" in the middle',
    "C:\\path\\new",
    "unicode é ✓ 🙂",
    "\u00a0nbsp first",
    "---",
    "...",
]


@pytest.mark.parametrize("value", TRICKY)
def test_each_tricky_string_reads_back_as_itself(value: str) -> None:
    text = dump_frontmatter({"v": value})
    assert yaml.safe_load(text) == {"v": value}
    assert parse_frontmatter(text) == {"v": value}


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("plain words", "plain words"),
        ("2026-05-14", "'2026-05-14'"),
        ("true", "'true'"),
        ("a: b", "'a: b'"),
        ("it's: here", '"it\'s: here"'),
        ('say "hi"', 'say "hi"'),
        ("", "''"),
    ],
)
def test_quoting_is_the_lightest_that_needs_no_escape(value: str, written: str) -> None:
    assert write_string(value) == written


@pytest.mark.parametrize(
    "value",
    [
        "'both' \"kinds\" needing quotes",  # starts with a quote and holds the other kind
        "a: 'b' and \"c\"",
        "'quote and \\ backslash: x",
        "line\nbreak",
        "carriage\rreturn",
        "bell\x07",
        "nel\x85",
        "ls\u2028",
    ],
)
def test_values_no_quoting_reads_the_same_in_yaml_and_memoir_cli_are_refused(value: str) -> None:
    with pytest.raises(UnwritableValue) as error:
        dump_frontmatter({"description": value})
    assert error.value.key == "description"


def test_layout_is_block_style_in_key_order() -> None:
    mapping = {
        "type": "lesson",
        "name": "note",
        "created": "2026-05-14",
        "fired_count": 3,
        "hidden": True,
        "superseded_by": None,
        "origin": {"tool": "engramory", "session_id": "abc"},
        "tags": ["a", "2026"],
    }
    assert dump_frontmatter(mapping) == (
        "type: lesson\nname: note\ncreated: '2026-05-14'\nfired_count: 3\nhidden: true\n"
        "superseded_by: null\norigin:\n  tool: engramory\n  session_id: abc\n"
        "tags:\n  - a\n  - '2026'\n"
    )
    assert yaml.safe_load(dump_frontmatter(mapping)) == mapping


@pytest.mark.parametrize(
    "mapping",
    [
        {"": "x"},
        {"a b": "x"},
        {"on": "x"},
        {"1st": "x"},
        {"x": []},
        {"x": {}},
        {"x": {"y": {"z": 1}}},
        {"x": [["y"]]},
        {"x": [{"y": 1}]},
        {"x": 1.5},
        {"x": datetime.date(2026, 1, 1)},
    ],
)
def test_what_the_subset_cannot_hold_is_refused(mapping: dict) -> None:
    with pytest.raises(UnwritableValue):
        dump_frontmatter(mapping)


def test_render_entry_is_fences_frontmatter_body() -> None:
    text = render_entry({"type": "fact", "name": "note"}, "Body\n")
    assert text == "---\ntype: fact\nname: note\n---\nBody\n"
    assert split_entry(text) == ("type: fact\nname: note\n", "Body\n", 5)


# --- reading: tricky but valid frontmatter reads as PyYAML reads it ---------------------------

READS = [
    ("a: b\n", {"a": "b"}),
    ("a: 'it''s'\n", {"a": "it's"}),
    ('a: "x \\"q\\" \\\\ \\t \\u00e9"\n', {"a": 'x "q" \\ \t é'}),
    ("a: b # comment\n", {"a": "b"}),
    ("a: 'b' # comment\n", {"a": "b"}),
    ("a: b#c\n", {"a": "b#c"}),
    ("a: x:y\n", {"a": "x:y"}),
    ("a: http://example.com/x\n", {"a": "http://example.com/x"}),
    ("a:\n", {"a": None}),
    ("a: # only a comment\n", {"a": None}),
    ("a: ~\n", {"a": None}),
    ("a: null\n", {"a": None}),
    ("a: 12\n", {"a": 12}),
    ("a: -3\n", {"a": -3}),
    ("a: true\n", {"a": True}),
    ("a: Off\n", {"a": False}),
    ("a: 2026-05-14\n", {"a": "2026-05-14"}),
    ("a: 2026-06-12T09:30:00Z\n", {"a": "2026-06-12T09:30:00Z"}),
    ("a: 1.5\n", {"a": "1.5"}),
    ("a: 010\n", {"a": "010"}),
    ("a: -x\n", {"a": "-x"}),
    ("a:   spaced   \n", {"a": "spaced"}),
    ("a: b\r\nc: d\r\n", {"a": "b", "c": "d"}),
    ("# comment\n\na: b\n", {"a": "b"}),
    ("o:\n  tool: x\n  session_id: 'y'\nz: 1\n", {"o": {"tool": "x", "session_id": "y"}, "z": 1}),
    ("o:\n    tool: x\n", {"o": {"tool": "x"}}),
    ("o:\n  tool:\n", {"o": {"tool": None}}),
    ("t:\n  - a\n  - 'b c'\n  - 3\n", {"t": ["a", "b c", 3]}),
    ("t:\n- a\n- b\nz: 1\n", {"t": ["a", "b"], "z": 1}),
    ("t:\n  - a\n  # comment\n\n  - b\n", {"t": ["a", "b"]}),
    (
        "originSessionId: abc\nmetadata:\n  type: user\n",
        {"originSessionId": "abc", "metadata": {"type": "user"}},
    ),
    ("", {}),
]


@pytest.mark.parametrize(("text", "expected"), READS)
def test_reads_the_subset_as_yaml_does(text: str, expected: dict) -> None:
    assert parse_frontmatter(text) == expected
    assert _agrees(expected, yaml.safe_load(text) or {})


@pytest.mark.parametrize(
    ("text", "expected"), [r for r in READS if "2026" in r[0] or "1.5" in r[0] or "010" in r[0]]
)
def test_dates_and_odd_numbers_stay_their_text(text: str, expected: dict) -> None:
    value = parse_frontmatter(text)["a"]
    assert isinstance(value, str)
    assert value == text.split(": ", 1)[1].strip()


# --- syntax errors name the line in the file ------------------------------------------------

ERRORS = [
    ("a: b\nc: [1, 2]\n", 3),
    ("a: {b: c}\n", 2),
    ("a: |\n  text\n", 2),
    ("a: >\n  text\n", 2),
    ("a: &x 1\n", 2),
    ("a: *x\n", 2),
    ("a: !!str 1\n", 2),
    ("a: b: c\n", 2),
    ("a: ends:\n", 2),
    ("a: b\n  continued\n", 3),
    ("a:\n  b:\n    c: 1\n", 4),
    ("a:\n  b:\n  - c\n", 4),
    ("a:\n  - - x\n", 3),
    ("a:\n  - k: v\n", 3),
    ("a:\n  - x\n    y\n", 4),
    ("a:\n  b: 1\n   c: 2\n", 4),
    ("a: 1\nb: 2\na: 3\n", 4),
    ("a:\n  b: 1\n  b: 2\n", 4),
    ("\ta: 1\n", 2),
    ("  a: 1\n", 2),
    ("a 1\n", 2),
    ("'a': 1\n", 2),
    ("? a\n", 2),
    ("yes: 1\n", 2),
    ("a:b\n", 2),
    ('a: "unclosed\n', 2),
    ("a: 'unclosed\n", 2),
    ('a: "bad \\q escape"\n', 2),
    ('a: "bad \\x4 escape"\n', 2),
    ("a: 'x' y\n", 2),
    ("a: ,x\n", 2),
    ("...\n", 2),
]


@pytest.mark.parametrize(("text", "line"), ERRORS)
def test_syntax_errors_name_the_line(text: str, line: int) -> None:
    with pytest.raises(MemoirSyntaxError) as error:
        parse_frontmatter(text)
    assert error.value.line == line
    assert str(error.value).startswith(f"line {line}: ")


def test_error_lines_count_from_the_file_through_split_entry() -> None:
    front, _body, _line = split_entry("---\ntype: fact\nname: x\nbad line\n---\nbody\n")
    with pytest.raises(MemoirSyntaxError) as error:
        parse_frontmatter(front)
    assert error.value.line == 4
    with pytest.raises(MemoirSyntaxError) as error:
        parse_frontmatter("x: [1]\n", first_line=10)
    assert error.value.line == 10


def test_errors_never_echo_a_huge_value() -> None:
    with pytest.raises(MemoirSyntaxError) as error:
        parse_frontmatter("a: [" + "x" * 100_000 + "\n")
    assert len(str(error.value)) < 400


# --- splitting an entry ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no frontmatter\n", (None, "no frontmatter\n", 1)),
        ("", (None, "", 1)),
        ("\n---\na: b\n---\n", (None, "\n---\na: b\n---\n", 1)),
        ("---\na: b\n---\nbody", ("a: b\n", "body", 4)),
        ("---\r\na: b\r\n---\r\nbody\r\n", ("a: b\r\n", "body\r\n", 4)),
        ("---  \na: b\n--- \t\n", ("a: b\n", "", 4)),
        ("---\n---\n", ("", "", 3)),
        ("---\n---", ("", "", 3)),
        ("\ufeff---\na: b\n---\nx\n", ("a: b\n", "x\n", 4)),
        ("---\na: '---'\n----\n ---\n---\n", ("a: '---'\n----\n ---\n", "", 6)),
    ],
)
def test_split_entry(text: str, expected: tuple) -> None:
    assert split_entry(text) == expected


@pytest.mark.parametrize("text", ["---\n", "---", "---\na: b\n", "---\na: b\n...\n"])
def test_unclosed_frontmatter_is_an_error_on_line_1(text: str) -> None:
    with pytest.raises(MemoirSyntaxError) as error:
        split_entry(text)
    assert error.value.line == 1


# --- properties ---------------------------------------------------------------------------

BOOLISH = {"yes", "no", "true", "false", "on", "off", "null"}
KEYS = st.from_regex(r"[a-z_][a-zA-Z0-9_.-]{0,10}", fullmatch=True).filter(
    lambda k: k.lower() not in BOOLISH
)
TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(" '\"\\:#-?,[]{}&*!|>%@`~<=.+0123456789eEtfyn\t")),
        st.characters(),
    ),
    max_size=20,
)
DATEISH = st.dates().map(str) | st.datetimes().map(lambda d: d.isoformat())
SCALARS = st.one_of(TEXT, DATEISH, st.integers(), st.booleans(), st.none())
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, min_size=1, max_size=4),
    st.dictionaries(KEYS, SCALARS, min_size=1, max_size=4),
)
MAPPINGS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=6)


@settings(max_examples=1000, deadline=None)
@given(MAPPINGS)
def test_what_is_written_reads_back_unchanged_in_yaml_and_here(mapping: dict) -> None:
    try:
        text = dump_frontmatter(mapping)
    except UnwritableValue:
        assume(False)
    assert yaml.safe_load(text) == mapping
    assert parse_frontmatter(text) == mapping
    front, body, _line = split_entry(render_entry(mapping, "b\n"))
    assert (parse_frontmatter(front), body) == (mapping, "b\n")


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_only_strings_both_readers_could_not_share_are_refused(value: str) -> None:
    try:
        written = write_string(value)
    except UnwritableValue:
        breaks = any(ch in value for ch in "\r\n\x85\u2028\u2029") or any(
            (ord(ch) < 0x20 and ch != "\t")
            or 0x7F <= ord(ch) < 0xA0
            or 0xD800 <= ord(ch) <= 0xDFFF
            or ord(ch) in (0xFFFE, 0xFFFF)
            for ch in value
        )
        assert breaks or ("'" in value and ('"' in value or "\\" in value))
        return
    # memoir-cli strips one pair of quotes and unescapes nothing: it must read the same text.
    if written[:1] in "'\"" and written != value:
        assert written[1:-1] == value


def _agrees(ours: object, theirs: object) -> bool:
    """Whether our reading matches PyYAML's, where the subset keeps text PyYAML converts."""
    if isinstance(ours, dict):
        return (
            isinstance(theirs, dict)
            and ours.keys() == theirs.keys()
            and all(_agrees(ours[k], theirs[k]) for k in ours)
        )
    if isinstance(ours, list):
        return (
            isinstance(theirs, list)
            and len(ours) == len(theirs)
            and all(_agrees(a, b) for a, b in zip(ours, theirs))
        )
    if (
        isinstance(ours, str)
        and isinstance(theirs, (datetime.date, float, int))
        and not isinstance(theirs, bool)
    ):
        return True  # a date, float or non-decimal int the subset keeps as its text
    return type(ours) is type(theirs) and ours == theirs


LINE_PARTS = st.sampled_from(
    [
        "a",
        "b",
        "k",
        ":",
        ": ",
        " ",
        "  ",
        "-",
        "- ",
        "#",
        " #",
        "'",
        "''",
        '"',
        "\\",
        "\\n",
        "x",
        "1",
        "2026-01-02",
        "true",
        "null",
        "~",
        "[",
        "]",
        "{",
        "}",
        "|",
        ">",
        "&",
        "*",
        "!",
        "\n",
        "\n  ",
        "\n- ",
        "\t",
        "é",
        ",",
    ]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(LINE_PARTS, max_size=16).map("".join))
def test_whatever_we_accept_pyyaml_reads_the_same(text: str) -> None:
    try:
        ours = parse_frontmatter(text)
    except MemoirSyntaxError:
        return
    try:
        theirs = yaml.safe_load(text)
    except yaml.YAMLError:
        # The one leniency: a tab between tokens (after a colon, a dash, before a comment, at
        # a line's end, on a blank line) separates like a space here; PyYAML rejects it.
        assert "\t" in text
        return
    if not ours:
        assert theirs in (None, {})
        return
    assert _agrees(ours, theirs), (ours, theirs)


# --- linear time --------------------------------------------------------------------------


def parsed(text: str, tmp: Path) -> object:
    try:
        front, _body, line = split_entry(text)
        return parse_frontmatter(front or "", line)
    except MemoirSyntaxError as error:
        return error.line


def written(text: str, tmp: Path) -> object:
    try:
        return len(dump_frontmatter({"v": text}))
    except UnwritableValue:
        return 0


CASES: list[Case] = [
    Case(
        "memoir: many keys",
        lambda n: repeat("kkkkkkkk: v\n", n, "---\n", "---\n").replace("kkkkkkkk", "k", 1),
        parsed,
    ),
    Case("memoir: a long list", lambda n: repeat("  - item\n", n, "---\nt:\n", "---\n"), parsed),
    Case(
        "memoir: a long nested mapping",
        lambda n: repeat("  kk: v\n", n, "---\nm:\n", "---\n"),
        parsed,
    ),
    Case(
        "memoir: quotes doubled in a single-quoted value",
        lambda n: repeat("''", n, "---\na: '", "'\n---\n"),
        parsed,
    ),
    Case(
        "memoir: escapes in a double-quoted value",
        lambda n: repeat('\\"', n, '---\na: "', '"\n---\n'),
        parsed,
    ),
    Case(
        "memoir: an unclosed double-quoted value",
        lambda n: repeat("\\\\", n, '---\na: "', "\n---\n"),
        parsed,
    ),
    Case(
        "memoir: a plain value of ': ' near misses",
        lambda n: repeat(":x #", n, "---\na: ", "\n---\n"),
        parsed,
    ),
    Case("memoir: no closing fence", lambda n: repeat("a\n", n, "---\n"), parsed),
    Case("memoir: fence near misses", lambda n: repeat("--- x\n", n, "---\n"), parsed),
    Case("memoir: one huge key", lambda n: repeat("k", n, "---\n", ": v\n---\n"), parsed),
    Case("memoir: writing a value of both quote kinds", lambda n: repeat("'\"", n), written),
    Case("memoir: writing a long plain value", lambda n: repeat("ab ", n), written),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_time_grows_linearly(case: Case, tmp_path: Path) -> None:
    assert_linear_row(__file__, case, tmp_path)


if __name__ == "__main__":
    child_row(CASES, sys.argv[1], sys.argv[2])
