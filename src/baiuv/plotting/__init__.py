"""Figure functions: take DataFrames, return matplotlib figures (no file I/O here)."""
