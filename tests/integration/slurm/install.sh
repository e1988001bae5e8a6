#!/usr/bin/env bash
# Install what tests/integration/test_slurm.py needs, from Debian's archive (root only; called by .ci/run):
#   slurm-wlm + munge        the single-node cluster (tests/integration/slurm/cluster.sh)
#   slurmdbd + mariadb-server the accounting daemon and its database (cluster.sh up --accounting)
# Services are not started by the packages (the test scripts start their own daemons, by PID,
# under a private directory): a policy-rc.d that forbids starting services is put in place for
# the duration of the install when none exists.
set -euo pipefail
if [[ $(id -u) -ne 0 ]]; then
    echo "tests/integration/slurm/install.sh: not root, skipping SLURM install" >&2
    exit 0
fi
have() { command -v "$1" >/dev/null 2>&1 || [[ -x /usr/sbin/$1 ]]; }
if have slurmctld && have munged && have slurmdbd && have mariadbd; then
    echo "slurm-wlm, munge, slurmdbd and mariadb-server already installed"
    exit 0
fi
policy=/usr/sbin/policy-rc.d
own_policy=0
if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    own_policy=1
fi
cleanup() { if ((own_policy)); then rm -f "$policy"; fi; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends slurm-wlm munge slurmdbd mariadb-server
