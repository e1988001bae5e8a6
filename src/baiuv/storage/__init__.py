"""Storage helpers below every layer of the package: result files (:mod:`.io`), value
grids of the configuration (:mod:`.grids`), shard files (:mod:`.shards`), provenance hash
and machine description (:mod:`.provenance`) and numba's on-disk cache keyed by the sources
(:mod:`.numba_setup`, configured by every process). Nothing here is science, imports numba
or scipy, or imports another module of the package outside this one.
"""
