"""The memory store's core: its files on disk, discovery, the note and index formats, the caps.

Nothing here imports a command, the doctor, the guard or a host: everything else builds on it.
"""
