"""The doctor's rules, one unit each, listed in an explicit registry."""
