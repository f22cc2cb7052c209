"""The index guard as a service, host-agnostic: decision table (research §5.5), edit simulation,
which file is the index, shell writes, the after-the-fact check -- on ToolCall values directly.

Claude Code's payload parsing and rendering: tests/test_claude_dialect.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.guard import decision as guard
from engramory.guard import edits, service, toolcall
from engramory.guard.decision import Verdict
from engramory.guard.toolcall import ToolCall
from engramory.store.caps import Caps, Measurement, utf8_size

CAPS = Caps()


def lines(n: int, width: int = 1) -> str:
    return ("x" * width + "\n") * n


def ask(call: ToolCall, env: dict | None = None, index: str | None = None) -> Verdict:
    """Run the service on one tool call, as the hook entry would."""
    return service.check(call, env or {}, index)


def write(path: Path, content: str | None) -> ToolCall:
    return ToolCall(toolcall.WRITE, str(path), content=content)


def edit(path: Path, old: object, new: object, replace_all: object = None) -> ToolCall:
    return ToolCall(toolcall.EDIT, str(path), edits=[(old, new, replace_all)])


def multiedit(path: Path, steps: list[tuple[object, object, object]] | None) -> ToolCall:
    return ToolCall(toolcall.MULTIEDIT, str(path), edits=steps)


def shell(command: str | None, cwd: str = "/w") -> ToolCall:
    return ToolCall(toolcall.SHELL, cwd=cwd, command=command)


def json_escaped(command: str) -> bytes:
    """The command as a hook payload carries it: inside a JSON string, still escaped."""
    return json.dumps(command)[1:-1].encode()


def decision(verdict: Verdict) -> str:
    assert verdict.kind in ("deny", "nudge", "silent")  # never allow, never ask
    return verdict.kind


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
    reason = output.message
    assert "from 210 lines / 420 B to 420 lines / 1,470 B" in reason
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
    reason = output.message
    assert "bytes (32,750 > 25,000)" in reason and "lines (" not in reason


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
    if output.kind != "silent":
        assert "does not grow it" in output.message


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
    payload = multiedit(index, [("L", "Q", True), ("Q", "Q\nQ", True)])
    assert decision(ask(payload)) == "deny"  # the second edit only matches the first one's output


def test_multiedit_with_failing_sub_edits_changes_nothing(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(10))
    payload = multiedit(index, [("nope", "a\n" * 500, None), (3, None, None)])
    assert decision(ask(payload)) == "silent"
    assert decision(ask(multiedit(index, None))) == "nudge"  # no edits carried: not predicted


def test_unreadable_index_is_never_denied(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.mkdir()  # exists, cannot be read as a file
    for payload in (write(index, lines(500)), edit(index, "a", "b" * 100000, True)):
        output = ask(payload)
        assert decision(output) == "nudge"
        assert "NOT checked" in output.message


def test_index_past_the_read_bound_is_not_verified(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    with index.open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)
    assert decision(ask(edit(index, "a", "b"))) == "nudge"


def test_write_without_content_cannot_be_predicted(tmp_path: Path) -> None:
    assert decision(ask(write(tmp_path / "MEMORY.md", None))) == "nudge"


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
    payload.cwd = str(tmp_path)
    assert decision(ask(payload)) == "deny"


# --- which file is the index ----------------------------------------------------------


def test_other_files_are_silent(tmp_path: Path) -> None:
    assert decision(ask(write(tmp_path / "notes.md", lines(1000)))) == "silent"


def test_index_name_is_case_insensitive(tmp_path: Path) -> None:
    assert decision(ask(write(tmp_path / "memory.md", lines(300)))) == "deny"


def test_index_name_setting(tmp_path: Path) -> None:
    env = {"ENGRAMORY_INDEX_NAME": "INDEX.md"}
    assert decision(ask(write(tmp_path / "index.md", lines(300)), env)) == "deny"
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(300)), env)) == "silent"


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
    assert decision(ask(write(tmp_path / "other" / "MEMORY.md", lines(300)), env)) == "silent"


# --- shell commands, aliases, oversized payloads -------------------------------------


def test_huge_content_is_handled(tmp_path: Path) -> None:
    payload = write(tmp_path / "MEMORY.md", "z" * (50 * 1024 * 1024))
    assert decision(ask(payload)) == "deny"


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
def test_issue_10_item_1_catches_hold(tmp_path: Path, command: str) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    assert decision(ask(shell(command, str(tmp_path)))) == "deny"


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
def test_a_shell_command_that_may_write_is_not_dismissed(command: str) -> None:
    assert service.shell_may_write(json_escaped(command))


@pytest.mark.parametrize(
    "command", ["cat MEMORY.md", "grep -n x MEMORY.md | head", "ls -la", "pytest -q tests/"]
)
def test_a_read_only_shell_command_is_dismissed(command: str) -> None:
    assert not service.shell_may_write(json_escaped(command))


def test_a_shell_call_without_a_command_is_silent() -> None:
    assert decision(ask(shell(None))) == "silent"


def test_an_alias_of_the_index_is_the_index(tmp_path: Path) -> None:
    store = tmp_path / ".engramory-memory"
    store.mkdir()
    index = store / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    os.link(index, tmp_path / "hard.md")
    for alias in ("notes.md", "hard.md"):
        payload = write(tmp_path / alias, lines(300))
        payload.cwd = str(tmp_path)
        assert decision(ask(payload, index=str(index))) == "deny", alias
        assert decision(ask(payload)) == "silent"  # without --index, only the name is known
        command = shell(f"echo x >> {alias}", str(tmp_path))
        assert decision(ask(command, index=str(index))) == "deny", alias
    # ENGRAMORY_INDEX_PATH: that file only, by identity, and no other MEMORY.md
    pinned = {"ENGRAMORY_INDEX_PATH": str(index)}
    assert decision(ask(write(tmp_path / "hard.md", lines(300)), pinned)) == "deny"
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(300)), pinned)) == "silent"
    # with --index the name rule stays on (other stores)
    other = write(tmp_path / "x" / "MEMORY.md", lines(300))
    assert decision(ask(other, index=str(index))) == "deny"


def test_an_oversized_call_is_judged_by_its_target(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"

    def oversized(path: Path, kind: str = toolcall.WRITE) -> Verdict:
        return service.check_oversized(ToolCall(kind, str(path), cwd=str(tmp_path)), {})

    denied = oversized(index)
    assert decision(denied) == "deny"
    assert "too large to check" in denied.message and "64 MiB" in denied.message
    assert decision(oversized(tmp_path / "app.py")) == "silent"
    assert decision(oversized(index, toolcall.SHELL)) == "silent"
    assert decision(service.check_oversized(ToolCall(toolcall.EDIT), {})) == "silent"
    alias = tmp_path / "alias.md"
    alias.symlink_to(index)
    call = ToolCall(toolcall.WRITE, str(alias), cwd=str(tmp_path))
    assert decision(service.check_oversized(call, {}, str(index))) == "deny"
    assert decision(service.check_oversized(call, {})) == "silent"


def test_strongest_of_several_verdicts() -> None:
    deny, nudge = Verdict(guard.DENY, "d"), Verdict(guard.NUDGE, "n")
    silent = Verdict(guard.SILENT)
    assert service.strongest([silent, nudge, deny]) is deny
    assert service.strongest([silent, nudge]) is nudge
    assert service.strongest([silent]).kind == guard.SILENT
    assert service.strongest([]).kind == guard.SILENT


# --- after a call ---------------------------------------------------------------------------


def test_post_event_denies_when_over_the_hard_cap(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(230))
    verdict = service.check_after(str(index), {})
    assert decision(verdict) == "deny" and "lines (230 > 200)" in verdict.message


def test_post_event_on_a_huge_index_reports_bytes_without_reading(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    with index.open("wb") as handle:
        handle.truncate(10 * 1024 * 1024)
    assert "bytes (10,485,760 > 25,000)" in service.check_after(str(index), {}).message


@pytest.mark.parametrize("count", [0, 150, 200])
def test_post_event_is_silent_within_the_cap(tmp_path: Path, count: int) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(count))
    assert decision(service.check_after(str(index), {})) == "silent"


def test_post_event_without_an_index_does_nothing(tmp_path: Path) -> None:
    assert decision(service.check_after(None, {})) == "silent"
    assert decision(service.check_after(str(tmp_path / "none.md"), {})) == "silent"


def test_post_event_on_an_unreadable_index_is_silent(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.mkdir()
    assert decision(service.check_after(str(index), {})) == "silent"


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
    assert edits.apply_edits(text, steps) == expected


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
    assert decision(service.check(write(tmp_path / "x.md", lines(300)), os.environ)) == "deny"


def test_a_command_the_guard_cannot_follow_is_denied_with_a_reason() -> None:
    deep = "echo " + "$(" * 40 + "ls" + ")" * 40
    output = ask(shell(deep))
    reason = output.message
    assert decision(output) == "deny"
    assert "nested too deep" in reason and "((" not in reason


def test_same_file_by_inode_or_by_resolved_path(tmp_path: Path) -> None:
    index = tmp_path / "store" / "MEMORY.md"
    index.parent.mkdir()
    dangling = tmp_path / "alias.md"
    dangling.symlink_to(index)  # the index does not exist yet: resolved paths decide
    assert service.same_file(str(dangling), str(index))
    index.write_text("x")
    os.link(index, tmp_path / "hard.md")
    assert service.same_file(str(tmp_path / "hard.md"), str(index))
    assert service.same_file(str(dangling), str(index))
    (tmp_path / "copy.md").write_text("x")
    assert not service.same_file(str(tmp_path / "copy.md"), str(index))
    assert not service.same_file(str(tmp_path / "missing.md"), str(index))


def test_the_service_knows_no_host() -> None:
    """Issue 22: guard/service.py imports nothing from hosts/, commands/, install/, ..."""
    import ast

    tree = ast.parse(Path(service.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    forbidden = ("hosts", "commands", "install", "continuity", "doctor")
    assert not {m for m in imported if m and m.split(".")[1:2] in ([f] for f in forbidden)}
    assert "engramory.guard.decision" in imported  # the walk sees our imports
    assert "claude" not in Path(service.__file__).read_text().lower()
