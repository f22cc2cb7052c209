"""Wiring the discipline into a host: plan, layout, managed blocks, hook-config merging."""
