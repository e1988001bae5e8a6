"""Plumbing of the Snakemake pipeline and of the package: configuration checks
(:mod:`.config`), value grids (:mod:`.grids`), result files (:mod:`.io`), shard files
(:mod:`.shards`), logging (:mod:`.logs`), provenance hash (:mod:`.provenance`) and numba's
on-disk cache (:mod:`._numba_setup` for every process, :mod:`.numba_cache` for pipeline
jobs). Nothing here is science; nothing here imports numba or scipy.
"""
