#!/usr/bin/env bash
# Create .venv (if missing) with Python >= 3.11 and install baiuv with the workflow and
# test extras. Idempotent: a second call only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "error: Python >= 3.11 is required (found $("$PY" --version 2>&1)); set PYTHON=/path/to/python3.11" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "==> creating virtual environment .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.baiuv-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "==> installing baiuv and its dependencies into .venv"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[workflow,test]'
  touch "$stamp"
fi
# Compile the kernels of `baiuv identify` once now (about a minute; skipped when the cache
# already holds them), so that its first call answers at once.
.venv/bin/python -m baiuv.warmup
