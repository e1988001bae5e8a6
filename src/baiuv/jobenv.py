"""Environment of the pipeline's jobs (called by ``workflow/rules/common.smk``)."""

from __future__ import annotations

import os
from collections.abc import MutableMapping


def prepend_pythonpath(path: str, env: MutableMapping[str, str] | None = None) -> str:
    """Put ``path`` first on ``PYTHONPATH`` in ``env`` (default ``os.environ``).

    Jobs run in fresh Python processes that inherit the environment of the Snakemake
    process: with the workflow's ``src`` first on ``PYTHONPATH`` every job imports the
    package of *this* checkout (also in per-rule conda environments where it is not
    installed), never another copy installed elsewhere.
    """
    env = os.environ if env is None else env
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != path]
    env["PYTHONPATH"] = os.pathsep.join([path, *parts])
    return env["PYTHONPATH"]
