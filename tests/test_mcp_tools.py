"""The MCP tools: every happy path and refusal leaves the store as the CLI would."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from daysseen import days_seen
from mcpkit import call, line, session

from conftest import REPO, run_engramory
from doctorkit import doctor, make_store, note, valid_store
from engramory.continuity import state as continuity
from engramory.mcp import tools
from engramory.store.caps import Caps
from engramory.store.frontmatter import parse
from engramory.store.markdown import classify_index

AWS = "AKIA" + "QWERTYUIOPASDFGH"[::-1]


def tree(root: Path) -> dict[str, str]:
    """Every entry's content (hashed) by store-relative path: two stores compare equal."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def use(store: Path, name: str, arguments: dict[str, Any], caps: Caps | None = None) -> Any:
    """Call a tool in-process; the result as a client sees it."""
    context = tools.Context(os.path.realpath(store), caps or Caps())
    tool = next(t for t in tools.TOOLS if t.name == name)
    return tools.call(context, tool, arguments).as_result()


def text_of(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """Two equal stores: one for the CLI, one for the tool."""
    one = valid_store(tmp_path / "cli")
    other = tmp_path / "mcp"
    shutil.copytree(one, other)
    return one, other


WRITES = [
    (
        ["feedback", "test-style", "--description", "How tests are shaped", "--scope", "repo",
         "--body", "Small tests.\r\nOne file each.", "--why", "reviews go faster",
         "--how", "one behaviour per test", "--title", "Tests"],
        {"type": "feedback", "slug": "test-style", "description": "How tests are shaped",
         "scope": "repo", "body": "Small tests.\r\nOne file each.", "why": "reviews go faster",
         "how": "one behaviour per test", "title": "Tests"},
    ),
    (
        ["user", "editor", "--description", "Editor setup"],
        {"type": "user", "slug": "editor", "description": "Editor setup"},
    ),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "arguments"), WRITES)
def test_memory_write_is_engramory_new(pair, cli, argv, arguments) -> None:
    one, other = pair
    assert cli("new", *argv, "--store", str(one)).code == 0
    result = use(other, "memory_write", arguments)
    assert result["isError"] is False, result
    assert tree(one) == tree(other)
    assert result["structuredContent"]["created"] == arguments["slug"] + ".md"
    assert not (other / continuity.LOCK_NAME).exists()  # the lock leaves no file behind


def test_memory_write_lists_similar_notes_as_new_does(pair, cli) -> None:
    one, other = pair
    argv = ["user", "x", "--description", "When to open user-role: a hook", "--format", "json"]
    printed = cli("new", *argv, "--store", str(one)).out
    result = use(other, "memory_write", {"type": "user", "slug": "x",
                                         "description": "When to open user-role: a hook"})  # fmt: skip
    similar = result["structuredContent"]["similar"]
    assert similar and similar[0]["path"] == "user-role.md"
    assert f'"similar": [{{"path": "{similar[0]["path"]}"' in printed
    assert "update one of these instead?" in text_of(result)


REFUSALS = [
    ("duplicate slug", {"type": "user", "slug": "user-role", "description": "d"}, "already exists"),
    ("archived slug", {"type": "user", "slug": "old", "description": "d"}, "already exists"),
    ("secret", {"type": "user", "slug": "x", "description": "d", "body": f"key {AWS}"},
     "AWS access key id"),
    ("secret in description", {"type": "user", "slug": "x", "description": f"key {AWS}"},
     "AWS access key id"),
    ("path slug", {"type": "user", "slug": "../x", "description": "d"}, "not lower-case"),
    ("dotdot", {"type": "user", "slug": "..", "description": "d"}, "not lower-case"),
    ("absolute", {"type": "user", "slug": "/tmp/x", "description": "d"}, "not lower-case"),
    ("backslash", {"type": "user", "slug": "a\\b", "description": "d"}, "not lower-case"),
    ("bad type", {"type": "note", "slug": "x", "description": "d"}, "must be one of"),
    ("no why", {"type": "feedback", "slug": "x", "description": "d", "how": "h"}, "needs why"),
    ("why on user", {"type": "user", "slug": "x", "description": "d", "why": "w"},
     "why is for feedback"),
    ("two lines", {"type": "user", "slug": "x", "description": "a\nb"}, "one line"),
    ("unknown argument", {"type": "user", "slug": "x", "description": "d", "path": "/x"},
     "unknown argument"),
    ("missing argument", {"type": "user", "slug": "x"}, "missing argument 'description'"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "arguments", "said"), REFUSALS)
