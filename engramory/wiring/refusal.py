"""Why an install or uninstall cannot go ahead: the refusals hosts and the installer both raise.

Below both :mod:`engramory.hosts` and the installer (:mod:`engramory.install`), so a host
module can refuse a flag without importing the installer, which imports every host.
"""

from __future__ import annotations

from engramory.util.errors import EXIT_USAGE, EngramoryError


class Refusal(EngramoryError):
    """The install or uninstall cannot go ahead; nothing was written."""


class FlagRefusal(Refusal):
    """A refusal caused by the command line alone (a flag combination or value): exit 64."""

    exit_code = EXIT_USAGE
