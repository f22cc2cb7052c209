"""The index guard on apply_patch calls (issue 13): service.check on PATCH ToolCalls, and on
shell commands that run apply_patch. The parser and applier themselves: tests/test_v4a.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engramory.guard import service, toolcall
from engramory.guard.decision import Verdict
from engramory.guard.toolcall import ToolCall


def lines(n: int, word: str = "x") -> str:
    return (word + "\n") * n


def plus(n: int, word: str = "new") -> str:
    """``n`` added lines of a hunk."""
    return (f"+{word}\n") * n


def patch(*ops: str) -> str:
    return "*** Begin Patch\n" + "".join(ops) + "*** End Patch\n"


def grow(path: str, n: int) -> str:
    """An update of ``path`` appending ``n`` lines (a hunk without old lines)."""
    return f"*** Update File: {path}\n@@\n" + plus(n)


def ask(
    text: str | None, cwd: Path | str | None, env: dict | None = None, index: str | None = None
) -> Verdict:
    call = ToolCall(toolcall.PATCH, cwd=None if cwd is None else str(cwd), command=text)
    verdict = service.check(call, env or {}, index)
    assert verdict.kind in ("deny", "nudge", "silent")
    return verdict


def kind(
    text: str | None, cwd: Path | str | None, env: dict | None = None, index: str | None = None
) -> str:
    return ask(text, cwd, env, index).kind


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A directory holding an index of 195 lines (under the hard cap of 200)."""
    (tmp_path / "MEMORY.md").write_text(lines(195))
    return tmp_path


# --- the decision on the index's new text ----------------------------------------------


def test_growing_past_the_hard_cap_is_denied(store: Path) -> None:
    verdict = ask(patch(grow("MEMORY.md", 6)), store)
    assert verdict.kind == "deny"
    assert "from 195 lines / 390 B to 201 lines / 414 B" in verdict.message


def test_growing_within_the_hard_cap_is_a_soft_zone_nudge(store: Path) -> None:
    verdict = ask(patch(grow("MEMORY.md", 5)), store)
    assert verdict.kind == "nudge" and "200 lines" in verdict.message


def test_within_the_soft_cap_is_silent(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(10))
    assert kind(patch(grow("MEMORY.md", 5)), tmp_path) == "silent"


def test_shrinking_an_over_cap_index_is_never_denied(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(250))
    shrink = "*** Update File: MEMORY.md\n@@\n-x\n-x\n-x\n+short\n"
    verdict = ask(patch(shrink), tmp_path)
    assert verdict.kind == "nudge" and "still over" in verdict.message


def test_adding_the_index_compares_with_the_index_as_it_is_now(tmp_path: Path) -> None:
    add = "*** Add File: MEMORY.md\n" + plus(201, "x")
    assert kind(patch(add), tmp_path) == "deny"  # no index yet: counts as empty
    (tmp_path / "MEMORY.md").write_text(lines(250))
    assert kind(patch(add), tmp_path) == "nudge"  # a rewrite that shrinks it


def test_a_crlf_patch_is_judged_like_its_lf_twin(store: Path) -> None:
    text = patch(grow("MEMORY.md", 6)).replace("\n", "\r\n")
    assert kind(text, store) == "deny"


def test_bytes_are_judged_too(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(3))
    wide = "*** Update File: MEMORY.md\n@@\n-x\n+" + "w" * 25_001 + "\n"
    verdict = ask(patch(wide), tmp_path)
    assert verdict.kind == "deny" and "bytes (" in verdict.message


# --- which operations matter ------------------------------------------------------------


def test_the_index_moved_away_shrinks_to_nothing(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(300))
    away = "*** Update File: MEMORY.md\n*** Move to: old/elsewhere.md\n@@\n x\n" + plus(50)
    assert kind(patch(away), store) == "silent"


def test_the_index_deleted_is_silent(store: Path) -> None:
    assert kind(patch("*** Delete File: MEMORY.md\n"), store) == "silent"