def test_memory_write_refusals_write_nothing(tmp_path, case, arguments, said) -> None:
    store = valid_store(tmp_path / "s")
    (store / "archive").mkdir()
    (store / "archive" / "old.md").write_text(note("old"), encoding="utf-8")
    before = tree(store)
    result = use(store, "memory_write", arguments)
    assert result["isError"] is True, case
    assert said in text_of(result)
    assert AWS not in text_of(result)
    assert tree(store) == before


def test_over_cap_write_refused_with_news_message(pair, cli) -> None:
    one, other = pair
    lines = len((one / "MEMORY.md").read_text(encoding="utf-8").split("\n"))
    refused = cli("new", "user", "x", "--description", "d", "--store", str(one),
                  "--hard-lines", str(lines - 1))  # fmt: skip
    before = tree(other)
    result = use(other, "memory_write", {"type": "user", "slug": "x", "description": "d"},
                 Caps(hard_lines=lines - 1))  # fmt: skip
    assert result["isError"] is True and "over its hard cap" in text_of(result)
    assert refused.err.strip() == "engramory new: " + text_of(result)
    assert tree(other) == before == tree(one)


def test_memory_read_live_archived_and_refusals(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "archive").mkdir()
    (store / "archive" / "old.md").write_text(note("old"), encoding="utf-8")
    (tmp_path / "outside.md").write_text("secret outside", encoding="utf-8")
    os.symlink(tmp_path / "outside.md", store / "leak.md")
    live = use(store, "memory_read", {"slug": "user-role"})
    assert text_of(live) == (store / "user-role.md").read_text(encoding="utf-8")
    assert live["structuredContent"]["archived"] is False
    archived = use(store, "memory_read", {"slug": "old"})
    assert archived["structuredContent"] == {
        "path": "archive/old.md", "archived": True, "text": note("old"),
    }  # fmt: skip
    for slug in ("../outside", "..", "/etc/passwd", "a/b", "a\\b", "C:x", "MEMORY", "leak",
                 "missing"):  # fmt: skip
        result = use(store, "memory_read", {"slug": slug})
        assert result["isError"] is True, slug
        assert "secret outside" not in text_of(result)


def test_memory_search_words_case_and_order(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {
            "a-body.md": note("a-body", body="The Straße parser\x1b[31m fails on tabs.\n"),
            "b-desc.md": note("b-desc", description="Parser notes for STRASSE tabs"),
            "c-one.md": note("c-one", body="Only the parser here.\n"),
            "d-secret.md": note("d-secret", body=f"parser strasse tabs key {AWS}\n"),
        },
    )
    result = use(store, "memory_search", {"query": "parser STRASSE Tabs"})
    hits = result["structuredContent"]["results"]
    assert [h["path"] for h in hits] == ["b-desc.md", "a-body.md", "d-secret.md"]
    assert result["structuredContent"]["total"] == 3
    assert "\\x1b" in hits[1]["excerpt"] and "\x1b" not in text_of(result)
    assert AWS not in text_of(result) and AWS[:4] in hits[2]["excerpt"]
    limited = use(store, "memory_search", {"query": "parser", "limit": 1})
    assert len(limited["structuredContent"]["results"]) == 1
    assert limited["structuredContent"]["total"] == 4
    assert use(store, "memory_search", {"query": "  "})["isError"] is True
    assert use(store, "memory_search", {"query": "x", "limit": 0})["isError"] is True


