"""Helpers every layer uses: atomic writes, terminal text, errors, JSON, shipped resources."""
