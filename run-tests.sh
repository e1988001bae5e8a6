#!/usr/bin/env bash
# Set up (if needed) and run every check: code style, workflow lint, a dry run of the
# default config, the documentation build, and the test suite (which includes the tiny
# end-to-end pipeline run).
# Extra arguments go to pytest, e.g. ./run-tests.sh -m "not slow"
# The tests run on every core (pytest-xdist, at most 4 workers; the Snakemake tests all on
# one of them, tests/conftest.py); ./run-tests.sh -n 0 runs them in one process.
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
exec python -m pytest -n auto --maxprocesses 4 --dist loadgroup "$@"