def test_memory_index_sizes_and_the_hosts_cut(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    text = (store / "MEMORY.md").read_text(encoding="utf-8")
    result = use(store, "memory_index", {})
    assert result["structuredContent"]["text"] == text
    assert result["structuredContent"]["verdict"] == "ok"
    assert result["structuredContent"]["cut_at_line"] is None
    small = Caps(warn_lines=3, hard_lines=4)
    cut = use(store, "memory_index", {}, small)["structuredContent"]
    assert cut["verdict"] == "over" and cut["cut_at_line"] == 5
    assert cut["text"] == "".join(text.splitlines(keepends=True)[:4])
    empty = tmp_path / "e"
    empty.mkdir()
    assert "does not exist yet" in text_of(use(empty, "memory_index", {}))


def test_memory_update_rewrites_in_place_and_follows_the_pointer(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    assert not use(store, "memory_write", {"type": "user", "slug": "editor",
                                           "description": "Editor setup", "body": "Vim."})["isError"]  # fmt: skip
    with days_seen() as days:
        result = use(store, "memory_update", {"slug": "editor", "description": "Editor and shell",
                                              "body": "Neovim."})  # fmt: skip
    assert result["isError"] is False, result
    text = (store / "editor.md").read_text(encoding="utf-8")
    assert parse(text).fields["description"] == "Editor and shell"
    assert parse(text).fields["updated"] in days and text.endswith("\nNeovim.\n")
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [Editor](editor.md) — Editor and shell" in index
    assert "Editor setup" not in index
    assert [f for f in doctor(store).findings if f.severity == "error"] == []


def test_memory_update_keeps_why_and_how_when_only_the_body_changes(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    result = use(store, "memory_update", {"slug": "feedback-tests", "why": "a new reason"})
    assert result["isError"] is False, result
    text = (store / "feedback-tests.md").read_text(encoding="utf-8")
    assert "**Why:** a new reason\n" in text
    assert "**How to apply:** the next action.\n" in text
    assert "The fact behind feedback-tests" in text
    # the index line of valid_store is not new's form: left alone, and said so
    result = use(store, "memory_update", {"slug": "feedback-tests", "description": "Other"})
    assert "update the pointer's description by hand" in text_of(result)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"slug": "user-role", "body": f"key {AWS}"}, "AWS access key id"),
        ({"slug": "project-migration", "body": "No reason."}, "would not pass the doctor"),
        ({"slug": "../user-role", "body": "x"}, "not a bare slug"),
        ({"slug": "..", "body": "x"}, "not a bare slug"),
        ({"slug": "missing", "body": "x"}, "no note missing.md"),
        ({"slug": "user-role"}, "nothing to update"),
        ({"slug": "user-role", "description": " "}, "description is empty"),
        ({"slug": "user-role", "why": "a\nb"}, "one line"),
    ],
)
def test_memory_update_refusals_write_nothing(tmp_path: Path, arguments, said) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    result = use(store, "memory_update", arguments)
    assert result["isError"] is True and said in text_of(result), result
    assert AWS not in text_of(result)
    assert tree(store) == before


def test_memory_update_allows_a_secret_the_note_already_holds(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"k.md": note("k", body=f"old key {AWS}\n")})
    result = use(store, "memory_update", {"slug": "k", "body": f"the key {AWS} moved"})
    assert result["isError"] is False, result


