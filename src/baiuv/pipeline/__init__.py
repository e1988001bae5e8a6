"""Orchestration of the Snakemake pipeline: configuration checks (:mod:`.config`), the
cells a job runs (:mod:`.cells`), batches of shards in one job (:mod:`.batches`), logging
(:mod:`.logs`), timing files (:mod:`.timings`) and the per-job numba cache
(:mod:`.numba_cache`). It uses every layer of the package; the storage helpers it shares
with them (result files, grids, shard files, provenance, numba's on-disk cache) live in
:mod:`baiuv.storage`.
"""
