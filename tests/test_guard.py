"""The index guard: decision table (research §5.5), edit simulation, the Claude Code adapter."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.caps import Caps, Measurement, utf8_size
from engramory.guard import decision as guard
from engramory.guard import edits
from engramory.hosts import claude

CAPS = Caps()


def lines(n: int, width: int = 1) -> str:
    return ("x" * width + "\n") * n


def ask(payload: dict, env: dict | None = None) -> dict | None:
    """Run the adapter in-process, as the hook would; returns the printed JSON (or None)."""
    text = claude.answer([], json.dumps(payload).encode(), env or {})
    return json.loads(text) if text else None


def write(path: Path, content: str) -> dict:
    return {"tool_name": "Write", "tool_input": {"file_path": str(path), "content": content}}


def edit(path: Path, old: str, new: str, replace_all: object = None) -> dict:
    tool_input = {"file_path": str(path), "old_string": old, "new_string": new}
    if replace_all is not None:
        tool_input["replace_all"] = replace_all
    return {"tool_name": "Edit", "tool_input": tool_input}


def decision(output: dict | None) -> str:
    if output is None:
        return "silent"
    inner = output["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse"
    assert inner.get("permissionDecision") in (None, "deny")  # never allow, never ask
    return "deny" if inner.get("permissionDecision") == "deny" else "nudge"


# --- the decision table --------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "expected"), [(150, "silent"), (151, "nudge"), (200, "nudge"), (201, "deny")]
)
def test_line_boundaries_for_a_new_index(tmp_path: Path, count: int, expected: str) -> None:
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(count)))) == expected


def test_two_hundred_lines_plus_an_empty_line_is_201(tmp_path: Path) -> None:
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(200) + "\n"))) == "deny"


@pytest.mark.parametrize(
    ("size", "expected"), [(20480, "silent"), (20481, "nudge"), (25000, "nudge"), (25001, "deny")]
)
def test_byte_boundaries(tmp_path: Path, size: int, expected: str) -> None:
    content = "y" * (size - 1) + "\n"
    assert decision(ask(write(tmp_path / "MEMORY.md", content))) == expected


def test_growth_on_an_over_cap_index_is_denied_and_named(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(210))
    output = ask(edit(index, "x\n", "x\nmore\n", True))
    assert decision(output) == "deny"
    reason = output["hookSpecificOutput"]["permissionDecisionReason"]
    assert "from 210 lines / 420 B to 420 lines / 1.4 KB" in reason
    assert "lines (420 > 200)" in reason
    assert "bytes (" not in reason
    assert "ENGRAMORY_INDEX_PATH" in reason and "archive" in reason and "shrink" in reason


def test_shrinking_lines_while_bytes_grow_under_their_cap_is_allowed(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(210))
    content = lines(205, width=3)  # fewer lines, more bytes, bytes still under the cap
    assert decision(ask(write(index, content))) == "nudge"


def test_both_over_lines_shrink_bytes_grow_denies_naming_bytes_only(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(260, width=120))  # 260 lines, 31,460 bytes
    output = ask(write(index, lines(250, width=130)))  # 250 lines, 32,750 bytes
    assert decision(output) == "deny"
    reason = output["hookSpecificOutput"]["permissionDecisionReason"]
    assert "bytes (32750 > 25000)" in reason and "lines (" not in reason


@pytest.mark.parametrize(
    "payload_for",
    [
        lambda p: write(p, lines(210)),  # identical rewrite
        lambda p: edit(p, "absent text", "more\n" * 50),  # no match: the tool would fail
        lambda p: edit(p, "x\n", "y\n" * 50),  # several matches without replace_all
        lambda p: edit(p, "", "grow\n" * 50),  # empty old_string
        lambda p: edit(p, "x\n", "z\n", True),  # same size
        lambda p: edit(p, "x\n", "", True),  # shrinking to nothing
    ],
)
def test_over_cap_index_edits_that_do_not_grow_pass_with_a_nudge(
    tmp_path: Path, payload_for
) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(210))
    output = ask(payload_for(index))
    assert decision(output) in ("nudge", "silent")
    if output is not None:
        assert "does not grow it" in output["hookSpecificOutput"]["additionalContext"]


def test_replace_all_only_when_json_true(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(150))
    grow = "x\n" + "y\n"
    assert decision(ask(edit(index, "x\n", grow, True))) == "deny"
    for not_true in ("true", "false", 1, None):
        assert decision(ask(edit(index, "x\n", grow, not_true))) == "silent"  # several matches


def test_chained_multiedit_sees_each_previous_result(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("L\n" * 150)
    payload = {
        "tool_name": "MultiEdit",
        "tool_input": {
            "file_path": str(index),
            "edits": [
                {"old_string": "L", "new_string": "Q", "replace_all": True},
                {"old_string": "Q", "new_string": "Q\nQ", "replace_all": True},
            ],
        },
    }
    assert decision(ask(payload)) == "deny"  # the second edit only matches the first one's output


def test_multiedit_with_failing_sub_edits_changes_nothing(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(10))
    payload = {
        "tool_name": "MultiEdit",
        "tool_input": {
            "file_path": str(index),
            "edits": [{"old_string": "nope", "new_string": "a\n" * 500}, "junk", {"old_string": 3}],
        },
    }
    assert decision(ask(payload)) == "silent"


def test_unreadable_index_is_never_denied(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.mkdir()  # exists, cannot be read as a file
    for payload in (write(index, lines(500)), edit(index, "a", "b" * 100000, True)):
        output = ask(payload)
        assert decision(output) == "nudge"
        assert "NOT checked" in output["hookSpecificOutput"]["additionalContext"]


def test_index_past_the_read_bound_is_not_verified(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    with index.open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)
    assert decision(ask(edit(index, "a", "b"))) == "nudge"


def test_write_without_content_cannot_be_predicted(tmp_path: Path) -> None:
    payload = {"tool_name": "Write", "tool_input": {"file_path": str(tmp_path / "MEMORY.md")}}
    assert decision(ask(payload)) == "nudge"


def test_continue_write_uses_filepath(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Write",
        "tool_input": {"filepath": str(tmp_path / "MEMORY.md"), "content": lines(250)},
    }
    assert decision(ask(payload)) == "deny"


def test_non_utf8_index_edit_that_does_not_grow_is_not_denied(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    raw = (b"- [caf\xe9](cafe.md)\n" * 1250)[:25590]  # invalid UTF-8, just under the byte cap
    index.write_bytes(raw)
    assert decision(ask(edit(index, "cafe.md", "cafX.md", True))) != "deny"  # same size


def test_non_utf8_index_growth_is_still_gated(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_bytes(b"\xff\xfe bad bytes\n" * 10)
    assert decision(ask(write(index, lines(300)))) == "deny"


def test_relative_path_resolves_against_payload_cwd(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(210))
    payload = edit(Path("MEMORY.md"), "x\n", "x\nmore\n", True)
    payload["cwd"] = str(tmp_path)
    assert decision(ask(payload)) == "deny"


# --- which file is the index ----------------------------------------------------------


def test_other_files_are_silent(tmp_path: Path) -> None:
    assert ask(write(tmp_path / "notes.md", lines(1000))) is None


def test_index_name_is_case_insensitive(tmp_path: Path) -> None:
    assert decision(ask(write(tmp_path / "memory.md", lines(300)))) == "deny"


def test_index_name_setting(tmp_path: Path) -> None:
    env = {"ENGRAMORY_INDEX_NAME": "INDEX.md"}
    assert decision(ask(write(tmp_path / "index.md", lines(300)), env)) == "deny"
    assert ask(write(tmp_path / "MEMORY.md", lines(300)), env) is None


def test_empty_index_name_means_the_default_not_off(tmp_path: Path) -> None:
    env = {"ENGRAMORY_INDEX_NAME": ""}
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(300)), env)) == "deny"


def test_index_path_pins_one_file_through_symlinks(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    index = store / "MEMORY.md"
    index.write_text(lines(10))
    alias = tmp_path / "alias.md"
    alias.symlink_to(index)
    env = {"ENGRAMORY_INDEX_PATH": str(index)}
    assert decision(ask(write(alias, lines(300)), env)) == "deny"
    assert decision(ask(write(store / "sub" / ".." / "MEMORY.md", lines(300)), env)) == "deny"
    assert ask(write(tmp_path / "other" / "MEMORY.md", lines(300)), env) is None


# --- malformed and hostile payloads ---------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json MEMORY.md",
        b'[1, 2, "MEMORY.md"]',
        b'"MEMORY.md"',
        b"null",
        b'{"tool_name": "Write", "tool_input": "MEMORY.md"}',
        b'{"tool_name": "Write", "tool_input": {"file_path": 7, "content": "MEMORY.md"}}',
        b'{"tool_name": "Write", "tool_input": {"file_path": "MEMORY.md", "content": 42}}',
        b'{"tool_name": "MultiEdit", "tool_input": {"file_path": "MEMORY.md", "edits": {"a": 1}}}',
        b'{"tool_name": "Bash", "tool_input": {"command": ["echo", "> MEMORY.md"]}}',
        b"\xff\xfe MEMORY.md garbage",
    ],
)
def test_malformed_payloads_are_silent_or_unverified(
    raw: bytes, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = claude.answer([], raw, {})
    if text:
        assert decision(json.loads(text)) == "nudge"  # never a deny on a guess


def test_deeply_nested_payload_is_silent() -> None:
    raw = b'{"tool_name": "Write", "x": ' + b"[" * 100000 + b"]" * 100000 + b', "f": "MEMORY.md"}'
    assert claude.answer([], raw, {}) == ""


def test_huge_content_is_handled(tmp_path: Path) -> None:
    payload = write(tmp_path / "MEMORY.md", "z" * (50 * 1024 * 1024))
    assert decision(ask(payload)) == "deny"


def test_prefilter_skips_json_for_unrelated_payloads() -> None:
    raw = json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": "/x/a.py", "content": "x"}}
    ).encode()
    assert not claude.may_concern_index(raw, {})
    assert claude.may_concern_index(raw.replace(b"a.py", b"MEMORY.md"), {})
    escaped = raw.replace(b"a.py", b"MEMORY\\u002emd")
    assert claude.may_concern_index(escaped, {})
    # a known index: the edit target is compared by identity (one stat), not parsed
    assert not claude.may_concern_index(raw, {"ENGRAMORY_INDEX_PATH": "/x/MEMORY.md"})


def bash(command: str, cwd: str = "/w") -> bytes:
    return json.dumps(
        {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": cwd}
    ).encode()


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> MEM*.md",  # issue 10 item 1: the name is not in the bytes
        "F=MEMORY; echo x >> $F.md",
        "echo x >> 'MEMORY'.md",
        'echo x >> MEM""ORY.md',
        "echo x >> MEMORY\\.md",
        "echo x >> MEM\\\nORY.md",
        "t'e'e MEM*.md",
        "\\tee MEM*.md",
        "python3 -c \"open('MEM' 'ORY.md', 'a')\"",
        "cat $'\\x4dEMORY.md'",
        "x=`ls`",
        ". /dev/stdin",
    ],
)
def test_a_shell_command_that_may_write_is_parsed(command: str) -> None:
    assert claude.may_concern_index(bash(command), {})


@pytest.mark.parametrize(
    "command", ["cat MEMORY.md", "grep -n x MEMORY.md | head", "ls -la", "pytest -q tests/"]
)
def test_a_read_only_shell_command_stays_on_the_fast_path(command: str) -> None:
    assert not claude.may_concern_index(bash(command), {})


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> MEM*.md",  # a glob: the folder holds MEMORY.md
        "F=MEMORY; echo x >> $F.md",
        "echo x >> 'MEMORY'.md",
        'echo x >> MEM""ORY.md',
        "echo x >> MEMORY\\.md",
        "echo x >> MEM\\\nORY.md",
    ],
)
def test_issue_10_item_1_catches_hold_through_the_hook(tmp_path: Path, command: str) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    payload = bash(command, str(tmp_path))
    assert claude.answer([], payload, {}) != ""
    output = json.loads(claude.answer([], payload, {}))
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_an_alias_of_the_index_is_the_index(tmp_path: Path) -> None:
    store = tmp_path / ".engramory-memory"
    store.mkdir()
    index = store / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    os.link(index, tmp_path / "hard.md")
    flags = ["--index", str(index)]
    for alias in ("notes.md", "hard.md"):
        payload = write(tmp_path / alias, lines(300))
        payload["cwd"] = str(tmp_path)
        assert decision(ask_with(flags, payload)) == "deny", alias
        assert ask_with([], payload) is None  # without --index, only the name is known
        shell = json.loads(bash(f"echo x >> {alias}", str(tmp_path)))
        assert decision(ask_with(flags, shell)) == "deny", alias
    # ENGRAMORY_INDEX_PATH: that file only, by identity, and no other MEMORY.md
    pinned = {"ENGRAMORY_INDEX_PATH": str(index)}
    assert decision(ask(write(tmp_path / "hard.md", lines(300)), pinned)) == "deny"
    assert ask(write(tmp_path / "MEMORY.md", lines(300)), pinned) is None
    # with --index the name rule stays on (other stores)
    assert decision(ask_with(flags, write(tmp_path / "x" / "MEMORY.md", lines(300)))) == "deny"


def ask_with(argv: list[str], payload: dict, env: dict | None = None) -> dict | None:
    text = claude.answer(argv, json.dumps(payload).encode(), env or {})
    return json.loads(text) if text else None


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    head = json.dumps({"tool_name": "Write", "cwd": str(tmp_path)})[:-1]
    filler = b"x" * (claude.PAYLOAD_LIMIT + 10)

    def payload(path: str) -> bytes:
        start = head.encode() + b', "tool_input": {"file_path": ' + json.dumps(path).encode()
        return start + b', "content": "' + filler + b'"}}'

    denied = json.loads(claude.answer([], payload(str(index)), {}))
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "too large to check" in reason
    assert claude.answer([], payload(str(tmp_path / "app.py")), {}) == ""
    alias = tmp_path / "alias.md"
    alias.symlink_to(index)
    assert claude.answer(["--index", str(index)], payload(str(alias)), {}) != ""


def test_json_string_ignores_keys_inside_values() -> None:
    raw = b'{"content": "say \\"file_path\\": \\"MEMORY.md\\"", "file_path": "a\\\\"}'
    assert claude.json_string(raw, b"file_path") == b"a\\\\"
    assert claude.json_string(b'{"file_path": 5}', b"file_path") is None
    assert claude.json_string(b'{"file_path": "unterminated', b"file_path") is None


# --- PostToolUse --------------------------------------------------------------------------


def test_post_event_blocks_when_over_the_hard_cap(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(230))
    text = claude.answer(["--event", "post", "--index", str(index)], b"{}", {})
    output = json.loads(text)
    assert output["decision"] == "block" and "lines (230 > 200)" in output["reason"]


def test_post_event_on_a_huge_index_reports_bytes_without_reading(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    with index.open("wb") as handle:
        handle.truncate(10 * 1024 * 1024)
    output = json.loads(claude.answer(["--event", "post", "--index", str(index)], b"{}", {}))
    assert "bytes (10485760 > 25000)" in output["reason"]


@pytest.mark.parametrize("count", [0, 150, 200])
def test_post_event_is_silent_within_the_cap(tmp_path: Path, count: int) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(count))
    assert claude.answer(["--event", "post", "--index", str(index)], b"{}", {}) == ""


def test_post_event_without_an_index_does_nothing(tmp_path: Path) -> None:
    assert claude.answer(["--event", "post"], b"{}", {}) == ""
    assert claude.answer(["--event", "post", "--index", str(tmp_path / "none.md")], b"", {}) == ""


def test_post_event_uses_index_path_setting(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(230))
    assert claude.answer(["--event=post"], b"", {"ENGRAMORY_INDEX_PATH": str(index)}) != ""


# --- the core, directly ---------------------------------------------------------------------


def test_decide_counts_a_missing_index_as_empty() -> None:
    assert guard.decide(None, Measurement(201, 500), CAPS).kind == "deny"
    assert guard.decide(None, Measurement(200, 500), CAPS).kind == "nudge"


def test_decide_same_size_over_cap_is_a_nudge() -> None:
    assert guard.decide(Measurement(300, 100), Measurement(300, 100), CAPS).kind == "nudge"


def test_caps_come_from_the_environment(tmp_path: Path) -> None:
    env = {"ENGRAMORY_HARD": "20", "ENGRAMORY_WARN": "10"}
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(21)), env)) == "deny"
    env = {"ENGRAMORY_HARD": "junk"}
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(21)), env)) == "silent"


# --- edit simulation properties ------------------------------------------------------------

texts = st.text(st.sampled_from("ab\n"), max_size=30)


@settings(max_examples=300)
@given(texts, texts, texts)
def test_edit_without_replace_all_applies_only_to_a_unique_match(
    text: str, old: str, new: str
) -> None:
    result = edits.apply_edit(text, old, new)
    if old and text.count(old) == 1:
        assert result == text.replace(old, new, 1)
    else:
        assert result == text


@settings(max_examples=300)
@given(texts, texts, texts)
def test_replace_all_replaces_every_occurrence(text: str, old: str, new: str) -> None:
    expected = text.replace(old, new) if old else text
    assert edits.apply_edit(text, old, new, True) == expected


@settings(max_examples=200)
@given(texts, st.lists(st.tuples(texts, texts, st.booleans()), max_size=5))
def test_multiedit_is_sequential_single_edits(
    text: str, steps: list[tuple[str, str, bool]]
) -> None:
    expected = text
    for old, new, every in steps:
        expected = edits.apply_edit(expected, old, new, every)
    as_payload = [{"old_string": o, "new_string": n, "replace_all": r} for o, n, r in steps]
    assert edits.apply_edits(text, as_payload) == expected


@settings(max_examples=300)
@given(st.binary(max_size=200))
def test_decoding_and_sizing_an_index_round_trips_its_bytes(raw: bytes) -> None:
    text = edits.decode_index(raw)
    assert utf8_size(text) == len(raw)
    assert Measurement.of_text(text).lines == Measurement.of_raw(raw).lines


@settings(max_examples=200)
@given(st.binary(max_size=200), st.text(max_size=30), st.text(max_size=30))
def test_guard_never_raises_on_any_index_and_edit(raw: bytes, old: str, new: str) -> None:
    current = edits.decode_index(raw)
    predicted = edits.apply_edit(current, old, new, True)
    verdict = guard.decide(Measurement.of_raw(raw), Measurement.of_text(predicted), CAPS)
    assert verdict.kind in ("deny", "nudge", "silent")
    if (
        len(predicted.encode("utf-8", "surrogatepass")) <= len(raw)
        and Measurement.of_text(predicted).lines <= Measurement.of_raw(raw).lines
    ):
        assert verdict.kind != "deny"  # nothing grew: never a deny


def test_os_environ_is_accepted(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ENGRAMORY_INDEX_NAME", "X.md")
    assert claude.answer([], json.dumps(write(tmp_path / "x.md", lines(300))).encode(), os.environ)


def test_a_command_the_guard_cannot_follow_is_denied_with_a_reason() -> None:
    deep = "echo " + "$(" * 40 + "ls" + ")" * 40
    output = json.loads(claude.answer([], bash(deep), {}))
    reason = output["hookSpecificOutput"]["permissionDecisionReason"]
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "nested too deep" in reason and "((" not in reason


def test_same_file_by_inode_or_by_resolved_path(tmp_path: Path) -> None:
    index = tmp_path / "store" / "MEMORY.md"
    index.parent.mkdir()
    dangling = tmp_path / "alias.md"
    dangling.symlink_to(index)  # the index does not exist yet: resolved paths decide
    assert claude.same_file(str(dangling), str(index))
    index.write_text("x")
    os.link(index, tmp_path / "hard.md")
    assert claude.same_file(str(tmp_path / "hard.md"), str(index))
    assert claude.same_file(str(dangling), str(index))
    (tmp_path / "copy.md").write_text("x")
    assert not claude.same_file(str(tmp_path / "copy.md"), str(index))
    assert not claude.same_file(str(tmp_path / "missing.md"), str(index))
