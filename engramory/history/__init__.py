"""History: every state of a store kept in a bare git repository outside it.

``gitrun`` drives git (isolated from every configuration), ``location`` says
where a store's repository lives, ``capture`` reads what a snapshot keeps,
``snapshot`` commits it, ``log`` reads it back, ``diffing`` compares two
states, ``restore`` plans and applies a return to one, ``retention`` prunes
and forgets, ``alarm`` notices a mass deletion and ``auto`` takes the
snapshots other commands and hooks ask for, without ever failing them.
"""
