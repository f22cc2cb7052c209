"""`engramory trace` on small Claude Code and Codex trees: scope, exclusions, dedupe, filters,
output, exit codes, masking, self-exclusion, robustness and read-only (issue 15)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tracekit import (
    CLAUDE_SESSION,
    CODEX_SESSION,
    Tree,
    assistant,
    event,
    item,
    session_meta,
    text,
    tool_result,
    tool_use,
    user,
    write_lines,
)

from conftest import run_engramory

AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH"[::-1]  # assembled at run time: no key in the source
SUB_SESSION = "5ub00000-0000-4000-8000-000000000002"
SIBLING_SESSION = "5ib00000-0000-4000-8000-000000000003"
WINDOWS_SESSION = "w1n00000-0000-4000-8000-000000000004"
ELSEWHERE_SESSION = "0199f000-aaaa-4bbb-8ccc-ddddeeee0009"
KEYS = {"host", "session", "cwd", "timestamp", "role", "text", "file", "line"}


def ts(day: int, minute: int = 0) -> str:
    return f"2026-07-{day:02d}T10:{minute:02d}:00.000Z"


def claude_session(tree: Tree) -> Path:
    cwd = str(tree.project)
    first = user("u1", "why drop the parser?", cwd, ts(1, 1))
    lines: list[object] = [
        {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
        first,
        assistant(
            "a1",
            [
                {"type": "thinking", "thinking": "thinking about the parser"},
                text("it reordered the parser's chunks"),
            ],
            cwd,
            ts(1, 2),
        ),
        user("u2", "skill body mentions the parser", cwd, ts(1, 3), isMeta=True),
        user("u3", "This session is being continued: parser", cwd, ts(1, 4), isCompactSummary=True),
        user(
            "u4",
            "<command-name>/parser</command-name>\n<command-args></command-args>",
            cwd,
            ts(1, 5),
        ),
        user("u5", "<bash-input>grep parser</bash-input>", cwd, ts(1, 6)),
        user(
            "u6",
            [
                text("<ide_opened_file>parser.py</ide_opened_file>"),
                text(
                    "look at the tokenizer <system-reminder>parser reminder</system-reminder> please"
                ),
            ],
            cwd,
            ts(1, 7),
        ),
        user("u7", "<task-notification>parser agent done</task-notification>", cwd, ts(1, 8)),
        {
            "type": "attachment",
            "uuid": "t1",
            "cwd": cwd,
            "timestamp": ts(1, 9),
            "attachment": {
                "type": "queued_command",
                "commandMode": "prompt",
                "prompt": "also fix the parser test",
            },
        },
        assistant(
            "a2",
            [text("parser synthetic")],
            cwd,
            ts(1, 10),
            message={
                "role": "assistant",
                "model": "<synthetic>",
                "content": [text("parser synthetic")],
            },
        ),
        assistant(
            "a3", [text("API Error: parser overloaded")], cwd, ts(1, 11), isApiErrorMessage=True
        ),
        assistant(
            "a4", [tool_use("toolu_1", "Bash", {"command": "pytest -k parser"})], cwd, ts(1, 12)
        ),
        user(
            "u8",
            [tool_result("toolu_1", "3 passed in parser tests")],
            cwd,
            ts(1, 13),
            toolUseResult={"stdout": "3 passed in parser tests"},
        ),
        first,  # re-appended after a resume: counted once
        assistant(
            "a5",
            [tool_use("toolu_2", "Bash", {"command": "engramory trace parser --all-projects"})],
            cwd,
            ts(1, 14),
        ),
        user(
            "u9",
            [tool_result("toolu_2", "s1 2026-07-01 user why drop the parser?")],
            cwd,
            ts(1, 15),
        ),
        user("u10", "[Request interrupted by user]", cwd, ts(1, 16)),
        assistant("a6", [tool_use("toolu_3", "Bash", {"command": "cat .env"})], cwd, ts(1, 17)),
        user(
            "u11",
            [tool_result("toolu_3", [text(f"credentials\naws_access_key_id = {AWS_KEY}\n")])],
            cwd,
            ts(1, 18),
        ),
        {"type": "summary", "summary": "parser removal", "leafUuid": "a1"},
        {"type": "some-future-type", "text": "parser"},
        '{"type":"user","uuid":"broken", parser',
        b'{"type":"user","message":"\xff\xfe parser"}\n',
        user("u12", 'Straße and caf\u00e9 and the "quoted" C:\\path parser', cwd, ts(2, 1)),
        assistant("a7", [text("PARSER shouted on day three")], cwd, ts(3, 1)),
    ]
    path = tree.claude(tree.project, CLAUDE_SESSION, lines)
    with path.open("ab") as handle:  # a live session: the last line is half-written
        handle.write(b'{"type":"user","uuid":"u99","message":{"content":"parser')
    folder = tree.folder(tree.project)
    subagent = folder / CLAUDE_SESSION / "subagents" / "agent-a1b2.jsonl"
    write_lines(subagent, [user("s1", "subagent parser finding", cwd, ts(1, 20), isSidechain=True)])
    write_lines(folder / "agent-0ld.jsonl", [user("f1", "flat agent parser note", cwd, ts(1, 21))])
    return path


def codex_session(tree: Tree) -> Path:
    cwd = str(tree.project)
    lines: list[object] = [
        session_meta(ts(13), CODEX_SESSION, cwd),
        {"timestamp": ts(13), "type": "turn_context", "payload": {"cwd": cwd, "model": "m"}},
        item(
            ts(13, 1),
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>parser</environment_context>",
                    }
                ],
            },
        ),
        event(ts(13, 2), "user_message", "parser question from codex"),
        item(
            ts(13, 2),
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "parser question from codex"}],
            },
        ),
        event(ts(13, 3), "agent_message", "the parser answer"),
        event(ts(13, 4), "user_message", "<user_instructions>parser rules</user_instructions>"),
        item(
            ts(13, 5),
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "call_1",
                "arguments": json.dumps({"command": ["bash", "-lc", "rg parser"]}),
            },
        ),
        item(
            ts(13, 6),
            {"type": "function_call_output", "call_id": "call_1", "output": "src/parser.py:1"},
        ),
        item(
            ts(13, 7),
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "call_2",
                "arguments": json.dumps({"command": ["bash", "-lc", "engramory trace parser"]}),
            },
        ),
        item(
            ts(13, 8),
            {"type": "function_call_output", "call_id": "call_2", "output": "1 hit parser"},
        ),
        {"timestamp": ts(13, 9), "type": "compacted", "payload": {"message": "parser summary"}},
        {"timestamp": ts(13, 9), "type": "newer_kind", "payload": {"message": "parser"}},
    ]
    return tree.codex(CODEX_SESSION, lines)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    made = Tree(tmp_path)
    for name, value in made.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.chdir(made.project)
    claude_session(made)
    codex_session(made)
    made.claude(
        made.project / "sub",
        SUB_SESSION,
        [user("d1", "parser from a sub-directory", str(made.project / "sub"), ts(5))],
    )
    made.claude(
        made.sibling,
        SIBLING_SESSION,
        [user("b1", "parser in the sibling project", str(made.sibling), ts(6))],
    )
    write_lines(
        made.projects / "C--src-p" / f"{WINDOWS_SESSION}.jsonl",
        [user("w1", "parser on windows", "C:\\src\\p", ts(7))],
    )
    made.codex(
        ELSEWHERE_SESSION,
        [
            session_meta(ts(8), ELSEWHERE_SESSION, "/elsewhere"),
            event(ts(8, 1), "user_message", "parser elsewhere"),
        ],
        archived=True,
    )
    return made


def hits(cli, *args: str) -> list[dict]:
    result = cli("trace", *args, "--format", "json")
    assert result.code in (0, 1), result
    return [json.loads(line) for line in result.out.splitlines()]


def texts(cli, *args: str) -> list[str]:
    return [hit["text"] for hit in hits(cli, *args)]


def test_default_search_is_the_project_and_the_words_people_said(cli, tree: Tree) -> None:
    assert texts(cli, "parser") == [
        "why drop the parser?",
        "it reordered the parser's chunks",
        "also fix the parser test",
        "subagent parser finding",
        "flat agent parser note",
        'Straße and café and the "quoted" C:\\path parser',
        "PARSER shouted on day three",
        "parser from a sub-directory",
        "parser question from codex",
        "the parser answer",
    ]


def test_subagents_count_as_their_session(cli, tree: Tree) -> None:
    found = {hit["text"]: hit["session"] for hit in hits(cli, "agent")}
    assert found == {
        "subagent parser finding": CLAUDE_SESSION,
        "flat agent parser note": CLAUDE_SESSION,
    }


def test_system_reminder_is_cut_and_the_rest_kept(cli, tree: Tree) -> None:
    assert texts(cli, "tokenizer") == ["look at the tokenizer \n please"]
    assert texts(cli, "reminder") == []


def test_all_projects_adds_the_sibling_windows_and_archived_sessions(cli, tree: Tree) -> None:
    found = texts(cli, "parser", "--all-projects")
    for extra in ("parser in the sibling project", "parser on windows", "parser elsewhere"):
        assert extra in found
    assert "parser in the sibling project" not in texts(cli, "parser")


def test_project_flag_and_a_windows_drive_in_another_case(cli, tree: Tree) -> None:
    assert texts(cli, "parser", "--project", "c:/src/p") == ["parser on windows"]
    assert texts(cli, "parser", "--project", str(tree.sibling)) == ["parser in the sibling project"]
    assert texts(cli, "parser", "--project", str(tree.project / "sub")) == [
        "parser from a sub-directory"
    ]


def test_tools_adds_calls_and_output_but_never_a_trace_call(cli, tree: Tree) -> None:
    tool_texts = [hit["text"] for hit in hits(cli, "parser", "--tools") if hit["role"] == "tool"]
    assert tool_texts == [
        "Bash\npytest -k parser",
        "3 passed in parser tests",
        'shell\n{"command": ["bash", "-lc", "rg parser"]}',
        "src/parser.py:1",
    ]


def test_each_record_counts_once(cli, tree: Tree) -> None:
    assert texts(cli, "drop") == ["why drop the parser?"]


def test_role_filter(cli, tree: Tree) -> None:
    assert {hit["role"] for hit in hits(cli, "parser", "--role", "assistant")} == {"assistant"}
    assert texts(cli, "parser", "--role", "assistant") == [
        "it reordered the parser's chunks",
        "PARSER shouted on day three",
        "the parser answer",
    ]


def test_since_and_until_use_the_record_time_inclusive(cli, tree: Tree) -> None:
    assert texts(cli, "parser", "--since", "2026-07-02", "--until", "2026-07-03") == [
        'Straße and café and the "quoted" C:\\path parser',
        "PARSER shouted on day three",
    ]
    assert texts(cli, "parser", "--since", "2026-07-14") == []


def test_limit_keeps_the_most_recent_and_the_summary_counts_all(cli, tree: Tree) -> None:
    assert texts(cli, "parser", "--limit", "2") == [
        "parser question from codex",
        "the parser answer",
    ]
    result = cli("trace", "parser", "--limit", "2")
    assert result.code == 0
    assert "10 hits in 3 sessions (the 2 most recent shown" in result.out.splitlines()[-1]
    assert f"engramory trace --show {CLAUDE_SESSION}" in result.out.splitlines()[-1]


def test_case_sensitive(cli, tree: Tree) -> None:
    assert texts(cli, "PARSER", "--case-sensitive") == ["PARSER shouted on day three"]
    assert len(texts(cli, "PARSER")) == 10


def test_every_word_must_be_in_one_message(cli, tree: Tree) -> None:
    assert texts(cli, "parser", "answer") == ["the parser answer"]
    assert texts(cli, "parser", "tokenizer") == []


@pytest.mark.parametrize(
    "query",
    ['"quoted"', "C:\\path", "CAFÉ", "café", "STRAẞE", "straße", "ẞ", 'the "quoted" c:\\PATH'],
)
def test_quotes_backslashes_and_non_ascii_match_what_was_typed(cli, tree: Tree, query: str) -> None:
    assert texts(cli, query) == ['Straße and café and the "quoted" C:\\path parser']


def test_regex_and_a_bad_regex(cli, tree: Tree) -> None:
    assert texts(cli, "--regex", r"parser'?s? (answer|chunks)") == [
        "it reordered the parser's chunks",
        "the parser answer",
    ]
    result = cli("trace", "--regex", "(unclosed")
    assert result.code == 64
    assert "not a valid regular expression" in result.err
    assert cli("trace", "--regex", "a", "b").code == 64


def test_text_output_blocks_marks_and_summary(cli, tree: Tree) -> None:
    result = cli("trace", "answer")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == f"{CODEX_SESSION}  2026-07-13 10:03  codex  assistant"
    assert lines[1] == "  the parser **answer**"
    assert lines[-1] == f"1 hit in 1 session; open the best: engramory trace --show {CODEX_SESSION}"


def test_no_hits_exits_1(cli, tree: Tree) -> None:
    result = cli("trace", "zzz-never-said")
    assert result.code == 1
    assert cli("trace", "zzz-never-said", "--format", "json").out == ""


def test_json_lines_shape(cli, tree: Tree) -> None:
    result = cli("trace", "parser", "--tools", "--format", "json")
    assert result.code == 0
    for line in result.out.splitlines():
        hit = json.loads(line)
        assert set(hit) == KEYS
        assert hit["host"] in ("claude", "codex")
        assert isinstance(hit["line"], int) and hit["line"] >= 1
        assert Path(hit["file"]).is_file()
        raw = Path(hit["file"]).read_bytes().split(b"\n")[hit["line"] - 1]
        assert b"parser" in raw.lower()


def test_secrets_are_masked_in_text_and_json(cli, tree: Tree) -> None:
    for fmt in ("text", "json"):
        result = cli("trace", "credentials", "--tools", "--format", fmt)
        assert result.code == 0
        assert AWS_KEY not in result.out
        assert "AKIA…" in result.out


def test_usage_errors_exit_64(cli, tree: Tree) -> None:
    assert cli("trace").code == 64
    assert cli("trace", "x", "--show", "abcdef").code == 64
    assert cli("trace", "x", "--limit", "0").code == 64
    assert cli("trace", "x", "--since", "2026-13-01").code == 64
    assert cli("trace", "x", "--all-projects", "--project", ".").code == 64
    assert cli("trace", "").code == 64
    assert cli("trace", "x", "--since", "2026-07-05", "--until", "2026-07-01").code == 64


def test_no_transcript_root_exits_66_naming_the_paths(cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path / 'a'},{tmp_path / 'b'}")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "c"))
    result = cli("trace", "x")
    assert result.code == 66
    for tried in ("a/projects", "b/projects", "c/sessions", "c/archived_sessions"):
        assert str(tmp_path / tried) in result.err


def test_a_comma_separated_config_dir_reads_every_entry(
    cli, tree: Tree, tmp_path: Path, monkeypatch
) -> None:
    other = Tree(tmp_path / "second")
    other.claude(
        tree.project,
        "0ther000-0000-4000-8000-000000000001",
        [user("o1", "parser from the second config", str(tree.project), ts(20))],
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tree.claude_config}, {other.claude_config}")
    assert texts(cli, "parser")[-1] == "parser from the second config"


def test_home_defaults_when_nothing_is_set(cli, tree: Tree, monkeypatch) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    (tree.home / ".claude").symlink_to(tree.claude_config)
    (tree.home / ".codex").symlink_to(tree.codex_home)
    assert len(texts(cli, "parser")) == 10


def test_unreadable_lines_are_skipped_and_counted(cli, tree: Tree) -> None:
    result = cli("trace", "parser")
    assert result.code == 0
    assert result.err.strip().splitlines() == ["engramory trace: 3 unreadable lines skipped"]


def test_an_overlong_line_is_skipped_and_counted(cli, tree: Tree, monkeypatch) -> None:
    from engramory.trace import lines

    monkeypatch.setattr(lines, "MAX_LINE", 1000)
    monkeypatch.setattr(lines, "CHUNK_SIZE", 64)  # the long line spans many chunks
    before = cli("trace", "parser").err
    assert before.strip() == "engramory trace: 3 unreadable lines skipped"
    long_text = "parser " + "x" * 3000
    tree.claude(
        tree.project,
        "10n90000-0000-4000-8000-000000000001",
        [
            user("l1", long_text, str(tree.project), ts(9)),
            user("l2", "short parser line after it", str(tree.project), ts(9, 1)),
            "",
        ],
    )
    result = cli("trace", "parser", "--format", "json")
    found = [json.loads(line)["text"] for line in result.out.splitlines()]
    assert "short parser line after it" in found
    assert long_text not in found
    assert "4 unreadable lines skipped" in result.err


def test_an_empty_file_is_no_problem(cli, tree: Tree) -> None:
    (tree.folder(tree.project) / "e0000000-0000-4000-8000-000000000000.jsonl").write_bytes(b"")
    assert len(texts(cli, "parser")) == 10


def test_show_by_id_and_by_prefix(cli, tree: Tree) -> None:
    full = cli("trace", "--show", CLAUDE_SESSION)
    assert full.code == 0
    assert full.out == cli("trace", "--show", CLAUDE_SESSION[:8]).out
    lines = full.out.splitlines()
    assert lines[0] == "2026-07-01 10:01:00  user"
    assert lines[1] == "  why drop the parser?"
    assert "  subagent parser finding" in lines
    assert "  3 passed in parser tests" not in lines
    with_tools = cli("trace", "--show", CLAUDE_SESSION, "--tools").out.splitlines()
    assert "  3 passed in parser tests" in with_tools
    assert "  s1 2026-07-01 user why drop the parser?" not in with_tools


def test_show_from_any_project_in_json(cli, tree: Tree) -> None:
    result = cli("trace", "--show", SIBLING_SESSION[:6], "--format", "json")
    assert result.code == 0
    assert [json.loads(line)["text"] for line in result.out.splitlines()] == [
        "parser in the sibling project"
    ]


def test_show_ambiguous_prefix_lists_candidates_and_exits_64(cli, tree: Tree) -> None:
    tree.codex("0199f000-aaaa-4bbb-8ccc-ddddeeee0002", [event(ts(14), "user_message", "hi")])
    result = cli("trace", "--show", "0199f000")
    assert result.code == 64
    assert CODEX_SESSION in result.err and "0199f000-aaaa-4bbb-8ccc-ddddeeee0002" in result.err


def test_show_unknown_exits_1_and_a_short_prefix_is_usage(cli, tree: Tree) -> None:
    assert cli("trace", "--show", "ffffffffff").code == 1
    assert cli("trace", "--show", "c1a0").code == 64


def test_list_newest_first_with_fields(cli, tree: Tree) -> None:
    result = cli("trace", "--list", "--format", "json")
    assert result.code == 0
    rows = [json.loads(line) for line in result.out.splitlines()]
    assert [row["session"] for row in rows] == [CODEX_SESSION, SUB_SESSION, CLAUDE_SESSION]
    claude_row = rows[2]
    assert claude_row["host"] == "claude"
    assert claude_row["first"] == ts(1, 1) and claude_row["last"] == ts(3, 1)
    assert claude_row["opening"] == "why drop the parser?"
    assert claude_row["messages"] == 8
    assert claude_row["size"] > 0
    text_lines = cli("trace", "--list").out.splitlines()
    assert text_lines[0].startswith(
        f"{CODEX_SESSION}  codex  2026-07-13 10:02 .. 2026-07-13 10:03  2 messages"
    )
    assert text_lines[0].endswith("parser question from codex")


def test_list_of_a_project_without_sessions_exits_1(cli, tree: Tree, tmp_path: Path) -> None:
    assert cli("trace", "--list", "--project", str(tmp_path / "nothing")).code == 1


def test_host_flag(cli, tree: Tree) -> None:
    assert {hit["host"] for hit in hits(cli, "parser", "--host", "codex")} == {"codex"}
    assert {hit["host"] for hit in hits(cli, "parser", "--host", "claude")} == {"claude"}


def test_the_tree_is_untouched(cli, tree: Tree) -> None:
    before = tree.snapshot()
    for args in (
        ("parser",),
        ("parser", "--tools", "--all-projects"),
        ("--list",),
        ("--show", CLAUDE_SESSION, "--tools"),
        ("--regex", "pars.r", "--format", "json"),
        ("zzz",),
    ):
        cli("trace", *args)
    assert tree.snapshot() == before


def test_the_real_cli_in_both_formats(tree: Tree) -> None:
    before = tree.snapshot()
    env = {**tree.env(), "NO_COLOR": "1"}
    text_run = run_engramory("trace", "answer", env=env, cwd=tree.project)
    assert text_run.returncode == 0, text_run.stderr
    assert b"the parser **answer**" in text_run.stdout
    json_run = run_engramory("trace", "answer", "--format", "json", env=env, cwd=tree.project)
    assert json_run.returncode == 0
    assert [json.loads(line)["text"] for line in json_run.stdout.decode().splitlines()] == [
        "the parser answer"
    ]
    assert run_engramory("trace", "zzz", env=env, cwd=tree.project).returncode == 1
    assert tree.snapshot() == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_search_spread_over_processes_finds_the_same(cli, tree: Tree, monkeypatch) -> None:
    from engramory.trace import parallel

    alone = hits(cli, "parser", "--tools", "--all-projects")
    monkeypatch.setattr(parallel, "MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "workers", lambda: 3)
    assert hits(cli, "parser", "--tools", "--all-projects") == alone
    assert cli("trace", "parser").err.strip() == "engramory trace: 3 unreadable lines skipped"


def test_role_tool_searches_tools(cli, tree: Tree) -> None:
    assert texts(cli, "passed", "--role", "tool") == ["3 passed in parser tests"]


def test_colour_only_on_a_terminal_without_no_color(cli, tree: Tree, monkeypatch) -> None:
    from engramory.commands import trace as command

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(command.sys, "stdout", Terminal())
    assert command._colour()
    monkeypatch.setenv("NO_COLOR", "1")
    assert not command._colour()
    from engramory.trace.render import context
    from engramory.trace.search import Query

    assert context("the parser answer", Query(["ANSWER"]), True) == [
        "  the parser \x1b[1;31manswer\x1b[0m"
    ]


def test_control_characters_in_a_transcript_are_escaped(cli, tree: Tree) -> None:
    tree.claude(
        tree.project,
        "c0c00000-0000-4000-8000-000000000001",
        [user("e1", "escape \x1b[2J parser here", str(tree.project), ts(10))],
    )
    out = cli("trace", "escape").out
    assert "\x1b" not in out
    assert "**escape** \\x1b[2J parser here" in out


REPEAT_SESSION = "4e900000-0000-4000-8000-000000000005"
PASSWORD = "Tr0ub4" + "dor&3x"


def test_an_unlabelled_repeat_of_a_matched_value_is_masked_everywhere(cli, tree: Tree) -> None:
    """Issue 33: the detector matches ``password: …`` in one message; the agent's reply
    repeats the bare value later; every output of the session masks both."""
    cwd = str(tree.project)
    tree.claude(
        tree.project,
        REPEAT_SESSION,
        [
            user("r1", f"staging login for the reindex: password: {PASSWORD}", cwd, ts(6, 1)),
            assistant("r2", [text(f"Your password `{PASSWORD}` works for reindex")], cwd, ts(6, 2)),
        ],
    )
    for args in (
        ("trace", "works for reindex"),
        ("trace", "works for reindex", "--format", "json"),
        ("trace", "--show", REPEAT_SESSION),
        ("trace", "--show", REPEAT_SESSION, "--format", "json"),
        ("trace", "--list"),
        ("trace", "--list", "--format", "json"),
    ):
        result = cli(*args)
        assert result.code == 0, args
        assert PASSWORD not in result.out and PASSWORD[4:] not in result.out, args
    assert "Tr0u…" in cli("trace", "works for reindex").out
