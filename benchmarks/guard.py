"""Cost of the index guard hook on every tool call, per host, next to the interpreter's start-up.

Reproduce (from the repository root):

    python benchmarks/guard.py [--runs 40] [--python /path/to/python3] [--hosts claude,codex]

The hook runs before every edit an agent makes, on any file, so its floor is
the interpreter start-up. For each host with a guard dialect (Claude Code,
Codex, Gemini CLI, Copilot, Cursor, Cline, Kiro CLI, Hermes; OpenCode and OpenClaw as
their plugins call it: what the plugin itself adds is ``benchmarks/plugins.py``) this script
times the hook as the
installer registers it (``python -I -S hooks/engramory_index_guard.py --host
HOST --index STORE/MEMORY.md``) on that host's own payloads: a write to
another file, a shell command that cannot write, an edit of a 150-line index
(for Codex an ``apply_patch`` of it), and a denied write of 250 lines to the
index (and, for Claude Code, a write of a note beside the index: scanned for a
secret). Runs are interleaved with ``python -I -S -c pass`` (one floor run before
each hook run), and each row is the median of the hook's times over the median
of the floor's, so a machine that slows down for a while slows both alike.
Claude Code also gets a Bash command parsed in full, a denied Bash write, and
its non-index Write registered the way the earlier implementation did
(``python script.py``: site-packages imported).

Targets: every host's non-index write and non-index shell <= 1.5x the floor;
the index edit and the denied write <= 2x. Prints PASS/FAIL per target; exit
0 unless ``--check``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOOK = REPO / "hooks" / "engramory_index_guard.py"


def interleaved(argv: list[str], stdin: bytes, floor: list[str], runs: int) -> tuple[float, float]:
    """Median wall times of ``argv`` and of ``floor``, run alternately ``runs`` times each."""
    hook_times, floor_times = [], []
    for _ in range(runs):
        for command, data, times in ((floor, b"", floor_times), (argv, stdin, hook_times)):
            start = time.perf_counter()
            subprocess.run(command, input=data, capture_output=True, check=False)
            times.append(time.perf_counter() - start)
    return statistics.median(hook_times), statistics.median(floor_times)


def _patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def host_payloads(store: Path) -> dict[str, dict[str, object]]:
    """Each host's four cases, shaped as that host sends them (research/host-hooks-2026-12.md)."""
    index = store / "MEMORY.md"
    app, cwd = str(store.parent / "app.py"), str(store.parent)
    code, grown = "print(1)\n" * 50, "- [x](x.md)\n" * 250
    note = "---\nname: deploy\ndescription: how we deploy\ntype: reference\n---\n\n" + (
        "Deploy with make; the token is in the vault under ci.\n" * 20
    )
    tests = "pytest -q tests/"

    def claude_like(tool: str, tool_input: dict[str, object]) -> dict[str, object]:
        return {
            "hook_event_name": "PreToolUse",
            "cwd": cwd,
            "tool_name": tool,
            "tool_input": tool_input,
        }

    def copilot(tool: str, args: dict[str, object]) -> dict[str, object]:
        return {"timestamp": 0, "cwd": cwd, "toolName": tool, "toolArgs": json.dumps(args)}

    def cursor(tool: str, tool_input: dict[str, object]) -> dict[str, object]:
        return {
            "hook_event_name": "preToolUse",
            "cwd": cwd,
            "workspace_roots": [cwd],
            "tool_name": tool,
            "tool_input": tool_input,
        }

    def cline(tool: str, parameters: dict[str, object]) -> dict[str, object]:
        return {
            "clineVersion": "4.2.0",
            "hookName": "PreToolUse",
            "taskId": "bench",
            "workspaceRoots": [cwd],
            "preToolUse": {"toolName": tool, "parameters": parameters},
        }

    def kiro(tool: str, tool_input: dict[str, object]) -> dict[str, object]:
        return {
            "hook_event_name": "preToolUse",
            "cwd": cwd,
            "session_id": "bench",
            "tool_name": tool,
            "tool_input": tool_input,
        }

    def plugin(tool: str, args: dict[str, object]) -> dict[str, object]:
        return {"tool": tool, "args": args, "cwd": cwd}  # what the OpenCode/OpenClaw plugins send

    edit = {"old_string": "note 3]", "new_string": "note three]"}
    return {
        "claude": {
            "non-index write": claude_like("Write", {"file_path": app, "content": code}),
            "non-index shell": claude_like("Bash", {"command": tests}),
            "index edit": claude_like("Edit", {"file_path": str(index), **edit}),
            "denied index write": claude_like("Write", {"file_path": str(index), "content": grown}),
            "store note write": claude_like(
                "Write", {"file_path": str(store / "deploy.md"), "content": note}
            ),
            "shell parsed in full": claude_like(
                "Bash", {"command": "pytest -q tests/ 2>&1 | tee build.log > /dev/null"}
            ),
            "denied shell write": claude_like(
                "Bash", {"command": f"echo '- [y](y.md)' >> {index}"}
            ),
            # Devin runs Claude's hooks: lower-case tools, no cwd (DEVIN_PROJECT_DIR instead)
            "non-index write (devin)": {
                "hook_event_name": "PreToolUse",
                "tool_name": "write",
                "tool_input": {"file_path": app, "content": code},
            },
            "non-index shell (devin)": {
                "hook_event_name": "PreToolUse",
                "tool_name": "exec",
                "tool_input": {"command": tests, "shell_id": "main"},
            },
        },
        "codex": {
            "non-index write": claude_like(
                "apply_patch", {"command": _patch("*** Add File: app.py\n+print(1)\n")}
            ),
            "non-index shell": claude_like("Bash", {"command": tests}),
            "index edit": claude_like(
                "apply_patch",
                {
                    "command": _patch(
                        f"*** Update File: {index}\n@@\n-- [note 3](note-3.md) — a hook\n"
                        "+- [note three](note-3.md) — a hook\n"
                    )
                },
            ),
            "denied index write": claude_like(
                "apply_patch",
                {"command": _patch(f"*** Add File: {index}\n" + "+- [x](x.md)\n" * 250)},
            ),
        },
        "gemini": {
            "non-index write": claude_like("write_file", {"file_path": app, "content": code}),
            "non-index shell": claude_like("run_shell_command", {"command": tests}),
            "index edit": claude_like("replace", {"file_path": str(index), **edit}),
            "denied index write": claude_like(
                "write_file", {"file_path": str(index), "content": grown}
            ),
        },
        "copilot": {
            "non-index write": copilot("create", {"path": app, "file_text": code}),
            "non-index shell": copilot("bash", {"command": tests}),
            "index edit": copilot(
                "edit", {"path": str(index), "old_str": "note 3]", "new_str": "note three]"}
            ),
            "denied index write": copilot("create", {"path": str(index), "file_text": grown}),
        },
        "cursor": {
            "non-index write": cursor("Write", {"file_path": app, "content": code}),
            "non-index shell": {
                "hook_event_name": "beforeShellExecution",
                "cwd": cwd,
                "workspace_roots": [cwd],
                "command": tests,
            },
            "index edit": cursor("StrReplace", {"path": str(index), **edit}),
            "denied index write": cursor("Write", {"file_path": str(index), "content": grown}),
        },
        "cline": {
            "non-index write": cline("editor", {"path": "app.py", "new_text": code}),
            "non-index shell": cline("run_commands", {"commands": json.dumps([tests, "ls"])}),
            "index edit": cline(
                "editor", {"path": str(index), "old_text": "note 3]", "new_text": "note three]"}
            ),
            "denied index write": cline(
                "editor", {"path": str(index), "new_text": "- [x](x.md)\n" * 60, "insert_line": "3"}
            ),
        },
        "hermes": {
            "non-index write": claude_like("write_file", {"path": app, "content": code}),
            "non-index shell": claude_like("terminal", {"command": tests}),
            "index edit": claude_like("patch", {"mode": "replace", "path": str(index), **edit}),
            "denied index write": claude_like("write_file", {"path": str(index), "content": grown}),
        },
        "kiro": {
            "non-index write": kiro(
                "fs_write", {"command": "create", "path": app, "file_text": code}
            ),
            "non-index shell": kiro("execute_bash", {"command": tests}),
            "index edit": kiro(
                "fs_write",
                {
                    "command": "str_replace",
                    "path": str(index),
                    "old_str": "note 3]",
                    "new_str": "note three]",
                },
            ),
            "denied index write": kiro(
                "fs_write", {"command": "create", "path": str(index), "file_text": grown}
            ),
        },
        "opencode": {
            "non-index write": plugin("write", {"filePath": app, "content": code}),
            "non-index shell": plugin("bash", {"command": tests}),
            "index edit": plugin(
                "edit", {"filePath": str(index), "oldString": "note 3]", "newString": "note three]"}
            ),
            "denied index write": plugin("write", {"filePath": str(index), "content": grown}),
        },
        "openclaw": {
            "non-index write": plugin("write", {"path": app, "content": code}),
            "non-index shell": plugin("exec", {"command": tests}),
            "index edit": plugin(
                "edit", {"path": str(index), "oldText": "note 3]", "newText": "note three]"}
            ),
            "denied index write": plugin("write", {"path": str(index), "content": grown}),
        },
    }


