"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding.

Escaping follows the workflow-command rules: in the message (the data after
``::``) ``%``, ``\\r`` and ``\\n`` are percent-encoded; in a property (``file``,
``title``) ``:`` and ``,`` are too. Any other control character left in a line
is then escaped as for a terminal, so a file name cannot start a second
command or reach the log as an escape sequence.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engramory.doctor.model import ERROR, INFO, WARNING, Finding
from engramory.util.textfmt import printable

COMMANDS = {ERROR: "error", WARNING: "warning", INFO: "notice"}

_DATA_ESCAPES = {ord("%"): "%25", ord("\r"): "%0D", ord("\n"): "%0A"}
_PROPERTY_ESCAPES = {**_DATA_ESCAPES, ord(":"): "%3A", ord(","): "%2C"}


def escape_data(text: str) -> str:
    """A command's message: ``%``, CR and LF percent-encoded."""
    return printable(text.translate(_DATA_ESCAPES))


def escape_property(text: str) -> str:
    """A command's property value: as data, plus ``:`` and ``,``."""
    return printable(text.translate(_PROPERTY_ESCAPES))


def annotation(finding: Finding) -> str:
    """The workflow command for one finding (its path already relative to the checkout)."""
    props = [f"file={escape_property(finding.path)}"]
    if finding.line is not None:
        props.append(f"line={finding.line}")
    props.append(f"title={escape_property(finding.tag)}")
    return f"::{COMMANDS[finding.severity]} {','.join(props)}::{escape_data(finding.message)}"


def render(findings: Iterable[Finding]) -> Iterator[str]:
    """One workflow command per finding, in order."""
    for finding in findings:
        yield annotation(finding)
