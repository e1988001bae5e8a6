"""How a SLURM run learns the state of its jobs: ``sacct`` when job accounting answers,
``squeue`` otherwise, or a clear stop (decision D130).

Snakemake's SLURM executor plugin asks ``sacct`` for the state of its jobs whenever the
program exists. On a cluster without job accounting (``AccountingStorageType=
accounting_storage/none``, or ``slurmdbd`` down) ``sacct`` exits with an error that the
plugin logs only at debug level, and the run waits forever for jobs that finished long ago.
``squeue`` sees a finished job only for ``MinJobAge`` seconds (``slurm.conf``); if that is
shorter than the plugin's longest pause between two status checks the plugin misses the
job's end and again waits forever.

:func:`choose_status_command` decides, before anything is submitted, which command the run
uses, from what :func:`probe_accounting` and :func:`min_job_age` find; the workflow calls it
from its ``onstart`` handler (``workflow/rules/slurm.smk``) when the executor is ``slurm``.
This module does not import snakemake.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import NamedTuple

__all__ = [
    "MAX_STATUS_INTERVAL",
    "STATUS_QUERY_TIMEOUT",
    "AccountingProbe",
    "base_state",
    "SlurmStatusError",
    "StatusChoice",
    "choose_status_command",
    "min_job_age",
    "normalize_plugin_states",
    "parse_min_job_age",
    "probe_accounting",
    "required_min_job_age",
]

#: Longest pause (s) of the SLURM executor plugin between two status checks of its jobs.
MAX_STATUS_INTERVAL = 180
#: Time (s) after which the plugin gives up one status query.
STATUS_QUERY_TIMEOUT = 60


class SlurmStatusError(RuntimeError):
    """No reliable way to learn when the jobs of a SLURM run end."""


class AccountingProbe(NamedTuple):
    """Result of :func:`probe_accounting`: ``ok`` and what ``sacct`` said."""

    ok: bool
    detail: str


class StatusChoice(NamedTuple):
    """The status command a run uses and the one line that says why."""

    command: str
    message: str


def probe_accounting(timeout: float = 30.0, sacct: str = "sacct") -> AccountingProbe:
    """Ask job accounting one cheap question (``sacct`` over an empty time window).

    Returns ``AccountingProbe(True, "")`` if ``sacct`` answers (exit code 0), else
    ``AccountingProbe(False, <first line of its error>)`` (also when ``sacct`` is missing or
    does not answer within ``timeout`` seconds).
    """
    if shutil.which(sacct) is None:
        return AccountingProbe(False, f"{sacct}: command not found")
    cmd = [sacct, "--noheader", "--parsable2", "-X", "--format=JobIdRaw"]
    cmd += ["--starttime=now", "--endtime=now"]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return AccountingProbe(False, f"{sacct}: no answer within {timeout:g} s")
    except OSError as exc:
        return AccountingProbe(False, f"{sacct}: {exc}")
    if res.returncode == 0:
        return AccountingProbe(True, "")
    lines = [ln.strip() for ln in (res.stderr + "\n" + res.stdout).splitlines() if ln.strip()]
    return AccountingProbe(False, lines[-1] if lines else f"{sacct}: exit code {res.returncode}")


_UNITS = {"": 1, "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1}
_UNITS |= {"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60}
_UNITS |= {"h": 3600, "hour": 3600, "hours": 3600}


def parse_min_job_age(show_config: str) -> int | None:
    """``MinJobAge`` in seconds from the output of ``scontrol show config`` (None if absent).

    >>> parse_min_job_age("MinJobAge               = 300 sec")
    300
    """
    for line in show_config.splitlines():
        m = re.match(r"\s*MinJobAge\s*=\s*(\d+)\s*([A-Za-z]*)\s*$", line)
        if m:
            unit = m.group(2).lower()
            if unit not in _UNITS:
                return None
            return int(m.group(1)) * _UNITS[unit]
    return None


def min_job_age(timeout: float = 30.0, scontrol: str = "scontrol") -> int | None:
    """``MinJobAge`` (s) of the cluster from ``scontrol show config``; None if unknown."""
    try:
        res = subprocess.run(
            [scontrol, "show", "config"], capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        return None
    return parse_min_job_age(res.stdout)


def required_min_job_age(init_seconds: int | None) -> int:
    """Smallest ``MinJobAge`` (s) with which ``squeue`` never misses the end of a job.

    A finished job must still be listed at the next status check: the plugin pauses at most
    :data:`MAX_STATUS_INTERVAL` s between checks and a check may take up to
    :data:`STATUS_QUERY_TIMEOUT` s. The plugin itself goes back to ``sacct`` when
    ``MinJobAge`` is below three initial intervals, so that bound applies too.
    """
    init = int(init_seconds) if init_seconds else 40
    return max(MAX_STATUS_INTERVAL + STATUS_QUERY_TIMEOUT, 3 * init)


def choose_status_command(
    requested: str | None,
    accounting: AccountingProbe,
    job_age: int | None,
    init_seconds: int | None = None,
) -> StatusChoice:
    """The status command of a SLURM run, or :class:`SlurmStatusError` with one line.

    Parameters
    ----------
    requested : str or None
        ``slurm-status-command`` of the run (the plugin's default is ``sacct`` whenever the
        program exists).
    accounting : AccountingProbe
        What :func:`probe_accounting` found.
    job_age : int or None
        The cluster's ``MinJobAge`` in seconds (:func:`min_job_age`; None if unknown).
    init_seconds : int or None
        ``slurm-init-seconds-before-status-checks`` of the run (plugin default 40).

    ``sacct`` is kept when accounting answers and ``squeue`` was not requested. Otherwise
    ``squeue`` is used if ``MinJobAge`` is at least :func:`required_min_job_age`, else
    ``sacct`` if accounting answers; with neither the run must not start.
    """
    if requested not in (None, "", "sacct", "squeue"):
        raise SlurmStatusError(
            f"slurm-status-command must be 'sacct' or 'squeue', got {requested!r}"
        )
    if requested != "squeue" and accounting.ok:
        return StatusChoice("sacct", "SLURM job status from sacct (job accounting answers)")
    need = required_min_job_age(init_seconds)
    age = "unknown" if job_age is None else f"{job_age} s"
    why = (
        "slurm-status-command is squeue"
        if requested == "squeue"
        else f"job accounting does not answer ({accounting.detail})"
    )
    if job_age is not None and job_age >= need:
        return StatusChoice(
            "squeue", f"SLURM job status from squeue: {why}; MinJobAge = {age} >= {need} s"
        )
    if accounting.ok:  # squeue requested but unreliable here
        return StatusChoice(
            "sacct",
            f"SLURM job status from sacct: MinJobAge = {age} is too short for squeue "
            f"(needs >= {need} s) and job accounting answers",
        )
    raise SlurmStatusError(
        f"cannot follow SLURM jobs: {why}, and squeue keeps finished jobs only MinJobAge = "
        f"{age} (needs >= {need} s); enable job accounting (slurmdbd) or set "
        f"MinJobAge={need} or more in slurm.conf"
    )


def base_state(state: str) -> str:
    """The state word of a SLURM job state: ``sacct`` writes ``CANCELLED by <uid>`` for a job
    cancelled with ``scancel``."""
    return state.split(" ", 1)[0] if state else state


def normalize_plugin_states(plugin) -> bool:
    """Make the SLURM executor plugin see :func:`base_state` of every job state.

    The plugin (``plugin``: its module) compares the whole state string with its failure
    states, so a job cancelled with ``scancel`` (``CANCELLED by 0``) counted as still
    running and the run waited for it forever. Wraps the module's
    ``query_job_status`` once; returns whether the module has that function.
    """
    query = getattr(plugin, "query_job_status", None)
    if query is None:
        return False
    if getattr(query, "baiuv_base_state", False):
        return True

    async def query_base_states(*args, **kwargs):
        states, duration = await query(*args, **kwargs)
        if states is not None:
            states = {job: base_state(state) for job, state in states.items()}
        return states, duration

    query_base_states.baiuv_base_state = True
    plugin.query_job_status = query_base_states
    return True
