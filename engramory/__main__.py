"""Allow ``python -m engramory``."""

import sys

from engramory.cli import main

sys.exit(main())
