"""The transcript-history generator of benchmarks/trace.py, at a tiny size.

The counts it reports are checked against an independent reading of the files
with the search rules of issue 15 (person and agent words only, each record
once), so a planted word that lands somewhere else, or a count that drifts,
fails here rather than as a false warning in the benchmark.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "trace.py"
SIZE_MB = 2
SEED = 7
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
NOT_PERSON = ("<command-", "<local-command-", "<bash-", "<task-notification>", "[Request interr")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_trace", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


@pytest.fixture(scope="module")
def history(bench, tmp_path_factory):
    root = tmp_path_factory.mktemp("history")
    return root, bench.generate(root, SIZE_MB, SEED)


def transcripts(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl") if p.is_file())


def claude_words(record: dict) -> str | None:
    """The person's or the agent's words in a Claude Code record (None: not searched)."""
    kind = record.get("type")
    if kind == "attachment":
        attachment = record.get("attachment", {})
        return attachment.get("prompt") if attachment.get("type") == "queued_command" else None
    message = record.get("message", {})
    if kind == "assistant":
        if message.get("model") == "<synthetic>":
            return None
        texts = [b["text"] for b in message["content"] if b.get("type") == "text"]
        return "\n".join(texts) if texts else None
    if kind != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return None
    content = message.get("content")
    if isinstance(content, list):
        if any(b.get("type") == "tool_result" for b in content):
            return None
        content = "\n".join(b["text"] for b in content if b.get("type") == "text")
    text = REMINDER.sub("", content).strip()
    return None if text.startswith(NOT_PERSON) else text


def codex_words(record: dict) -> str | None:
    payload = record.get("payload", {})
    if record.get("type") == "event_msg" and payload.get("type") in (
        "user_message",
        "agent_message",
    ):
        return payload["message"]
    return None


def searched_messages(root: Path) -> list[str]:
    """Every searched message of the history, each Claude record once (by uuid)."""
    messages = []
    seen: set[str] = set()
    for path in transcripts(root):
        claude = "claude" in path.relative_to(root).parts[0]
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if claude and record.get("uuid"):
                if record["uuid"] in seen:
                    continue
                seen.add(record["uuid"])
            text = claude_words(record) if claude else codex_words(record)
            if text is not None:
                messages.append(text)
    return messages


def test_files_are_json_lines_in_both_layouts(history):
    root, manifest = history
    files = transcripts(root)
    claude = [p for p in files if p.is_relative_to(root / "claude" / "projects")]
    codex = [p for p in files if p.is_relative_to(root / "codex")]
    assert len(claude) + len(codex) == len(files) > 10
    assert any(p.parent.name == "subagents" and p.name.startswith("agent-") for p in claude)
    assert any(p.parent.parent.name == "projects" and p.name.startswith("agent-") for p in claude)
    assert any(p.parent.name == "archived_sessions" for p in codex)
    dated = [p for p in codex if p.is_relative_to(root / "codex" / "sessions")]
    assert dated and all(re.fullmatch(r"\d{4}/\d\d/\d\d", p.parent.as_posix()[-10:]) for p in dated)
    claude_types, codex_types = set(), set()
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if path in claude:
                claude_types.add(record["type"])
            else:
                codex_types.add((record["type"], record["payload"].get("type")))
    assert {"user", "assistant", "system", "summary", "file-history-snapshot"} <= claude_types
    assert {("session_meta", None), ("turn_context", None), ("event_msg", "user_message")} <= (
        codex_types
    )
    assert ("response_item", "function_call_output") in codex_types
    assert manifest["files"] == len(files) + len(list(root.rglob("*.meta.json")))


def test_counts_reported_are_what_was_planted(bench, history):
    root, manifest = history
    messages = [m.casefold() for m in searched_messages(root)]
    queries = {"rare": [bench.RARE], "common": [bench.COMMON], "two": list(bench.TWO)}
    for query, words in queries.items():
        found = sum(all(word in m for word in words) for m in messages)
        assert found == manifest["hits"][query] >= 1, query
    # each word of the two-word query is also said alone, which an AND search must not count
    for word in bench.TWO:
        assert sum(word in m for m in messages) > manifest["hits"]["two"]


def test_common_word_in_every_files_tool_output(bench, history):
    root, _manifest = history
    for path in transcripts(root):
        outputs = []
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "toolUseResult" in record:
                outputs.append(json.dumps(record["message"]["content"], ensure_ascii=False))
            elif record.get("payload", {}).get("type") == "function_call_output":
                outputs.append(record["payload"]["output"])
        assert any(bench.COMMON in output for output in outputs), path


def test_same_seed_same_bytes_other_seed_differs(bench, history, tmp_path):
    root, _manifest = history
    again, other = tmp_path / "again", tmp_path / "other"
    bench.generate(again, SIZE_MB, SEED)
    bench.generate(other, SIZE_MB, SEED + 1)
    names = [p.relative_to(root) for p in sorted(root.rglob("*")) if p.is_file()]
    assert names == [p.relative_to(again) for p in sorted(again.rglob("*")) if p.is_file()]
    assert all((root / n).read_bytes() == (again / n).read_bytes() for n in names)
    assert sorted(p.name for p in other.rglob("*.jsonl")) != sorted(
        p.name for p in root.rglob("*.jsonl")
    )


def test_generate_refuses_a_non_empty_directory(bench, tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine\n", encoding="utf-8")
    assert bench.main(["--generate", str(tmp_path), "--size-mb", "1"]) == 64
    assert "not an empty directory" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_history_without_manifest_is_input_missing(bench, tmp_path, capsys):
    assert bench.main(["--history", str(tmp_path)]) == 66
    assert "planted.json" in capsys.readouterr().err