def test_a_file_moved_onto_the_index_is_judged_as_the_new_index(store: Path) -> None:
    (store / "notes.md").write_text(lines(300, "n"))
    onto = "*** Update File: notes.md\n*** Move to: MEMORY.md\n@@\n-n\n+m\n"
    verdict = ask(patch(onto), store)
    assert (
        verdict.kind == "deny"
        and "from 195 lines" in verdict.message
        and "to 300 lines" in verdict.message
    )
    (store / "notes.md").write_text(lines(20, "n"))
    assert kind(patch(onto), store) == "silent"  # a smaller index


def test_a_move_onto_the_index_from_a_missing_file_does_not_apply(store: Path) -> None:
    onto = "*** Update File: gone.md\n*** Move to: MEMORY.md\n@@\n-n\n+m\n"
    verdict = ask(patch(onto), store)
    assert (
        verdict.kind == "nudge"
        and "does not apply" in verdict.message
        and "'gone.md'" in verdict.message
    )


def test_a_chain_of_moves_onto_the_index_is_followed(store: Path) -> None:
    (store / "a.md").write_text(lines(300, "a"))
    ops = (
        "*** Update File: a.md\n*** Move to: b.md\n@@\n-a\n+b\n",
        "*** Update File: b.md\n*** Move to: MEMORY.md\n@@\n-b\n+c\n",
    )
    assert kind(patch(*ops), store) == "deny"
    assert kind(patch(*reversed(ops)), store) == "nudge"  # b.md does not exist yet


def test_later_operations_see_earlier_results(store: Path) -> None:
    ops = (
        "*** Add File: MEMORY.md\n" + plus(150, "x"),
        grow("MEMORY.md", 60),  # 210 lines: the hunk applies to the added text, not the disk's
    )
    assert kind(patch(*ops), store) == "deny"
    assert kind(patch(ops[0], "*** Delete File: MEMORY.md\n"), store) == "silent"


def test_a_patch_touching_the_index_and_another_file(store: Path) -> None:
    other = "*** Update File: src/app.py\n@@\n-not read\n+at all\n"  # src/app.py does not exist
    assert kind(patch(other, grow("MEMORY.md", 6)), store) == "deny"
    assert kind(patch(grow("MEMORY.md", 6), other), store) == "deny"
    assert kind(patch(other, "*** Add File: README.md\n" + plus(500)), store) == "silent"


def test_two_indexes_each_judged_the_strongest_answered(store: Path) -> None:
    (store / "sub").mkdir()
    (store / "sub" / "MEMORY.md").write_text(lines(10))
    ops = (grow("sub/MEMORY.md", 150), grow("MEMORY.md", 6))  # a nudge, then a deny
    verdict = ask(patch(*ops), store)
    assert verdict.kind == "deny" and "from 195 lines" in verdict.message


def test_a_growth_before_a_failing_operation_still_counts(store: Path) -> None:
    # Codex's checks would reject the whole patch, but an apply_patch run hunk by hunk
    # writes the first operation before the second fails: judge what may land.
    failing = "*** Update File: MEMORY.md\n@@\n-no such line\n+y\n"
    assert kind(patch("*** Add File: MEMORY.md\n" + plus(300), failing), store) == "deny"


def test_a_patch_that_does_not_parse_is_silent(store: Path) -> None:
    for text in (
        "*** Begin Patch\n*** Update File: MEMORY.md\n*** End Patch",  # no hunk
        "*** Begin Patch\n*** Shred File: MEMORY.md\n*** End Patch",
        "MEMORY.md",
        "",
        None,
    ):
        assert kind(text, store) == "silent"


def test_a_patch_of_other_files_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_reading(*args: object) -> object:
        raise AssertionError("read a file")

    monkeypatch.setattr(service, "read_index", no_reading)
    text = patch(
        "*** Update File: a.md\n*** Move to: b.md\n@@\n-x\n+y\n", "*** Delete File: c.md\n"
    )
    assert kind(text, tmp_path) == "silent"


# --- a patch that does not apply, a file that cannot be read --------------------------------


def test_a_patch_that_does_not_apply_is_a_nudge_not_a_deny(store: Path) -> None:
    stale = "*** Update File: MEMORY.md\n@@\n-a line the index no longer has\n" + plus(300)
    verdict = ask(patch(stale), store)
    assert verdict.kind == "nudge"
    assert "does not apply to the memory index as it is now" in verdict.message
    assert "hunk 1" in verdict.message and "NOT checked" in verdict.message