LIMITS = {
    "non-index write": 1.5,
    "non-index shell": 1.5,
    "index edit": 2.0,
    "denied index write": 2.0,
    "store note write": 2.0,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--hosts",
        default="claude,codex,gemini,copilot,cursor,cline,kiro,opencode,openclaw,hermes",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    args = parser.parse_args()
    py = args.python
    floor = [py, "-I", "-S", "-c", "pass"]
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        store.mkdir()
        (store / "MEMORY.md").write_text(
            "".join(f"- [note {i}](note-{i}.md) — a hook\n" for i in range(150))
        )
        cases = host_payloads(store)
        for host in args.hosts.split(","):
            hook = [py, "-I", "-S", str(HOOK), "--host", host, "--index", str(store / "MEMORY.md")]
            for name, payload in cases[host].items():
                stdin = json.dumps(payload).encode()
                rows.append((f"{host}: {name}", *interleaved(hook, stdin, floor, args.runs)))
        if "claude" in args.hosts.split(","):
            stdin = json.dumps(cases["claude"]["non-index write"]).encode()
            label = "claude, registered as `python script.py` (non-index write)"
            rows.append((label, *interleaved([py, str(HOOK)], stdin, floor, args.runs)))
    version = subprocess.run(
        [py, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"{version}, medians of {args.runs} runs, each interleaved with `python -I -S -c pass`")
    failed = False
    for name, seconds, floor_seconds in rows:
        ratio = seconds / floor_seconds
        case = name.split(": ", 1)[1].split(" (")[0] if ": " in name else None  # "x (devin)": x
        limit = LIMITS.get(case) if case is not None else None
        verdict = "" if limit is None else ("PASS" if ratio <= limit else "FAIL") + f" <= {limit}x"
        failed |= verdict.startswith("FAIL")
        print(f"{name:<48} {seconds * 1000:7.1f} ms  {ratio:5.2f}x floor  {verdict}")
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
