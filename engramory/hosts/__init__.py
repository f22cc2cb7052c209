"""One module per agent host: how its hook payloads read and how a verdict is written back.

Kept import-free: the index guard hook imports a host module before every
file edit an agent makes.
"""
