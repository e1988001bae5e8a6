#!/usr/bin/env bash
# Install Debian's SLURM and munge for tests/integration/test_slurm.py (root only; called by .ci/run).
set -euo pipefail
if [[ $(id -u) -ne 0 ]]; then
    echo "tests/integration/slurm/install.sh: not root, skipping SLURM install" >&2
    exit 0
fi
if command -v slurmctld >/dev/null && command -v munged >/dev/null; then
    echo "slurm-wlm and munge already installed"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends slurm-wlm munge
