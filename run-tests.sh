#!/usr/bin/env bash
# Set up (if needed) and run every check: code style, workflow lint, a dry run of the
# default config, the documentation build, and the test suite (which includes the tiny
# end-to-end pipeline run).
# Extra arguments go to pytest, e.g. ./run-tests.sh -m "not slow"
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup-venv.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "==> ruff (lint + format)"
ruff check src tests workflow benchmarks
ruff format --check src tests workflow benchmarks
echo "==> snakefmt"
snakefmt --check Snakefile workflow
echo "==> snakemake --lint"
snakemake --lint
echo "==> dry run of the default configuration"
snakemake -n --quiet rules
echo "==> documentation (Sphinx, warnings are errors, offline)"
sphinx-build -E -W --keep-going -q -b html docs docs/_build/html
echo "==> pytest"
exec python -m pytest "$@"
