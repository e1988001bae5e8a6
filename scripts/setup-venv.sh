#!/usr/bin/env bash
# Create .venv (if missing) with Python >= 3.11 and install the locked dependencies
# (requirements/lock.txt: every package pinned by version and sha256 hash, for every
# Python >= 3.11), then baiuv itself (editable, no dependency resolution).
# Idempotent: a second call only checks that everything is installed.
# Refresh the lock with scripts/update-lock.sh.
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
# The stamp holds a hash of what the installation depends on (the lock, pyproject.toml, the
# interpreter): a checkout or merge that rewrites those files with the same content
# reinstalls nothing.
stamp=.venv/.baiuv-installed
want=$({ cat requirements/lock.txt pyproject.toml; .venv/bin/python --version; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "==> installing the locked dependencies (requirements/lock.txt) into .venv"
  .venv/bin/python -m pip install --quiet --require-hashes --no-deps -r requirements/lock.txt
  echo "==> installing baiuv (editable) into .venv"
  .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
  echo "$want" >"$stamp"
fi
# The environment's `snakemake` reads the --configfile files before Snakemake does: a
# missing file or a YAML error is one line naming the file and line (written again after
# every installation, which puts back Snakemake's own command)
.venv/bin/python -c 'from baiuv.pipeline.config_files import install_entry_point; install_entry_point(".venv/bin/snakemake")'
# Compile the kernels of `baiuv identify` once now (about a minute; skipped when the cache
# already holds them), so that its first call answers at once.
.venv/bin/python -m baiuv.warmup
