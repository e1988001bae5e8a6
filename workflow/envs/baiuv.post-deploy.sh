#!/usr/bin/env bash
# Run by Snakemake inside the freshly created environment of envs/baiuv.yaml: install the
# baiuv package of the checkout whose workflow created it (BAIUV_CHECKOUT, set by
# workflow/rules/common.smk), without touching the conda-pinned dependencies.
set -euo pipefail
python -m pip install --no-deps --no-build-isolation -e "${BAIUV_CHECKOUT:?set by common.smk}"