def test_memory_update_refuses_pointer_growth_over_the_hard_cap(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    use(store, "memory_write", {"type": "user", "slug": "editor", "description": "Editor"})
    size = (store / "MEMORY.md").stat().st_size
    before = tree(store)
    result = use(store, "memory_update", {"slug": "editor", "description": "E" * 100},
                 Caps(hard_bytes=size + 10, warn_bytes=size))  # fmt: skip
    assert result["isError"] is True and "over its hard cap" in text_of(result)
    assert tree(store) == before


def test_memory_archive_is_engramory_archive(pair, cli) -> None:
    one, other = pair
    assert cli("archive", "user-role", "--store", str(one)).code == 0
    result = use(other, "memory_archive", {"slug": "user-role"})
    assert result["isError"] is False, result
    assert tree(one) == tree(other)
    assert result["structuredContent"]["to"] == "archive/user-role.md"
    assert cli("archive", "reference-logs", "--keep-pointer", "--store", str(one)).code == 0
    use(other, "memory_archive", {"slug": "reference-logs", "keep_pointer": True})
    assert tree(one) == tree(other)


@pytest.mark.parametrize("slug", ["..", "../x", "/etc/passwd", "a/b", "missing", "MEMORY"])
def test_memory_archive_refusals(pair, slug) -> None:
    _, store = pair
    before = tree(store)
    result = use(store, "memory_archive", {"slug": slug})
    assert result["isError"] is True
    assert tree(store) == before


def test_a_write_through_the_server_process(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    arguments = {"type": "user", "slug": "x", "description": "d"}
    _, out = session(store, line(call(1, "memory_write", arguments)) + line(
        call(2, "memory_write", arguments)))  # fmt: skip
    assert out[0]["result"]["isError"] is False
    assert out[1]["result"]["isError"] is True
    assert "already exists" in out[1]["result"]["content"][0]["text"]


def test_the_cli_new_takes_the_store_lock(tmp_path: Path) -> None:
    """A server holding the lock makes `engramory new` wait (here: past its bounded wait)."""
    store = valid_store(tmp_path / "s")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time, fcntl, os; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
         str(store / continuity.LOCK_NAME)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        for argv in (("new", "user", "x", "--description", "d"), ("archive", "user-role")):
            result = run_engramory(*argv, "--store", str(store))
            assert result.returncode == 1 and b"waiting for the state lock" in result.stderr
        assert not (store / "x.md").exists() and (store / "user-role.md").exists()
    finally:
        holder.kill()
        holder.wait()


CLIENT = """
import json, subprocess, sys
store, who = sys.argv[1], sys.argv[2]
lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": who, "version": "1"}}}]
for n in range(25):
    lines.append({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": {
        "name": "memory_write", "arguments": {"type": "user", "slug": f"c{who}-{n}",
        "description": f"client {who} note {n}"}}})
data = "".join(json.dumps(m) + "\\n" for m in lines).encode()
out = subprocess.run([sys.executable, "-m", "engramory", "mcp", "--store", store],
                     input=data, capture_output=True, check=True).stdout
answers = [json.loads(x) for x in out.decode().splitlines()][1:]
bad = [a for a in answers if a["result"]["isError"]]
print(json.dumps(bad))
"""


def test_four_clients_writing_together_lose_nothing(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env = {k: v for k, v in env.items() if not k.startswith("ENGRAMORY_")}
    clients = [
        subprocess.Popen(
            [sys.executable, "-c", CLIENT, str(store), str(who)], stdout=subprocess.PIPE, env=env
        )
        for who in range(4)
    ]
    for client in clients:
        out, _ = client.communicate(timeout=300)
        assert client.returncode == 0 and out.strip() == b"[]", out
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    targets = [link.target for entry in classify_index(index) for link in entry.links]
    for who in range(4):
        for n in range(25):
            assert (store / f"c{who}-{n}.md").is_file()
            assert targets.count(f"c{who}-{n}.md") == 1
    assert [f for f in doctor(store).findings if f.severity == "error"] == []


def test_hosts_prints_the_mcp_servers_entry(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    entry = json.loads(cli("hosts", "--mcp", "--store", str(store)).out)
    server = entry["mcpServers"]["engramory"]
    assert server["command"] == os.path.abspath(sys.executable)
    assert server["args"] == ["-m", "engramory", "mcp", "--store", os.path.realpath(store)]
    assert "engramory mcp --store PATH" in cli("hosts").out
    assert json.loads(cli("hosts", "--format", "json").out)[0]["host"]  # still the host list


@pytest.mark.skipif(sys.platform == "win32", reason="fcntl.flock")
def test_a_waiter_on_a_removed_lock_file_locks_the_new_one(tmp_path: Path, monkeypatch) -> None:
    """A writer removes the lock file it created (leave_no_file) while another waits on it:
    the waiter must end up holding the file at the path, or a third writer could lock a
    fresh file beside it and both would write at once."""
    import fcntl
    import threading

    store = valid_store(tmp_path / "s")
    path = store / continuity.LOCK_NAME
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, os, fcntl; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.readline(); "
         "os.unlink(sys.argv[1])", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    opened, inside, leave = threading.Event(), threading.Event(), threading.Event()
    real_open = continuity._open_lock

    def open_and_say(lock_path):  # type: ignore[no-untyped-def]
        found = real_open(lock_path)
        opened.set()
        return found

    monkeypatch.setattr(continuity, "_open_lock", open_and_say)

    def waiter() -> None:
        with continuity.locked(store, timeout=20):
            inside.set()
            leave.wait(20)

    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    thread = threading.Thread(target=waiter)
    thread.start()
    try:
        assert opened.wait(20)
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.flush()
        holder.wait(20)
        assert inside.wait(20)
        fd = os.open(path, os.O_RDWR)  # the file at the path now: the waiter must hold it
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        leave.set()
        thread.join(20)
        holder.kill()
