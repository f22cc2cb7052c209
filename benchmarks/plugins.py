"""What Engramory's OpenCode and OpenClaw plugins add to a tool call, under Node.

Reproduce (from the repository root; needs ``node``):

    python benchmarks/plugins.py [--runs 30] [--python /path/to/python3]

For each plugin, the entry ``init --install-hooks`` writes (this interpreter,
the guard and a throw-away 150-line store baked in) is loaded once in a Node
process that stands in for the host, and its tool-call handler
(``tool.execute.before`` / ``before_tool_call``) is awaited ``--runs`` times per
case: a write to another file, a shell command that cannot write, an edit of
the index, a denied write of 250 lines, and a tool the plugin does not guard
(``read``: no process is started). Next to each, the guard process alone on the
same payload, run from Python, and ``python -I -S -c pass`` (the floor). Each
figure is a median in milliseconds; "plugin - guard" is what the JavaScript
side (spawning, piping, parsing) adds to the guard itself.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engramory.hosts.registry import HOSTS  # noqa: E402
from engramory.wiring.hookfiles import HookContext  # noqa: E402

GUARD = REPO / "hooks" / "engramory_index_guard.py"
SYNC = REPO / "hooks" / "engramory_sync.py"

# A stand-in host that times the plugin's tool-call handler: one line of JSON out per case.
TIMER = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [plugin, host, runs] = process.argv.slice(2);
const { directory, cases } = JSON.parse(readFileSync(0, "utf8"));
const mod = await import(pathToFileURL(plugin).href);
let handler;
if (host === "opencode") {
  const hooks = await mod.EngramoryGuard({ directory });
  const before = hooks["tool.execute.before"];
  handler = (tool, args) => before({ tool, sessionID: "s", callID: "c" }, { args });
} else {
  const hooks = {};
  const on = (name, fn) => { hooks[name] = fn; };
  mod.default.register({ on, runtime: { workspaceDir: directory } });
  const ctx = { sessionKey: "k" };
  handler = (tool, params) => hooks.before_tool_call({ toolName: tool, params }, ctx);
}
const out = {};
for (const [name, tool, args] of cases) {
  const times = [];
  for (let i = 0; i < Number(runs); i++) {
    const start = performance.now();
    try { await handler(tool, args); } catch {}
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  out[name] = times[Math.floor(times.length / 2)];
}
process.stdout.write(JSON.stringify(out));
"""


def cases(host: str, store: Path) -> list[tuple[str, str, dict[str, object]]]:
    """(case, tool, arguments) in the host's own shapes."""
    index, app = str(store / "MEMORY.md"), str(store.parent / "app.py")
    path = "filePath" if host == "opencode" else "path"
    old, new = ("oldString", "newString") if host == "opencode" else ("oldText", "newText")
    shell = "bash" if host == "opencode" else "exec"
    return [
        ("non-index write", "write", {path: app, "content": "print(1)\n" * 50}),
        ("non-index shell", shell, {"command": "pytest -q tests/"}),
        ("index edit", "edit", {path: index, old: "note 3]", new: "note three]"}),
        ("denied index write", "write", {path: index, "content": "- [x](x.md)\n" * 250}),
        ("unguarded tool (read)", "read", {path: index}),
    ]


def median_run(argv: list[str], stdin: bytes, runs: int) -> float:
    """Median wall time of ``argv`` in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        print("node is not installed: nothing to measure", file=sys.stderr)
        return 1
    py = args.python
    floor = median_run([py, "-I", "-S", "-c", "pass"], b"", args.runs)
    print(f"medians of {args.runs} calls; floor (`python -I -S -c pass`): {floor:.1f} ms")
    print(f"{'case':<34} {'plugin':>9} {'guard':>9} {'plugin - guard':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = root / "store"
        store.mkdir()
        (store / "MEMORY.md").write_text(
            "".join(f"- [note {i}](note-{i}.md) — a hook\n" for i in range(150))
        )
        timer = root / "timer.mjs"
        timer.write_text(TIMER, encoding="utf-8")
        for host in ("opencode", "openclaw"):
            context = HookContext(py, str(GUARD), str(SYNC), str(store), "explicit", root, root)
            (entry,) = [a for a in HOSTS[host].hook_artifacts(context) if a.path.suffix == ".js"]
            plugin = root / f"{host}.mjs"
            plugin.write_text(entry.text, encoding="utf-8")
            host_cases = cases(host, store)
            scenario = json.dumps({"directory": str(root), "cases": host_cases})
            done = subprocess.run(
                [node, str(timer), str(plugin), host, str(args.runs)],
                input=scenario,
                capture_output=True,
                text=True,
                check=True,
            )
            timings = json.loads(done.stdout)
            guard = HOSTS[host].guard_argv(py, str(GUARD), str(store))
            for name, tool, tool_args in host_cases:
                payload = json.dumps({"tool": tool, "args": tool_args, "cwd": str(root)}).encode()
                alone = median_run(guard, payload, args.runs) if tool != "read" else 0.0
                added = timings[name] - alone
                label = f"{host}: {name}"
                print(f"{label:<34} {timings[name]:7.1f}ms {alone:7.1f}ms {added:13.1f}ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
