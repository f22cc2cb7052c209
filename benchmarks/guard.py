"""Cost of the index guard hook on every tool call, per host, next to the interpreter's start-up.

Reproduce (from the repository root; needs ``hatchling``, as the ``test`` extra has it):

    python benchmarks/guard.py [--runs 40] [--hosts claude,codex] [--checkout]

What it runs: the hook as users run it. The repository is built into a wheel
(``pip wheel --no-deps --no-build-isolation``), installed into a fresh venv
(``python -m venv --without-pip`` + ``pip --python VENV install``: pip compiles every
module to ``__pycache__`` on install, so the hook loads bytecode), and the venv's
interpreter runs ``python -I -S <site-packages>/engramory/_shipped/hooks/
engramory_index_guard.py --host HOST --index STORE/MEMORY.md``, as ``engramory
init`` registers it. ``--checkout`` runs ``hooks/engramory_index_guard.py`` of the
checkout with ``--python`` instead (no build; ``__pycache__`` written on first run).

For each host with a guard dialect (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot,
Cursor, Cline, Kiro CLI, Hermes; OpenCode and OpenClaw as their plugins call it:
what the plugin itself adds is ``benchmarks/plugins.py``) it times that host's own
payloads: a write to another file, an edit of another file, the shell commands an
agent runs all day (``python3 -m pytest``, ``git commit -m x``, ``npm test``), an
edit of a 150-line index (for Codex an ``apply_patch`` of it), a denied write of 250
lines to the index, and a write of a note beside the index (scanned for a secret).
Runs are interleaved with ``python -I -S -c pass`` of the same interpreter (one floor
run before each hook run), and each row is the median of the hook's times over the
median of the floor's, so a machine that slows down for a while slows both alike.

Targets: every non-store write, edit and shell command <= 1.4x the floor; the index
edit, the denied write and the store-note write <= 2x. Prints PASS/FAIL per target;
exit 0 unless ``--check``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOOK = REPO / "hooks" / "engramory_index_guard.py"
EVERYDAY = {
    "non-store shell (pytest)": "python3 -m pytest",
    "non-store shell (git commit)": "git commit -m x",
    "non-store shell (npm test)": "npm test",
}


def interleaved(argv: list[str], stdin: bytes, floor: list[str], runs: int) -> Timing:
    """Median wall and CPU times of ``argv`` and of ``floor``, run alternately ``runs`` times.

    CPU time (user + system, from the children's resource usage) is what the process
    itself spent: on a loaded machine it moves far less than the wall time, which also
    counts the wait for a CPU. Where ``resource`` is missing (Windows) it is ``None``.
    """
    wall: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(runs):
        for is_hook, command, data in ((False, floor, b""), (True, argv, stdin)):
            before = _children_cpu()
            start = time.perf_counter()
            subprocess.run(command, input=data, capture_output=True, check=False)
            wall[is_hook].append(time.perf_counter() - start)
            after = _children_cpu()
            if before is not None and after is not None:
                cpu[is_hook].append(after - before)
    median = statistics.median
    cpu_ratio = median(cpu[True]) / median(cpu[False]) if cpu[True] and cpu[False] else None
    return median(wall[True]), median(wall[False]), cpu_ratio


Timing = tuple[float, float, "float | None"]


def _children_cpu() -> float | None:
    try:
        import resource
    except ImportError:
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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
    cases: dict[str, dict[str, object]] = {
        "claude": {
            "non-index write": claude_like("Write", {"file_path": app, "content": code}),
            "non-index shell": claude_like("Bash", {"command": tests}),
            "non-index edit": claude_like("Edit", {"file_path": app, **edit}),
            "index edit": claude_like("Edit", {"file_path": str(index), **edit}),
            "denied index write": claude_like("Write", {"file_path": str(index), "content": grown}),
            "store note write": claude_like(
                "Write", {"file_path": str(store / "deploy.md"), "content": note}
            ),
            "shell writing elsewhere (tee)": claude_like(
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
        "qwen": {
            "non-index write": claude_like("write_file", {"file_path": app, "content": code}),
            "non-index shell": claude_like("run_shell_command", {"command": tests}),
            "non-index edit": claude_like("edit", {"file_path": app, **edit}),
            "index edit": claude_like("edit", {"file_path": str(index), **edit}),
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
    for by_case in cases.values():
        shell = by_case["non-index shell"]
        for name, command in EVERYDAY.items():
            by_case[name] = json.loads(json.dumps(shell).replace(json.dumps(tests)[1:-1], command))
        # the same write, aimed at a note beside the index (absolute, or relative to the cwd)
        text = json.dumps(by_case["non-index write"]).replace(app, str(store / "deploy.md"))
        by_case.setdefault(
            "store note write", json.loads(text.replace("app.py", "store/deploy.md"))
        )
    return cases


LIMITS = {
    "non-index write": 1.4,
    "non-index shell": 1.4,
    "non-store shell": 1.4,
    "non-index edit": 1.4,
    "index edit": 2.0,
    "denied index write": 2.0,
    "store note write": 2.0,
}


def installed_hook(tmp: Path) -> tuple[str, Path]:
    """Build the repository's wheel, install it into a fresh venv: (its python, its hook)."""
    dist, venv = tmp / "dist", tmp / "venv"
    quiet = {"capture_output": True}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(REPO)], check=True, **quiet,
    )  # fmt: skip
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, **quiet)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    wheel = next(dist.glob("engramory-*.whl"))
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         str(wheel)], check=True, **quiet,
    )  # fmt: skip
    where = subprocess.run(
        [str(python), "-I", "-c", "from engramory.util import resources; "
         "print(resources.shipped_path('hooks/engramory_index_guard.py'))"],
        capture_output=True, text=True, check=True, cwd=tmp,
    ).stdout.strip()  # fmt: skip
    hook = Path(where)
    assert venv.resolve() in hook.resolve().parents, f"{hook} is not the installed wheel's"
    return str(python), hook


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--hosts",
        default="claude,codex,gemini,qwen,copilot,cursor,cline,kiro,opencode,openclaw,hermes",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    parser.add_argument(
        "--checkout", action="store_true", help="run the checkout's hook, not an installed wheel"
    )
    args = parser.parse_args()
    rows: list[tuple[str, float, float, float | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        py, hook_script = (args.python, HOOK) if args.checkout else installed_hook(Path(tmp))
        floor = [py, "-I", "-S", "-c", "pass"]
        store = Path(tmp) / "store"
        store.mkdir()
        (store / "MEMORY.md").write_text(
            "".join(f"- [note {i}](note-{i}.md) — a hook\n" for i in range(150))
        )
        cases = host_payloads(store)
        for host in args.hosts.split(","):
            index = str(store / "MEMORY.md")
            hook = [py, "-I", "-S", str(hook_script), "--host", host, "--index", index]
            for name, payload in cases[host].items():
                stdin = json.dumps(payload).encode()
                rows.append((f"{host}: {name}", *interleaved(hook, stdin, floor, args.runs)))
        if "claude" in args.hosts.split(","):
            stdin = json.dumps(cases["claude"]["non-index write"]).encode()
            label = "claude, registered as `python script.py` (non-index write)"
            rows.append((label, *interleaved([py, str(hook_script)], stdin, floor, args.runs)))
        version = subprocess.run(
            [py, "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()  # not only with claude: --hosts qwen printed no table
    what = f"the checkout's {HOOK}" if args.checkout else "an installed wheel (bytecode compiled)"
    floor_text = "each interleaved with `python -I -S -c pass`"
    print(f"{version}, {what}; medians of {args.runs} runs, {floor_text}")
    print("targets are judged on the CPU-time ratio where it is measured (else on wall time)")
    failed = False
    for name, seconds, floor_seconds, cpu_ratio in rows:
        ratio = seconds / floor_seconds
        judged = cpu_ratio if cpu_ratio is not None else ratio
        case = name.split(": ", 1)[1].split(" (")[0] if ": " in name else None  # "x (devin)": x
        limit = LIMITS.get(case) if case is not None else None
        verdict = "" if limit is None else ("PASS" if judged <= limit else "FAIL") + f" <= {limit}x"
        failed |= verdict.startswith("FAIL")
        cpu_text = f"{cpu_ratio:5.2f}x CPU" if cpu_ratio is not None else "    - CPU"
        print(f"{name:<52} {seconds * 1000:7.1f} ms  {ratio:5.2f}x wall  {cpu_text}  {verdict}")
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
