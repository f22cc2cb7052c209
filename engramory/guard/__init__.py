"""The index guard, knowing no host: decision, edit simulation, shell-write detection.

Importing the package is free (no imports): it is on the hook's hot path.
"""
