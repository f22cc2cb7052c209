"""The command-line skeleton: version, help, usage errors, entry points."""

from __future__ import annotations

import argparse

from conftest import run_engramory
from engramory import __version__
from engramory.cli import build_parser


def test_version(cli) -> None:
    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"engramory {__version__}"


def test_python_dash_m_version() -> None:
    proc = run_engramory("--version")
    assert proc.returncode == 0
    assert proc.stdout.decode().strip() == f"engramory {__version__}"


def test_no_command_prints_help_and_exits_64(cli) -> None:
    result = cli()
    assert result.code == 64
    assert "COMMAND" in result.err


def test_unknown_command_exits_64(cli) -> None:
    result = cli("frobnicate")
    assert result.code == 64
    assert "invalid choice: 'frobnicate'" in result.err


def test_unknown_top_level_flag_exits_64_as_a_process() -> None:
    proc = run_engramory("--frobnicate")
    assert proc.returncode == 64  # not argparse's 2


def test_check_bogus_prints_checks_own_usage_and_exits_64() -> None:
    proc = run_engramory("check", "--bogus")
    err = proc.stderr.decode()
    assert proc.returncode == 64
    assert err.startswith("usage: engramory check [-h]")
    assert err.splitlines()[-1] == "engramory check: error: unrecognized arguments: --bogus"
    assert "COMMAND" not in err  # not the top-level usage


def test_an_unknown_flag_gets_the_usage_of_every_command(cli) -> None:
    for name in command_names():
        result = cli(name, "--bogus")
        assert result.code == 64, name
        assert result.err.startswith(f"usage: engramory {name} "), (name, result.err)


def test_an_unknown_flag_of_a_sub_action_gets_that_actions_usage(cli) -> None:
    result = cli("export", "memoir", "out", "--bogus")
    assert result.code == 64
    assert result.err.startswith("usage: engramory export memoir [-h]")
    assert "engramory export memoir: error: unrecognized arguments: --bogus" in result.err


def test_help_exits_0_and_shows_examples(cli) -> None:
    result = cli("--help")
    assert result.code == 0
    assert "examples:" in result.out and "engramory check" in result.out


def command_names() -> list[str]:
    from engramory.cli import build_parser

    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if a.dest == "command"]
    return sorted(subparsers.choices)


def test_every_command_help_has_examples(cli) -> None:
    names = command_names()
    assert "check" in names and "doctor" in names
    for name in names:
        result = cli(name, "--help")
        assert result.code == 0
        assert "examples:" in result.out, name


def test_errors_name_the_command_and_never_show_a_traceback(tmp_path) -> None:
    proc = run_engramory("check", str(tmp_path / "missing"))
    assert proc.returncode == 66
    assert proc.stderr.startswith(b"engramory check: ")
    assert b"Traceback" not in proc.stderr


def test_closed_stdout_pipe_is_quiet(tmp_path) -> None:
    import subprocess
    import sys

    from conftest import EXAMPLE_STORE, REPO

    proc = subprocess.Popen(
        [sys.executable, "-m", "engramory", "doctor", str(EXAMPLE_STORE), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader went away before the output was written
    err = proc.stderr.read()
    assert proc.wait(timeout=30) == 141
    assert err == b""


def test_no_action_parser_resets_an_option_its_command_parser_took() -> None:
    """``import --store S memoir DIR``: an option the command's parser and an action's parser
    both define must keep the value given before the action (argparse copies every default
    of the action's parser over it unless that default is SUPPRESS)."""
    shadowing = []

    def walk(parser: argparse.ArgumentParser, path: str, above: set[str]) -> None:
        own = {action.dest for action in parser._actions if action.option_strings} - {"help"}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    for option in sub._actions:
                        shared = option.option_strings and option.dest in (own | above)
                        if shared and option.default is not argparse.SUPPRESS:
                            shadowing.append(f"{path} {name} {option.dest}")
                    walk(sub, f"{path} {name}", own | above)

    walk(build_parser(), "engramory", set())
    assert shadowing == []
