"""Compiled numerical kernels (numba). Pure functions on scalars and arrays; no validation."""
