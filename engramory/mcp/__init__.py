"""``engramory mcp``: the store over the Model Context Protocol (stdio, JSON-RPC 2.0).

``protocol`` frames and validates messages and negotiates the version,
``tools`` holds the tool schemas and handlers (the write tools are the
``new``/``archive`` cores, under the store's lock), ``update`` decides an
in-place note update, and ``server`` runs the loop.
"""
