"""The standing-rules documents: complete, consistent with each other and with the code.

Each must-have rule of the protocol is a set of phrases that must appear in a
document. SKILL.md must hold every rule; rules-snippet.md and every block the
installer renders for a write host must hold every write-side rule; the reader
snippet must hold the recall rules and none of the write-side ones.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

import pytest

from conftest import REPO
from engramory.cli import build_parser
from engramory.hosts.registry import HOSTS, host_names
from engramory.install import blocks
from engramory.store import caps, markdown
from engramory.util import snippet

SKILL = REPO / "SKILL.md"
SNIPPET = REPO / "rules-snippet.md"
READER = REPO / "adapters" / "reader" / "reader-snippet.md"

# rule id -> phrases (regular expressions, case-insensitive) that must all appear.
WRITE_SIDE: dict[str, tuple[str, ...]] = {
    "four-types": (r"`user`", r"`feedback`", r"`project`", r"`reference`"),
    "why-how-lines": (r"Why:", r"How to apply:"),
    "absolute-dates": (r"dates?\b[^.]{0,40}\babsolute",),
    "flat-store-archive": (r"flat", r"archive/"),
    "one-live-project-note": (r"at most one live project note",),
    "no-handoff-store": (r"handoff",),
    "no-secrets": (r"secrets?", r"passwords?", r"tokens?", r"where (a|the) secret lives"),
    "dedup-update-delete": (r"dedup", r"update", r"delete"),
    "settled-fact-vs-current-state": (r"settled fact", r"current state"),
    "completion-checkpoint": (r"task finishes", r"write nothing", r"per-turn log"),
    "no-touching-to-mark-fresh": (r"just to mark it fresh",),
    "continuity-sync": (r"compact", r"clear", r"new thread", r"added", r"skipped"),
    "caps": (r"150 lines", r"20,480 bytes", r"200 lines", r"25,000 bytes", r"lines and bytes"),
    "compaction-steps": (r"shorten", r"merge", r"archive"),
    "archived-topic-keeps-pointer": (r"archived:",),
    "check-and-doctor": (r"engramory check", r"engramory doctor"),
}
RECALL: dict[str, tuple[str, ...]] = {
    "recall-only-relevant": (r"only the notes",),
    "stay-inside-store": (r"outside|leaves? (it|the store)", r"symlink"),
    "recalled-is-fallible": (r"fallible",),
    "never-outranks-user": (r"outrank",),
}
SKILL_ONLY: dict[str, tuple[str, ...]] = {
    "one-canonical-store": (r"one canonical store", r"configurable"),
    "git-ignored": (r"git-ignored",),
    "separate-folder-for-managed-memory": (r"separate folder",),
    "frontmatter-fields": (
        r"`name`",
        r"`description`",
        r"`type`",
        r"`scope`",
        r"`created`",
        r"`updated`",
    ),
    "quoting-rule": (r"backslash", r"bare value"),
    "scope": (r"`global`", r"`repo`", r"not equally bad|asymmetric"),
    "scope-out-of-index": (r"stays out of the index",),
    "index-pointers-only": (r"one pointer line per note", r"no content"),
    "index-headings": (r"## user", r"## feedback", r"## project", r"## reference"),
    "what-counts-as-a-task": (r"what counts as a task", r"greeting"),
    "attacker-influenceable": (r"attacker-influenceable",),
    "report-after-sync": (r"index size",),
    "reliability-model": (r"deterministic", r"best-effort"),
    "shell-write-coverage": (r"shell",),
    "degradation-ladder": (r"degradation ladder", r"pre-write deny hook"),
    "mcp-stance": (r"MCP",),
}
ALL_RULES = {**WRITE_SIDE, **RECALL, **SKILL_ONLY}


def missing(text: str, rules: dict[str, tuple[str, ...]]) -> list[str]:
    """The ids of the rules whose phrases are not all in ``text``.

    Emphasis markers are dropped and whitespace collapsed first, so a phrase
    may be bold or wrap across lines.
    """
    flat = " ".join(text.replace("*", "").split())
    return [
        rule
        for rule, phrases in rules.items()
        if not all(re.search(p, flat, re.IGNORECASE) for p in phrases)
    ]


def body_of(path: Path) -> str:
    return snippet.strip_install_header(path.read_text(encoding="utf-8"))


def rendered_write_blocks() -> dict[str, str]:
    out = {}
    for name, spec in HOSTS.items():
        text = blocks.body(spec, False, ".engramory-memory", hooks=spec.pre_write_hook)
        out[name] = (
            blocks.dedicated_file(spec, False, text)
            if spec.rules_kind == "file"
            else (blocks.block(spec, False, text))
        )
    return out


def rendered_reader_blocks() -> dict[str, str]:
    return {name: blocks.body(spec, True, "/stores/owner") for name, spec in HOSTS.items()}


# --- completeness -----------------------------------------------------------------


def test_skill_has_the_whole_protocol() -> None:
    assert missing(SKILL.read_text(encoding="utf-8"), ALL_RULES) == []


def test_rules_snippet_has_every_write_side_and_recall_rule() -> None:
    assert missing(body_of(SNIPPET), {**WRITE_SIDE, **RECALL}) == []


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_every_rendered_write_block_has_every_write_side_rule(host: str) -> None:
    assert missing(rendered_write_blocks()[host], {**WRITE_SIDE, **RECALL}) == []


def test_reader_snippet_has_recall_rules_and_no_write_side_rule() -> None:
    text = body_of(READER)
    assert missing(text, RECALL) == []
    present = [rule for rule in WRITE_SIDE if rule not in missing(text, {rule: WRITE_SIDE[rule]})]
    assert present == []
    assert re.search(r"sole writer", text) and re.search(r"never", text, re.IGNORECASE)


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_rendered_reader_blocks_carry_no_write_rules_or_cap_tooling(host: str) -> None:
    text = rendered_reader_blocks()[host]
    assert "engramory check" not in text and not re.search(r"\bcaps?\b", text, re.IGNORECASE)
    assert all(rule in missing(text, WRITE_SIDE) for rule in WRITE_SIDE)


@pytest.mark.parametrize(
    ("document", "rule"),
    [
        ("SKILL.md", "one-live-project-note"),
        ("SKILL.md", "mcp-stance"),
        ("rules-snippet.md", "no-secrets"),
        ("rules-snippet.md", "completion-checkpoint"),
    ],
)
def test_deleting_a_rule_from_a_document_is_caught(document: str, rule: str) -> None:
    text = (REPO / document).read_text(encoding="utf-8")
    phrase = ALL_RULES[rule][0]
    mutilated = "\n".join(
        line for line in text.split("\n") if not re.search(phrase, line, re.IGNORECASE)
    )
    assert rule not in missing(text, {rule: ALL_RULES[rule]})
    assert rule in missing(mutilated, {rule: ALL_RULES[rule]})


# --- consistency ------------------------------------------------------------------------


def documents() -> list[Path]:
    """The repository's markdown, outside tests, build output and hidden or virtual-env folders.

    The README's set-up commands create ``.venv/`` in the checkout; the copies
    of the documents inside it are not the documents.
    """
    skip = {"tests", "build", "dist", "venv"}
    return sorted(
        p
        for p in REPO.rglob("*.md")
        if not any(part in skip or part.startswith(".") for part in p.relative_to(REPO).parts)
    )


def test_at_most_one_never_exactly_one_live_project_note() -> None:
    for path in documents():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"exactly one (live )?project note", text, re.IGNORECASE), path
    for host, text in rendered_write_blocks().items():
        assert "at most one live project note" in text.lower(), host


def test_caps_quoted_in_documents_equal_the_code() -> None:
    # one unit everywhere: exact bytes with thousands separators (25,000 bytes), never KB
    soft = (caps.DEFAULT_WARN_LINES, caps.DEFAULT_WARN_BYTES)
    hard = (caps.DEFAULT_HARD_LINES, caps.DEFAULT_HARD_BYTES)
    quoted = 0
    for path in [*documents(), *(REPO / "templates").glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\d+ lines ?/ ?\d+ KB", text), path
        for match in re.finditer(r"(\d+) lines ?/ ?(\d{1,3}(?:,\d{3})+) bytes", text):
            quoted += 1
            pair = (int(match.group(1)), int(match.group(2).replace(",", "")))
            assert pair in (soft, hard), (path, match.group(0))
        for match in re.finditer(r"\b(2\d{4})\b(?= bytes|\))", text):
            assert int(match.group(1)) in (caps.DEFAULT_WARN_BYTES, caps.DEFAULT_HARD_BYTES), path
    assert quoted >= 5


def link_targets(path: Path) -> list[str]:
    text = markdown.strip_code(path.read_text(encoding="utf-8"))
    targets = []
    for line in text.split("\n"):
        for link in markdown.find_links(line):
            if link.form == markdown.INLINE:
                targets.append(link.target)
    return targets


def test_every_relative_link_resolves() -> None:
    broken = []
    for path in documents():
        for target in link_targets(path):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
                continue
            relative = target.split("#", 1)[0]
            if relative and not (path.parent / relative).exists():
                broken.append(f"{path.relative_to(REPO)} -> {target}")
    assert broken == []


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of ``text`` (lower case, punctuation dropped,
    spaces to hyphens, a repeated one suffixed ``-1``, ``-2``...)."""
    seen: dict[str, int] = {}
    anchors = set()
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        heading = None if fenced else re.match(r"#{1,6} +(.*?) *#* *$", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def broken_anchors(path: Path) -> list[str]:
    """The links of ``path`` whose ``#anchor`` names no heading of the file they point to."""
    broken = []
    for target in link_targets(path):
        if "#" not in target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue
        relative, anchor = target.split("#", 1)
        linked = (path.parent / relative) if relative else path
        if linked.suffix == ".md" and linked.is_file():
            if anchor not in heading_anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{path.relative_to(REPO)} -> {target}")
    return broken


def test_every_anchor_names_a_heading() -> None:
    assert [bad for path in documents() for bad in broken_anchors(path)] == []


def test_a_missing_anchor_is_reported(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    page = tmp_path / "page.md"
    page.write_text("# Use it in CI\n\n[ok](#use-it-in-ci) [bad](#use-it-in-cd)\n", "utf-8")
    assert broken_anchors(page) == ["page.md -> #use-it-in-cd"]
    assert heading_anchors("## `engramory check`\n## A: b, c\n## A: b, c\n") == {
        "engramory-check",
        "a-b-c",
        "a-b-c-1",
    }


def subcommand_options() -> dict[str, set[str]]:
    """Each command's flags, keyed ``"doctor"``; nested commands keyed ``"sync status"``."""
    parser = build_parser()
    (action,) = [a for a in parser._actions if a.dest == "command"]
    options: dict[str, set[str]] = {}
    for name, sub in action.choices.items():
        options[name] = {opt for a in sub._actions for opt in a.option_strings}
        for nested in sub._actions:
            if isinstance(nested, argparse._SubParsersAction):
                for child, child_parser in nested.choices.items():
                    options[f"{name} {child}"] = options[name] | {
                        opt for a in child_parser._actions for opt in a.option_strings
                    }
    return options


def shown_commands(text: str) -> list[str]:
    """Every ``engramory ...`` command in code blocks and code spans of a document."""
    found = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.DOTALL):
        found += [line for line in block.split("\n") if re.search(r"(^|[\s$|;&(])engramory ", line)]
    found += re.findall(r"`(engramory [^`]+)`", text)
    return found


def shown_words(line: str) -> list[str] | None:
    """The words of the ``engramory COMMAND ...`` on a line, or ``None`` when it is not one."""
    command = line[line.index("engramory ") :]
    command = re.split(r"\s+(?:#|\||&&|;|<|>)\s?", command)[0]
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if len(words) < 2 or words[1].startswith("-"):
        return None  # a flag of the top-level command
    if any(word.endswith(":") for word in words[1:3]):
        return None  # a line of output ("engramory doctor: clean ...")
    if words[1] in ("COMMAND", "<command>"):
        return None
    return words


def command_problems(words: list[str], options: dict[str, set[str]], hosts: set[str]) -> list[str]:
    """What is wrong with one shown command: an unknown (sub)command, flag or host."""
    sub, rest = words[1], words[2:]
    nested = {key.split(" ", 1)[1] for key in options if key.startswith(sub + " ")}
    if nested:
        if not rest:
            return []  # the group itself, named in prose ("see `engramory sync`")
        if not rest[0].startswith("-"):  # else the group's own flags (`engramory import --undo`)
            choices = rest[0].split("|")
            if not set(choices) <= nested:
                return [f"no known {sub} command in {' '.join(words)!r}"]
            sub, rest = f"{sub} {choices[0]}", rest[1:]
    if sub not in options:
        return [f"unknown command {' '.join(words)!r}"]
    problems = [
        f"{word.split('=', 1)[0]} is not a flag of {sub}"
        for word in rest
        if word.startswith("--") and word.split("=", 1)[0] not in options[sub]
    ]
    if sub in ("init", "uninstall") and rest and not rest[0].startswith("-"):
        if rest[0] not in hosts:
            problems.append(f"unknown host {rest[0]}")
    return problems


def test_command_problems_catches_unknown_commands_flags_and_hosts() -> None:
    options = subcommand_options()
    hosts = set(host_names())
    assert command_problems(["engramory", "import", "--undo", "X"], options, hosts) == []
    assert command_problems(["engramory", "import", "--nope"], options, hosts) == [
        "--nope is not a flag of import"
    ]
    assert (
        command_problems(["engramory", "sync", "status", "--format", "json"], options, hosts) == []
    )
    assert command_problems(["engramory", "sync", "hook|mark-synced|status"], options, hosts) == []
    assert command_problems(["engramory", "sync"], options, hosts) == []
    assert command_problems(["engramory", "sync", "--bogus"], options, hosts)
    assert command_problems(["engramory", "sync", "hook|nothing"], options, hosts)
    assert command_problems(["engramory", "sync", "mark-synced", "--bogus"], options, hosts)
    assert command_problems(["engramory", "init", "nohost"], options, hosts)
    assert command_problems(["engramory", "frobnicate"], options, hosts)


def test_every_command_shown_in_the_documents_exists_with_its_flags() -> None:
    options = subcommand_options()
    hosts = set(host_names()) | {"HOST", "<host>", "<host>-reader", "<HOST>"}
    problems = []
    checked = 0
    for path in documents():
        for line in shown_commands(path.read_text(encoding="utf-8")):
            words = shown_words(line)
            if words is None:
                continue
            checked += 1
            problems += [f"{path.name}: {p}" for p in command_problems(words, options, hosts)]
    assert problems == []
    assert checked > 20


def test_rendered_blocks_have_no_install_header() -> None:
    headers = [SNIPPET.read_text().split("\n")[0], READER.read_text().split("\n")[0], "Paste"]
    for text in [*rendered_write_blocks().values(), *rendered_reader_blocks().values()]:
        assert not any(header in text for header in headers)
        assert "<MEMORY_ROOT>" not in text


def test_snippet_block_is_short() -> None:
    assert len(body_of(SNIPPET).encode("utf-8")) <= 4096


def test_skill_frontmatter_loads_in_a_skill_loader() -> None:
    from engramory.store.frontmatter import parse

    fm = parse(SKILL.read_text(encoding="utf-8"))
    assert fm.problems == () and fm.fields["name"] == "engramory"
    description = fm.fields["description"]
    assert ": " not in description and " #" not in description  # valid as a plain YAML scalar
    for trigger in ("start of a task", "durable", "task finishes", "nothing", "compact"):
        assert trigger in description


def test_templates_index_is_clean_and_notes_are_valid(tmp_path: Path) -> None:
    from engramory.doctor import engine

    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text((REPO / "templates" / "MEMORY.md").read_text())
    report = engine.run(str(store), caps.Caps())
    assert report.findings == []
    for note in (REPO / "templates").glob("note-*.md"):
        (store / note.name).write_text(note.read_text())
    report = engine.run(
        str(store),
        caps.Caps(),
        selected={
            "frontmatter-syntax",
            "missing-field",
            "invalid-type",
            "missing-date",
            "invalid-date",
            "missing-why",
            "missing-how-to-apply",
            "empty-label",
            "no-frontmatter",
        },
    )
    assert report.findings == []


def test_windsurf_rules_file_stays_under_its_character_limit() -> None:
    spec = HOSTS["windsurf"]
    long_store = "/home/someone/with/a/rather/long/path/to/the/memory/store"
    text = blocks.dedicated_file(spec, False, blocks.body(spec, False, long_store))
    assert len(text) <= 12000


# --- hooks/README.md --------------------------------------------------------------------

HOOKS_README = REPO / "hooks" / "README.md"


def hooks_readme_problems(text: str) -> list[str]:
    """What ``hooks/README.md`` misses or gets wrong about the scripts and the entries init writes."""
    from engramory.wiring import hookwiring

    problems = [
        f"hooks/{path.name} is not in the file table"
        for path in sorted((REPO / "hooks").iterdir())
        if path.is_file() and path.name != "README.md" and f"| `{path.name}` |" not in text
    ]
    rows = {}
    for line in text.split("\n"):
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 4 and cells[1].startswith("`"):
            rows[cells[1].split("`")[1]] = cells
    for event in (*hookwiring.GUARD_EVENTS, *hookwiring.LIFECYCLE_EVENTS):
        expected = {
            spec.label
            for spec in HOSTS.values()
            if spec.hook_config is not None
            and event in spec.hook_groups("py", "g", "s", "/st", "explicit")
        }
        if event not in rows:
            problems.append(f"no row for {event}")
        elif set(rows[event][0].split(", ")) != expected:
            problems.append(f"{event}: hosts {rows[event][0]!r}, the host table says {expected}")
    statuses = (
        hookwiring.GUARD_STATUS,
        hookwiring.MEASURE_STATUS,
        hookwiring.START_STATUS,
        hookwiring.PROMPT_STATUS,
        hookwiring.COMPACT_STATUS,
    )
    problems += [f"{status!r} is not named" for status in statuses if f"`{status}`" not in text]
    if hookwiring.SESSION_MATCHER.replace("|", "\\|") not in text:
        problems.append("the SessionStart matcher is not named")
    return problems


def test_hooks_readme_names_every_script_and_every_entry_init_writes() -> None:
    assert hooks_readme_problems(HOOKS_README.read_text(encoding="utf-8")) == []


def test_hooks_readme_check_catches_a_missing_script_or_a_wrong_host() -> None:
    text = HOOKS_README.read_text(encoding="utf-8")
    without_sync = "\n".join(
        line for line in text.split("\n") if not line.startswith("| `engramory_sync.py`")
    )
    assert hooks_readme_problems(without_sync) == [
        "hooks/engramory_sync.py is not in the file table"
    ]
    claude_only = text.replace(
        "| Claude Code, Codex CLI, Qwen Code | `PreCompact`", "| Claude Code | `PreCompact`"
    )
    assert [p.split(":")[0] for p in hooks_readme_problems(claude_only)] == ["PreCompact"]


# --- the README's set-up commands, and .ci/run running them verbatim ----------------------

README = REPO / "README.md"
CI_RUN = REPO / ".ci" / "run"
README_COMMAND = REPO / ".ci" / "readme_command.py"


def readme_command_module():
    """``.ci/readme_command.py``, the extractor .ci/run uses, loaded as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_command", README_COMMAND)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_readme_command(*args: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, str(README_COMMAND), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("name", ["install", "test"])
def test_readme_setup_command_uses_python3_and_a_venv(name: str) -> None:
    command = readme_command_module().setup_block(README.read_text(encoding="utf-8"), name)
    assert command.count("\n") == 1, command  # one line, copied and run as is
    steps = [step.strip() for step in command.strip().split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    assert steps[1].startswith(".venv/bin/python -m pip install ")
    for step in steps[1:]:  # everything after the venv runs from it, nothing from PATH
        assert step.startswith((".venv/bin/python ", ".venv/bin/engramory ")), step
    if name == "install":
        assert steps[1] == ".venv/bin/python -m pip install ."
        assert steps[-1].startswith(".venv/bin/engramory ")
    else:
        assert steps[1] == ".venv/bin/python -m pip install -e '.[test]'"
        assert steps[-1].startswith(".venv/bin/python -m pytest")


@pytest.mark.parametrize("name", ["install", "test"])
def test_ci_extracts_exactly_the_block_the_readme_shows(name: str) -> None:
    text = README.read_text(encoding="utf-8")
    shown = re.search(rf"^<!-- setup:{name} -->\n```sh\n(.*?)^```$", text, re.M | re.S)
    assert shown, f"no setup:{name} block in README.md"
    proc = run_readme_command(str(README), name)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown.group(1)


def test_ci_runs_both_readme_commands_in_a_fresh_clone_with_python3_and_system_paths() -> None:
    script = CI_RUN.read_text(encoding="utf-8")
    body = script[script.index("readme_step() {") : script.index("readme_step install\n")]
    assert 'git clone -q "$repo" "$clone"' in body
    assert '.ci/readme_command.py" "$clone/README.md" "$name")' in body
    assert 'cd "$clone"' in body and 'PATH="$work/bin:/usr/bin:/bin" "$BASH" -c "$cmd"' in body
    assert re.search(r'^ln -s "\$\(.*sys\.executable.*\)" "\$work/bin/python3"$', script, re.M)
    calls = re.findall(r"^readme_step (\w+)$", script, re.M)
    assert calls == ["install", "test"]
    assert "collected no tests" in body


@pytest.mark.parametrize(
    ("readme", "message"),
    [
        ("# no markers\n", "expected one '<!-- setup:install -->' line, found 0"),
        ("<!-- setup:install -->\n\n```sh\nx\n```\n", "not followed by a fenced code block"),
        ("<!-- setup:install -->\n```sh\nx\n", "is not closed"),
        ("<!-- setup:install -->\n```sh\n\n```\n", "is empty"),
        (
            "<!-- setup:install -->\n```sh\nx\n```\n<!-- setup:install -->\n```sh\ny\n```\n",
            "found 2",
        ),
    ],
)
def test_ci_extractor_fails_loudly_without_a_block(tmp_path: Path, readme: str, message: str):
    path = tmp_path / "README.md"
    path.write_text(readme, encoding="utf-8")
    proc = run_readme_command(str(path), "install")
    assert proc.returncode == 1 and proc.stdout == ""
    assert message in proc.stderr and str(path) in proc.stderr


def test_readme_states_the_supported_python_versions_as_pyproject_does() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    versions = re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', pyproject)
    low, high = min(map(int, versions)), max(map(int, versions))
    assert f'requires-python = ">=3.{low}"' in pyproject
    assert f"Python 3.{low} to 3.{high}" in README.read_text(encoding="utf-8")
