"""The pure planner of ``engramory compact`` (issue 25): one module per step.

Each step takes the index text (BOM dropped) and returns a :class:`model.StepResult`
with the new text and what it created, archived or touched; nothing here reads or
writes the disk: what a step must know of the store comes in as a
:class:`model.StoreFacts`.
"""
