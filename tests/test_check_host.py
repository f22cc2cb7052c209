"""`engramory check --host`: the host's measure decides the exit code; text and JSON name what
falls off; the usual JSON keys stay as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_engramory


def pointer(i: int, width: int) -> str:
    head = f"- [N{i}](n{i}.md) — "
    return head + "x" * (width - len(head))


def store_with(tmp_path: Path, lines: list[str], name: str = "MEMORY.md") -> Path:
    (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def comment_store(tmp_path: Path) -> Path:
    """150 pointers of 150 units under an HTML comment that alone takes it over 25,000 units."""
    comment = ["<!-- compaction log", *["log " + "y" * 96] * 30, "-->"]
    return store_with(tmp_path, ["# Index", *comment, *[pointer(i, 150) for i in range(150)]])


def test_claude_comment_decides_exit_code_by_version(cli, tmp_path: Path) -> None:
    store = comment_store(tmp_path)
    counted = cli("check", str(store), "--host", "claude")
    assert counted.code == 2
    assert "does not load in full" in counted.out and "fall off" in counted.out
    assert f"{store / 'MEMORY.md'}:183: (no note)" in counted.out  # the last line is named
    stripped = cli("check", str(store), "--host", "claude", "--host-version", "2.1.211")
    assert stripped.code == 0
    assert "loads in full" in stripped.out


def test_claude_version_from_the_environment(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAMORY_CLAUDE_VERSION", "2.1.240")
    assert cli("check", str(comment_store(tmp_path)), "--host", "claude").code == 0


def test_host_exit_code_ignores_engramorys_own_caps(cli, tmp_path: Path) -> None:
    store = store_with(tmp_path, [pointer(i, 150) for i in range(190)])  # 28,500 bytes
    assert cli("check", str(store)).code == 2  # over Engramory's byte cap
    assert cli("check", str(store), "--host", "gemini").code == 0  # Gemini loads it all
    (tmp_path / "small").mkdir()
    small = store_with(tmp_path / "small", ["- [a](a.md)"])
    assert cli("check", str(small), "--host", "claude").code == 0


def test_json_keeps_keys_and_adds_host(cli, tmp_path: Path) -> None:
    (tmp_path / "old.md").write_text("---\nname: old\ndescription: Old rule\ntype: feedback\n---\n")
    (tmp_path / "new.md").write_text(
        "---\nname: new\ndescription: New rule\ntype: feedback\nsupersedes: old\n---\n"
    )
    lines = ["- [Old](old.md) — rule", *[pointer(i, 30) for i in range(199)], "- [New](new.md)"]
    store = store_with(tmp_path, lines)
    plain = json.loads(cli("check", str(store), "--format", "json").out)
    result = cli("check", str(store), "--host", "claude", "--format", "json")
    assert result.code == 2
    body = json.loads(result.out)
    host = body.pop("host")
    assert body == plain  # every existing key, unchanged
    assert {k: host[k] for k in ("name", "measure", "limit", "loads_all")} == {
        "name": "claude",
        "measure": "utf16-units",
        "limit": 25000,
        "loads_all": False,
    }
    assert isinstance(host["used"], int)
    assert host["falls_off"] == [
        {
            "line": 201,
            "note": "new.md",
            "description": "New rule",
            "corrects": {"line": 1, "note": "old.md"},
        }
    ]
    assert host["corrections_lost"] == 1
    text = cli("check", str(store), "--host", "claude").out
    assert "a correction of line 1 (old.md), which stays loaded" in text
    assert "1 correction fall off" in text


def test_qwen_names_the_long_lines_it_drops(cli, tmp_path: Path) -> None:
    lines = [pointer(i, 1_000) for i in range(30)] + [pointer(100 + i, 100) for i in range(20)]
    result = cli("check", str(store_with(tmp_path, lines)), "--host", "qwen", "--format", "json")
    assert result.code == 2
    assert [item["line"] for item in json.loads(result.out)["host"]["falls_off"]] == list(
        range(23, 31)
    )


def test_codex_measures_the_summary_beside_the_handbook(cli, tmp_path: Path) -> None:
    store_with(tmp_path, ["# Task Group: x", "scope: y"])
    summary = "v1\n" + "".join(pointer(i, 69) + "\n" for i in range(200))
    (tmp_path / "memory_summary.md").write_text(summary, encoding="utf-8")
    result = cli("check", str(tmp_path), "--host", "codex", "--format", "json")
    assert result.code == 2
    host = json.loads(result.out)["host"]
    assert (host["measure"], host["limit"]) == ("tokens", 2500)
    lines = [item["line"] for item in host["falls_off"]]
    assert lines[0] > 2 and lines[-1] < 201  # the middle goes, the beginning and end stay


def test_codex_without_summary_is_missing_input(cli, tmp_path: Path) -> None:
    result = cli("check", str(store_with(tmp_path, ["# Task Group: x"])), "--host", "codex")
    assert result.code == 66
    assert "memory_summary.md does not exist" in result.err


def test_hermes_over_cap_names_the_newest_entries(cli, tmp_path: Path) -> None:
    entries = [f"entry {i}: " + "w" * 90 for i in range(30)]
    (tmp_path / "MEMORY.md").write_text("\n§\n".join(entries), encoding="utf-8")
    result = cli("check", str(tmp_path), "--host", "hermes")
    assert result.code == 2
    assert "characters over its cap" in result.out
    assert "(the newest) do not fit" in result.out
    assert f"{tmp_path / 'MEMORY.md'}:59:" in result.out  # the last entry, on line 59


def test_bad_host_version_and_ci_format_are_usage_errors(cli, tmp_path: Path) -> None:
    store = store_with(tmp_path, ["a"])
    bad = cli("check", str(store), "--host", "claude", "--host-version", "latest")
    assert bad.code == 64 and "is not a version" in bad.err
    assert cli("check", str(store), "--host", "claude", "--format", "github").code == 64
    assert cli("check", str(store), "--host", "nobody").code == 64


def test_control_characters_in_a_description_are_escaped(cli, tmp_path: Path) -> None:
    (tmp_path / "n.md").write_text('---\nname: n\ndescription: "bell\\x07 \x1b[31mred"\n---\n')
    store = store_with(tmp_path, [*[pointer(i, 30) for i in range(200)], "- [N](n.md)"])
    out = cli("check", str(store), "--host", "claude").out
    assert "\x1b" not in out and "\\x1b" in out


def test_real_process_exit_code(tmp_path: Path) -> None:
    store = comment_store(tmp_path)
    assert run_engramory("check", str(store), "--host", "claude").returncode == 2
    done = run_engramory(
        "check", str(store), "--host", "claude", env={"ENGRAMORY_CLAUDE_VERSION": "2.1.211"}
    )
    assert done.returncode == 0


def test_a_huge_index_is_measured_with_bounded_lookups(cli, tmp_path: Path) -> None:
    for name in ("n300", "n1499"):
        (tmp_path / f"{name}.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    store = store_with(tmp_path, [f"- [N{i}](n{i}.md) — hook text here" for i in range(60_000)])
    assert (store / "MEMORY.md").stat().st_size > 2 * 1024 * 1024
    result = cli("check", str(store), "--host", "claude", "--format", "json")
    items = json.loads(result.out)["host"]["falls_off"]
    assert result.code == 2
    assert [item["line"] for item in items] == list(range(201, 60_001))
    assert (items[100]["line"], items[100]["note"]) == (301, "n300.md")
    assert (items[1299]["line"], items[1299]["note"]) == (1500, None)  # past the first 1,000


def test_codex_summary_symlinked_out_of_the_folder_is_refused(cli, tmp_path: Path) -> None:
    memories = tmp_path / "memories"
    memories.mkdir()
    store_with(memories, ["# Task Group: x"])
    (tmp_path / "elsewhere.md").write_text("v1\nsecret plans\n")
    (memories / "memory_summary.md").symlink_to(tmp_path / "elsewhere.md")
    result = cli("check", str(memories), "--host", "codex")
    assert result.code == 66
    assert "leads outside" in result.err and "secret plans" not in result.out + result.err