def test_an_update_of_a_missing_index_does_not_apply(tmp_path: Path) -> None:
    verdict = ask(patch(grow("MEMORY.md", 300)), tmp_path)
    assert verdict.kind == "nudge" and "does not exist" in verdict.message


def test_a_patch_too_complex_to_follow_is_not_verified(tmp_path: Path) -> None:
    # Every position starts the pattern and none holds it: the search budget runs out.
    (tmp_path / "MEMORY.md").write_text("a\nb\n" * 50_000)
    hunk = "*** Update File: MEMORY.md\n@@\n" + " a\n b\n" * 50 + " a\n a\n" + plus(5)
    verdict = ask(patch(hunk), tmp_path, {"ENGRAMORY_HARD": "1000000"})
    assert verdict.kind == "nudge" and "too complex" in verdict.message


def test_an_index_that_is_a_directory_is_not_verified(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").mkdir()
    for text in (patch(grow("MEMORY.md", 300)), patch("*** Add File: MEMORY.md\n" + plus(300))):
        verdict = ask(text, tmp_path)
        assert verdict.kind == "nudge" and "could not be read in full" in verdict.message


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root reads a chmod-000 file anyway (and Windows has no such mode)",
)
def test_an_unreadable_index_is_never_denied(store: Path) -> None:
    index = store / "MEMORY.md"
    index.chmod(0)
    try:
        for text in (patch(grow("MEMORY.md", 300)), patch("*** Add File: MEMORY.md\n" + plus(300))):
            verdict = ask(text, store)
            assert verdict.kind == "nudge" and "NOT checked" in verdict.message
        assert kind(patch("*** Delete File: MEMORY.md\n"), store) == "silent"
    finally:
        index.chmod(0o644)


def test_an_unreadable_file_moved_onto_the_index_is_not_verified(store: Path) -> None:
    (store / "notes.md").mkdir()
    onto = "*** Update File: notes.md\n*** Move to: MEMORY.md\n@@\n-n\n+m\n"
    verdict = ask(patch(onto), store)
    assert verdict.kind == "nudge" and "'notes.md' could not be read in full" in verdict.message


def test_an_index_past_the_read_bound_is_not_verified(tmp_path: Path) -> None:
    with (tmp_path / "MEMORY.md").open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)
    assert kind(patch(grow("MEMORY.md", 1)), tmp_path) == "nudge"


def test_file_names_in_messages_are_escaped_and_short(store: Path) -> None:
    name = "\x1b[31mevil" + "x" * 300 + ".md"
    onto = f"*** Update File: {name}\n*** Move to: MEMORY.md\n@@\n-n\n+m\n"
    message = ask(patch(onto), store).message
    assert "\x1b" not in message and "\\x1b" in message and "x" * 100 not in message


# --- which file is the index ----------------------------------------------------------------


def test_paths_are_relative_to_the_call_directory(tmp_path: Path) -> None:
    (tmp_path / "proj" / "mem").mkdir(parents=True)
    (tmp_path / "proj" / "mem" / "MEMORY.md").write_text(lines(195))
    text = patch(grow("mem/MEMORY.md", 6))
    verdict = ask(text, tmp_path / "proj")
    assert verdict.kind == "deny" and "from 195 lines" in verdict.message
    # From elsewhere the same relative path names a missing file: the update cannot apply.
    assert kind(text, tmp_path) == "nudge"


def test_absolute_paths_are_allowed(store: Path) -> None:
    assert kind(patch(grow(str(store / "MEMORY.md"), 6)), "/") == "deny"


