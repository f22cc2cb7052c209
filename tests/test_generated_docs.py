"""The generated parts of the documents equal what the code generates today.

The host table (README.md, PORTING.md, AGENT-SETUP.md, adapters/README.md)
comes from the host registry and docs/rules.md from the doctor's rule
registry, both through ``tests/make_docs.py``; a change to either registry
without regenerating the documents fails here, naming the command to run.
"""

from __future__ import annotations

import subprocess
import sys

import make_docs
import pytest

from engramory.hosts.summary import BEGIN_MARKER, END_MARKER, markdown_table

REPO = make_docs.REPO


@pytest.mark.parametrize("rel", [*make_docs.HOSTS_TABLE_DOCUMENTS, make_docs.RULES_PAGE])
def test_generated_document_is_current(rel: str) -> None:
    expected = make_docs.generated()[rel]
    actual = (REPO / rel).read_text(encoding="utf-8")
    assert actual == expected, f"{rel} is stale: run `{make_docs.REGENERATE}`"


@pytest.mark.parametrize("rel", make_docs.HOSTS_TABLE_DOCUMENTS)
def test_each_document_holds_the_hosts_table_once(rel: str) -> None:
    text = (REPO / rel).read_text(encoding="utf-8")
    assert text.count(BEGIN_MARKER) == 1 and text.count(END_MARKER) == 1
    assert f"{BEGIN_MARKER}\n{markdown_table()}{END_MARKER}" in text


def test_a_changed_table_is_reported_with_the_command_to_regenerate(tmp_path, monkeypatch) -> None:
    stale = "intro\n" + BEGIN_MARKER + "\n| host | old |\n" + END_MARKER + "\n"
    assert make_docs.with_hosts_table(stale) != stale
    monkeypatch.setattr(make_docs, "REPO", tmp_path)
    for rel in make_docs.HOSTS_TABLE_DOCUMENTS:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(stale, encoding="utf-8")
    assert set(make_docs.stale()) == {*make_docs.HOSTS_TABLE_DOCUMENTS, make_docs.RULES_PAGE}


def test_the_table_has_a_row_per_host_with_its_rung() -> None:
    from engramory.hosts.registry import HOSTS

    rows = markdown_table().splitlines()[2:]
    assert len(rows) == len(HOSTS)
    for host, row in zip(HOSTS.values(), rows):
        assert f"`{host.name}`" in row
        rung = "1: deny hook" if host.pre_write_hook else "2: rules + check"
        assert row.endswith(f"| {rung} |")
    deny = [row for row in rows if "| yes" in row]
    assert len(deny) == sum(host.pre_write_hook for host in HOSTS.values()) == 11


def test_hosts_markdown_format_prints_the_table() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engramory", "hosts", "--format", "markdown"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout == markdown_table()


def test_the_check_mode_names_each_stale_document(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(make_docs, "stale", lambda: ["PORTING.md"])
    assert make_docs.main(["--check"]) == 1
    assert f"PORTING.md: stale; run {make_docs.REGENERATE}" in capsys.readouterr().out
