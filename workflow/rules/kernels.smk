from baiuv.pipeline.numba_cache import configure_numba_cache

# The simulation kernels, compiled once per version of the sources before any shard runs
# (decision D211): every shard and batch rule takes the marker as input. On a cold numba cache
# two jobs compile the GLR loop's callees in parallel (the threshold kernels; the sampling
# rules' steps with the oracle and the game), then one compiles the loops themselves, loading
# the callees from the cache; the shard processes then load the compiled loops. Local rules:
# on a cluster they fill the project's shared cache, from which each node's cache is seeded
# (D60).

KERNELS = "results/kernels.txt"
KERNEL_PARTS = ["thresholds", "rules"]
KERNEL_PART = "results/kernels/{part}.txt"
# The rules part compiles the TaS oracle with the argument types characteristic_time passes
# it: rules computing characteristic times take this marker as input and load the oracle
# from the cache instead of compiling it (decision D220).
KERNEL_ORACLE = KERNEL_PART.format(part="rules")

# numba's on-disk cache: node-local inside SLURM jobs, one copy per node and set of the
# markers above present; <workdir>/.numba_cache otherwise (decision D60; jobs inherit
# NUMBA_CACHE_DIR from this process).
configure_numba_cache(
    os.getcwd(),
    SRC_HASH,
    markers=[KERNELS] + expand(KERNEL_PART, part=KERNEL_PARTS),
)


rule kernels_part:
    output:
        KERNEL_PART,
    log:
        "logs/kernels/{part}.log",
    wildcard_constraints:
        part="|".join(KERNEL_PARTS),
    priority: 100
    conda:
        CONDA_ENV
    params:
        code=SRC_HASH,
    script:
        "../scripts/kernels.py"


rule kernels:
    input:
        expand(KERNEL_PART, part=KERNEL_PARTS),
    output:
        KERNELS,
    log:
        "logs/kernels/loops.log",
    priority: 100
    conda:
        CONDA_ENV
    params:
        code=SRC_HASH,
    script:
        "../scripts/kernels.py"


localrules:
    kernels_part,
    kernels,
