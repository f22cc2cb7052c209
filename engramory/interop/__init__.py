"""Moving memories in and out of Engramory: other formats (memoir) and other hosts' folders."""
