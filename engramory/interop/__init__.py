"""Moving memories in and out: the memoir format and Claude Code's native memory."""
