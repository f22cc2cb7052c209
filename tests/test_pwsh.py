"""The PowerShell check (engramory.guard.pwsh) and its verdict through the guard service."""

from __future__ import annotations

import pytest
from test_linear_time import fastest_pair

from engramory.guard import pwsh, service, toolcall
from engramory.guard.toolcall import ToolCall

NAMES = ["MEMORY.md"]


@pytest.mark.parametrize(
    "command",
    [
        "Set-Content MEMORY.md 'x'",
        "Add-Content -Path .\\MEMORY.md -Value x",
        "'x' | Out-File -Append C:\\store\\memory.md",
        "New-Item -Force MEMORY.md",
        "Copy-Item other.md MEMORY.md",
        "Move-Item a.md MEMORY.md",
        "Rename-Item MEMORY.md old.md",
        "Remove-Item MEMORY.md",
        "Clear-Content MEMORY.md",
        "sc MEMORY.md x",
        "ac MEMORY.md x",
        "cp a MEMORY.md",
        "copy a MEMORY.md",
        "mv a MEMORY.md",
        "move a MEMORY.md",
        "ni MEMORY.md",
        "rm MEMORY.md",
        "del MEMORY.md",
        "echo x > MEMORY.md",
        "echo x >> MEMORY.md",
        "[IO.File]::WriteAllText('MEMORY.md', $t)",
        '[System.IO.File]::AppendAllText("MEMORY.md", $t)',
        "Get-Content a | tee MEMORY.md",
        "Get-Content a | Tee-Object -FilePath MEMORY.md",
        "SET-CONTENT memory.MD x",
        "Set-Content ('MEM' + 'ORY.md') x",
        "Set-Content M`EMORY.md x",
        "Add-Content MEM*.md x",
        "Add-Content MEMORY.m? x",
        "Invoke-WebRequest https://x -OutFile MEMORY.md",
        "& 'Set-Content' MEMORY.md x",
        "ls; Set-Content -Path MEMORY.md -Value x",
    ],
)
def test_a_write_of_the_index_is_found(command: str) -> None:
    assert pwsh.index_write(command, NAMES) == "MEMORY.md"


@pytest.mark.parametrize(
    "command",
    [
        "Get-Content MEMORY.md",
        "gc MEMORY.md | Measure-Object -Line",
        "Select-String -Pattern x -Path MEMORY.md",
        "Get-Content MEMORY.md 2>&1",
        "[IO.File]::ReadAllText('MEMORY.md')",
        "Set-Content notes.md x",
        "echo x > notes.md",
        "Add-Content NOTES*.md x",
        "",
    ],
)
def test_a_read_or_another_file_passes(command: str) -> None:
    assert pwsh.index_write(command, NAMES) is None


def test_the_index_by_its_path() -> None:
    names = ["/s/mem/notes.md"]
    assert pwsh.index_write("Set-Content /s/mem/notes.md x", names) == "/s/mem/notes.md"
    assert pwsh.index_write("Set-Content /s/mem/other.md x", names) is None
    windows = ["C:\\Store\\MEMORY.md"]
    assert pwsh.index_write("sc c:/store/memory.md x", windows) == "C:\\Store\\MEMORY.md"


@pytest.mark.parametrize(
    ("pattern", "name", "expected"),
    [
        ("mem*.md", "memory.md", True),
        ("*", "memory.md", True),
        ("m?mory.md", "memory.md", True),
        ("*.md", "memory.md", True),
        ("*ory*", "memory.md", True),
        ("mem*.txt", "memory.md", False),
        ("memory.md?", "memory.md", False),
        ("", "memory.md", False),
    ],
)
def test_wildcard_match(pattern: str, name: str, expected: bool) -> None:
    assert pwsh.wildcard_match(pattern, name) is expected


def test_the_service_denies_a_powershell_write_of_the_index() -> None:
    call = ToolCall(toolcall.POWERSHELL, cwd="/w", command="Add-Content MEMORY.md x")
    verdict = service.check(call, {})
    assert verdict.kind == "deny"
    assert "this shell command would write the memory index (MEMORY.md)" in verdict.message
    assert service.check(ToolCall(toolcall.POWERSHELL, command="gc MEMORY.md"), {}).kind == "silent"
    assert service.check(ToolCall(toolcall.POWERSHELL, command=None), {}).kind == "silent"


def test_the_service_names_the_index_as_configured() -> None:
    call = ToolCall(toolcall.POWERSHELL, command="Set-Content /s/notes.md x")
    assert service.check(call, {}).kind == "silent"
    assert service.check(call, {}, "/s/notes.md").kind == "deny"
    assert service.check(call, {"ENGRAMORY_INDEX_PATH": "/s/notes.md"}).kind == "deny"
    renamed = ToolCall(toolcall.POWERSHELL, command="sc INDEX.md x")
    assert service.check(renamed, {"ENGRAMORY_INDEX_NAME": "index.md"}).kind == "deny"
    pinned = ToolCall(toolcall.POWERSHELL, command="sc MEMORY.md x")
    assert service.check(pinned, {"ENGRAMORY_INDEX_PATH": "/s/notes.md"}).kind == "silent"


def _check(command: str) -> None:
    """Check ``command`` whole: it names the index, so its writers are looked for."""
    pwsh.index_write("MEMORY.md " + command, ["MEMORY.md", "/a/long/path/to/the/store/MEMORY.md"])
    pwsh.index_write(command, ["MEMORY.md"])


def _limit(small: float) -> float:
    return max(small, 1e-3) * 40  # 10x the input: linear is 10x, quadratic 100x


@pytest.mark.parametrize(
    "unit", ["]::", "m*" * 3 + " ", "'a' + ", "`", "memory.m ", "> ", "*" * 50 + "?"]
)
def test_time_grows_linearly(unit: str) -> None:
    """A hostile command costs time in proportion to its length (CPU time, fastest runs)."""
    count = 40_000 // len(unit)
    small, large = fastest_pair(
        lambda: _check(unit * count), lambda: _check(unit * count * 10), _limit
    )
    assert large < _limit(small), (unit, small, large)
