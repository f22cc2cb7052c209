"""The store write path: everything that changes a memory store, once.

Layers (checked by ``tests/test_architecture.py``): the store-level core
(``store``, ``discovery``, ``frontmatter``, ``fsutil``, ...) <- ``doctor`` (the
gate a written note must pass) <- ``write`` <- ``commands``, ``compact``,
``repair``, ``interop`` and ``mcp``. Nothing here parses arguments or prints a
report: the commands do that.

* :mod:`.notewrite`, :mod:`.indexedit`, :mod:`.pointertext`: the text of a note,
  of the index and of a pointer line (pure);
* :mod:`.indexfile`: the index read for an edit, and checked unchanged before
  it is written back;
* :mod:`.gate`: would a note pass the doctor, and the live notes of a store;
* :mod:`.newnote`, :mod:`.archiving`: plan and create a note, plan and move one
  into ``archive/`` with its pointer edit;
* :mod:`.backup`, :mod:`.undo`: the journalled apply and its undo;
* :mod:`.filedates`: the dates a note gets from git or its file.
"""
