"""Continuity-sync bookkeeping: the locked state file and what each lifecycle event answers."""
