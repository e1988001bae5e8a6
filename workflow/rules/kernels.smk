# The simulation kernels, compiled once per version of the sources before any shard runs
# (decision D211): every shard and batch rule takes the marker as input, so on a cold numba
# cache one process compiles the GLR and FHN loops while the threshold and characteristic-time
# rules, which do not wait for it, use the other cores; the shard processes then load the
# compiled loops. A local rule: on a cluster it fills the project's shared cache, from which
# each node's cache is seeded (D60), before any job is submitted.

KERNELS = "results/kernels.txt"


rule kernels:
    output:
        KERNELS,
    log:
        "logs/kernels.log",
    priority: 100
    conda:
        CONDA_ENV
    params:
        code=SRC_HASH,
    script:
        "../scripts/kernels.py"


localrules:
    kernels,
