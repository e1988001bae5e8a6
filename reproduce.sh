#!/usr/bin/env bash
# Set up (if needed) and run the whole pipeline with the default configuration.
# Extra arguments go to snakemake, e.g. ./reproduce.sh --cores 32 --configfile config/paper.yaml
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup-venv.sh
# the --configfile files read first: a missing file or a YAML error in one line, with its line
.venv/bin/python -m baiuv.pipeline.config_files "$@"
exec .venv/bin/snakemake "$@"
