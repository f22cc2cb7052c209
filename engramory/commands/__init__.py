"""The command-line commands: one module per command; argparse lives here and only here."""
