"""Engramory: curated, human-readable long-term memory for AI coding agents.

Importing the package is deliberately cheap (no imports at all): the index
guard hook imports it before every file edit an agent makes.
"""

__version__ = "0.1.0"