def test_no_cwd_means_this_process_directory(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(store)
    assert kind(patch(grow("MEMORY.md", 6)), None) == "deny"


def test_the_index_name_setting_applies(tmp_path: Path) -> None:
    (tmp_path / "INDEX.md").write_text(lines(195))
    text = patch(grow("INDEX.md", 6))
    assert kind(text, tmp_path) == "silent"
    assert kind(text, tmp_path, {"ENGRAMORY_INDEX_NAME": "index.md"}) == "deny"


def test_a_pinned_index_path_is_the_only_index(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    pinned = tmp_path / "store" / "MEMORY.md"
    pinned.write_text(lines(195))
    (tmp_path / "MEMORY.md").write_text(lines(195))
    env = {"ENGRAMORY_INDEX_PATH": str(pinned)}
    assert kind(patch(grow("MEMORY.md", 6)), tmp_path, env) == "silent"
    assert kind(patch(grow("store/MEMORY.md", 6)), tmp_path, env) == "deny"


def test_an_index_alias_under_another_name(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    real = tmp_path / "store" / "MEMORY.md"
    real.write_text(lines(195))
    (tmp_path / "alias.md").symlink_to(real)
    text = patch(grow("alias.md", 6))
    assert kind(text, tmp_path) == "silent"  # not named MEMORY.md, and no --index
    verdict = ask(text, tmp_path, index=str(real))
    assert verdict.kind == "deny" and "from 195 lines" in verdict.message


# --- apply_patch through the shell ------------------------------------------------------------


def shell(command: str, cwd: Path) -> Verdict:
    return service.check(ToolCall(toolcall.SHELL, cwd=str(cwd), command=command), {})


def test_a_shell_heredoc_patch_is_judged(store: Path) -> None:
    body = patch(grow("MEMORY.md", 6))
    for command in (
        f"apply_patch <<'EOF'\n{body}EOF\n",
        f'applypatch <<"EOF"\n{body}EOF\n',
        f"apply_patch <<EOF\n{body}EOF",
        f"apply_patch '{body}'",
    ):
        assert shell(command, store).kind == "deny", command
    assert shell(f"apply_patch <<'EOF'\n{patch(grow('MEMORY.md', 1))}EOF\n", store).kind == "nudge"


def test_a_shell_patch_after_cd_is_relative_to_that_directory(store: Path) -> None:
    command = f"cd {store.name} && apply_patch <<'EOF'\n{patch(grow('MEMORY.md', 6))}EOF\n"
    verdict = shell(command, store.parent)
    assert verdict.kind == "deny" and "from 195 lines" in verdict.message


def test_a_shell_patch_and_a_shell_write_answer_the_strongest(store: Path) -> None:
    big, small = patch(grow("MEMORY.md", 6)), patch(grow("MEMORY.md", 1))
    verdict = shell(f"echo start > log.txt\napply_patch <<'EOF'\n{big}EOF\n", store)
    assert verdict.kind == "deny" and "GROW" in verdict.message  # the patch's deny
    verdict = shell(f"apply_patch <<'EOF'\n{small}EOF\necho x >> MEMORY.md\n", store)
    assert verdict.kind == "deny" and "shell command" in verdict.message  # over a nudge


def test_a_shell_command_without_apply_patch_is_unchanged(store: Path) -> None:
    assert shell("cat MEMORY.md", store).kind == "silent"
    assert shell("echo '*** Add File: MEMORY.md' > notes.txt", store).kind == "silent"


def test_applypatch_is_a_possible_shell_write(store: Path) -> None:
    # Without its Begin/End lines the patch holds no other shell-writer word ("patch").
    command = f"applypatch <<'EOF'\n{grow('MEMORY.md', 6)}EOF\n"
    assert service.shell_may_write(json.dumps(command)[1:-1].encode())
    assert shell(command, store).kind == "deny"


# --- never an exception -------------------------------------------------------------------------


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.sampled_from(
            [
                "*** Add File: MEMORY.md\n",
                "*** Update File: MEMORY.md\n",
                "*** Update File: n.md\n",
                "*** Move to: MEMORY.md\n",
                "*** Move to: n.md\n",
                "*** Delete File: MEMORY.md\n",
                "*** Delete File: n.md\n",
                "*** End of File\n",
                "@@\n",
                "@@ x\n",
                " x\n",
                "-x\n",
                "+x\n",
                "+y\n",
                "\n",
            ]
        ),
        max_size=20,
    ).map("".join),
)
def test_the_guard_never_raises_on_a_patch(tmp_path: Path, body: str) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(199))
    (tmp_path / "n.md").write_text(lines(3))
    ask(patch(body), tmp_path)
    ask(body, tmp_path)
