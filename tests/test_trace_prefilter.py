"""The raw-bytes prefilter never changes a search's result (issue 15).

The prefiltered search parses only lines whose bytes hold the query's needle;
the oracle parses every line. On random transcripts of both hosts, written compact or with every
non-ASCII character escaped, with texts full of quotes, backslashes, control
characters, non-ASCII letters and case variants, both must return the same hits.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.trace.lines import ReadStats
from engramory.trace.model import SessionFile
from engramory.trace.search import Filters, Query, needle, search

ALPHABET = [
    *"abAB xy\"\\/'<>\n\t",
    '"q"',
    "C:\\p",
    "\\n",
    "\x1b",
    "\u2028",
    "é",
    "É",
    "ß",
    "ẞ",
    "ſ",
    "\u212a",
    "k",
    "ﬁ",
    "fi",
    "İ",
    "i",
    "\u0307",
]
TEXTS = st.lists(st.sampled_from(ALPHABET), max_size=12).map("".join)
KINDS = (
    "claude-user",
    "claude-user-blocks",
    "claude-assistant",
    "claude-tool-use",
    "claude-tool-result",
    "claude-queued",
    "codex-user",
    "codex-agent",
    "codex-call",
    "codex-output",
    "codex-copy",
)


def claude_record(kind: str, value: str, index: int) -> dict:
    base = {
        "uuid": f"u{index % 7}",
        "cwd": "/p",
        "sessionId": "s",
        "timestamp": f"2026-07-01T10:00:{index % 60:02d}Z",
    }
    if kind == "claude-user":
        return {**base, "type": "user", "message": {"role": "user", "content": value}}
    if kind == "claude-user-blocks":
        blocks = [{"type": "text", "text": value}, {"type": "text", "text": value[::-1]}]
        return {**base, "type": "user", "message": {"role": "user", "content": blocks}}
    if kind == "claude-assistant":
        blocks = [{"type": "thinking", "thinking": value}, {"type": "text", "text": value}]
        return {**base, "type": "assistant", "message": {"role": "assistant", "content": blocks}}
    if kind == "claude-tool-use":
        block = {
            "type": "tool_use",
            "id": f"t{index}",
            "name": "Bash",
            "input": {"command": value, "n": [value, 1]},
        }
        return {**base, "type": "assistant", "message": {"role": "assistant", "content": [block]}}
    if kind == "claude-tool-result":
        block = {
            "type": "tool_result",
            "tool_use_id": f"t{index - 1}",
            "content": [{"type": "text", "text": value}],
        }
        return {
            **base,
            "type": "user",
            "message": {"role": "user", "content": [block]},
            "toolUseResult": {"stdout": value},
        }
    attachment = {"type": "queued_command", "prompt": value}
    return {**base, "type": "attachment", "attachment": attachment}


def codex_record(kind: str, value: str, index: int) -> dict:
    ts = f"2026-07-01T11:00:{index % 60:02d}Z"
    if kind == "codex-user":
        payload = {"type": "user_message", "message": value}
        return {"timestamp": ts, "type": "event_msg", "payload": payload}
    if kind == "codex-agent":
        payload = {"type": "agent_message", "message": value}
        return {"timestamp": ts, "type": "event_msg", "payload": payload}
    if kind == "codex-call":
        arguments = json.dumps({"command": ["bash", "-lc", value]}, ensure_ascii=index % 2 == 0)
        payload = {
            "type": "function_call",
            "name": "shell",
            "call_id": f"c{index}",
            "arguments": arguments,
        }
    elif kind == "codex-output":
        payload = {"type": "function_call_output", "call_id": f"c{index - 1}", "output": value}
    else:
        payload = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": value}],
        }
    return {"timestamp": ts, "type": "response_item", "payload": payload}


@st.composite
def transcripts(draw):
    said = draw(st.lists(st.tuples(st.sampled_from(KINDS), TEXTS), min_size=1, max_size=12))
    ascii_only = draw(st.booleans())
    spaced = draw(st.booleans())
    separators = (", ", ": ") if spaced else (",", ":")
    claude_lines, codex_lines = [], []
    for index, (kind, value) in enumerate(said):
        if kind.startswith("claude"):
            claude_lines.append(
                json.dumps(
                    claude_record(kind, value, index),
                    ensure_ascii=ascii_only,
                    separators=separators,
                )
            )
        else:
            codex_lines.append(
                json.dumps(
                    codex_record(kind, value, index), ensure_ascii=ascii_only, separators=separators
                )
            )
    texts = [value for _, value in said]
    return claude_lines, codex_lines, texts


def variant(text: str, how: int) -> str:
    return (text, text.upper(), text.lower(), text.casefold(), text.swapcase())[how % 5]


@st.composite
def queries(draw, texts: list[str]):
    words = []
    for _ in range(draw(st.integers(1, 2))):
        if texts and draw(st.booleans()):
            source = draw(st.sampled_from(texts))
            start = draw(st.integers(0, max(0, len(source) - 1)))
            end = draw(st.integers(start + 1, max(start + 1, len(source))))
            word = variant(source[start:end], draw(st.integers(0, 4)))
        else:
            word = draw(TEXTS)
        words.append(word or "a")
    return words


def _files(folder: Path, claude_lines: list[str], codex_lines: list[str]) -> list[SessionFile]:
    claude_path = folder / "s.jsonl"
    codex_path = folder / "rollout-x.jsonl"
    claude_path.write_text("\n".join(claude_lines) + "\n", "utf-8")
    codex_path.write_text("\n".join(codex_lines) + "\n", "utf-8")
    return [
        SessionFile("claude", "s", str(claude_path), "/p"),
        SessionFile("codex", "x", str(codex_path), "/p"),
    ]


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_prefiltered_search_finds_exactly_what_parsing_every_line_finds(data) -> None:
    claude_lines, codex_lines, texts = data.draw(transcripts())
    words = data.draw(queries(texts))
    tools = data.draw(st.booleans())
    case_sensitive = data.draw(st.booleans())
    query = Query(words, case_sensitive=case_sensitive)
    with tempfile.TemporaryDirectory() as folder:
        files = _files(Path(folder), claude_lines, codex_lines)
        fast = search(files, query, tools, Filters(), ReadStats(), prefilter=True)
        oracle = search(files, query, tools, Filters(), ReadStats(), prefilter=False)
    assert fast == oracle


def test_characters_that_fold_into_plain_ascii_fold_like_any_letter() -> None:
    """``strasse`` finds ``straße`` (and ``STRASSE`` does too); the Kelvin sign, long s and
    ligatures fold to their ASCII letters; other letters fold as before."""
    assert Query(["strasse"]).matches("Straße") and Query(["STRASSE"]).matches("straße")
    assert Query(["STRAẞE"]).matches("straße") and Query(["straße"]).matches("STRASSE")
    assert Query(["CAFÉ"]).matches("un café") and Query(["ΣΊΣΥΦΟΣ"]).matches("σίσυφος")
    assert Query(["kelvin"]).matches("\u212aelvin") and Query(["fit"]).matches("\ufb01t")
    assert Query(["ast"]).matches("a\ufb06") and Query(["sun"]).matches("\u017fun")
    assert not Query(["strasse"], case_sensitive=True).matches("straße")


def test_characters_whose_folding_mixes_ascii_match_only_themselves() -> None:
    assert not Query(["i"]).matches("\u0130") and Query(["\u0130x"]).matches("\u0130X")


def test_the_lists_of_characters_that_fold_into_ascii_are_complete() -> None:
    from engramory.trace.search import FOLDS_TO_MIXED_ASCII, FOLDS_TO_PLAIN_ASCII

    plain, mixed = [], []
    for code in range(0x80, 0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        folded = chr(code).casefold()
        if folded.isascii():
            plain.append(chr(code))
        elif any(ord(c) < 0x80 for c in folded):
            mixed.append(chr(code))
    assert "".join(plain) == FOLDS_TO_PLAIN_ASCII
    assert "".join(mixed) == FOLDS_TO_MIXED_ASCII


def test_a_needle_a_folding_can_touch_is_searched_by_its_untouched_piece() -> None:
    from engramory.trace.search import untouched_run

    assert untouched_run(b"kestrelwing") == b"relwing"  # k, s and st can come from K, ſ, ﬆ
    assert untouched_run(b"deprecated") == b"deprecated"
    assert untouched_run(b"strasse") == b"ra"
    select = Query(["KESTRELWING"]).selector()
    assert select is not None
    block = '{"t":"\u212aestrelwing"}\n{"t":"nothing"}\n{"t":"kestrelwing"}\n'.encode()
    assert select(block) == [12, 48]  # where "relwing" is in the first and third lines


def test_the_folding_prefilter_picks_lines_only_for_needles_a_folding_can_make() -> None:
    from engramory.trace.search import folding_markers

    assert folding_markers(b"strasse") and b"\xc3\x9f" in folding_markers(b"strasse")
    assert b"\\u00df" in folding_markers(b"strasse")
    assert folding_markers(b"parquet") == []  # no s, k, f, i, l or t: nothing to add
    select = Query(["strasse"]).selector()
    assert select is not None
    block = '{"t":"Stra\u00dfe"}\n{"t":"other"}\n{"t":"STRA\\u00DFE"}\n'.encode()
    assert select(block) == [10, 40]  # the UTF-8 form, then the escaped one


def test_needles_are_the_json_form_of_the_longest_plain_run() -> None:
    assert needle('say "hi"') == b'say \\"hi\\"'
    assert needle("C:\\path") == b"C:\\\\path"
    assert needle("café au lait") == b" au lait"
    assert needle("é") == b""
    assert needle("a\nlonger") == b"longer"
    assert needle("<command-name>") == b"command-name"
    assert Query(["é"]).needle() is None
    assert Query(["ABC"]).needle() == b"abc"
    assert Query(["ABC"], case_sensitive=True).needle() == b"ABC"
    assert Query(["x"], regex=True).needle() is None


def test_a_needle_without_letters_is_found_without_lower_casing() -> None:
    select = Query(["2026-07"]).selector()
    assert select is not None
    assert select(b'{"a":"X"}\n{"t":"2026-07-01"}\n') == [16]
