"""How a SLURM run follows its jobs (decision D130): the decision and its inputs, without a
cluster (the real clusters are in tests/integration/test_slurm.py)."""

from __future__ import annotations

import os
import stat

import pytest

from baiuv.pipeline.slurm_status import (
    MAX_STATUS_INTERVAL,
    STATUS_QUERY_TIMEOUT,
    AccountingProbe,
    SlurmStatusError,
    choose_status_command,
    min_job_age,
    parse_min_job_age,
    probe_accounting,
    required_min_job_age,
)

UP = AccountingProbe(True, "")
DOWN = AccountingProbe(False, "Slurm accounting storage is disabled")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("MinJobAge               = 300 sec", 300),
        ("Foo = 1\nMinJobAge = 86400\nBar = 2", 86400),
        ("MinJobAge = 2 min", 120),
        ("MinJobAge = 1h", 3600),
        ("MinJobAge = 5 fortnights", None),
        ("MaxJobCount = 10000", None),
    ],
)
def test_parse_min_job_age(text, seconds):
    assert parse_min_job_age(text) == seconds


def test_required_age_covers_the_longest_pause_and_the_plugins_own_bound():
    assert required_min_job_age(None) == MAX_STATUS_INTERVAL + STATUS_QUERY_TIMEOUT == 240
    assert required_min_job_age(10) == 240
    assert required_min_job_age(100) == 300  # the plugin goes back to sacct below 3 x init


@pytest.mark.parametrize("requested", [None, "", "sacct"])
def test_accounting_that_answers_keeps_sacct(requested):
    for age in (None, 60, 86400):
        c = choose_status_command(requested, UP, age)
        assert c.command == "sacct" and "accounting answers" in c.message


def test_no_accounting_uses_squeue_when_jobs_stay_listed_long_enough():
    c = choose_status_command(None, DOWN, 240)
    assert c.command == "squeue"
    assert "Slurm accounting storage is disabled" in c.message and "240 s" in c.message
    assert choose_status_command("sacct", DOWN, 86400).command == "squeue"


@pytest.mark.parametrize("age", [None, 0, 60, 239])
def test_no_accounting_and_short_min_job_age_stops_with_one_line(age):
    with pytest.raises(SlurmStatusError) as err:
        choose_status_command(None, DOWN, age)
    msg = str(err.value)
    assert "\n" not in msg
    assert "Slurm accounting storage is disabled" in msg
    assert "MinJobAge=240" in msg and "slurmdbd" in msg
    assert (f"MinJobAge = {age} s" if age is not None else "MinJobAge = unknown") in msg


def test_requested_squeue_is_kept_only_where_it_is_reliable():
    assert choose_status_command("squeue", UP, 86400).command == "squeue"
    c = choose_status_command("squeue", UP, 60)  # would miss job ends: sacct answers
    assert c.command == "sacct" and "too short" in c.message
    with pytest.raises(SlurmStatusError, match="slurm-status-command is squeue"):
        choose_status_command("squeue", DOWN, 60)
    with pytest.raises(SlurmStatusError, match="'sacct' or 'squeue'"):
        choose_status_command("scontrol", UP, 86400)


def _fake(tmp_path, name, script):
    p = tmp_path / name
    p.write_text("#!/bin/sh\n" + script)
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def test_probe_reports_what_sacct_says(tmp_path):
    ok = _fake(tmp_path, "sacct_ok", "exit 0\n")
    off = _fake(tmp_path, "sacct_off", "echo 'Slurm accounting storage is disabled' >&2\nexit 1\n")
    dbd = _fake(
        tmp_path,
        "sacct_dbd",
        "echo 'sacct: error: Sending PersistInit msg: Connection refused' >&2\n"
        "echo 'sacct: error: Problem talking to the database: Connection refused' >&2\nexit 1\n",
    )
    slow = _fake(tmp_path, "sacct_slow", "sleep 5\n")
    assert probe_accounting(sacct=ok) == AccountingProbe(True, "")
    assert probe_accounting(sacct=off) == DOWN
    assert probe_accounting(sacct=dbd).detail.endswith(
        "Problem talking to the database: Connection refused"
    )
    assert not probe_accounting(sacct=slow, timeout=0.5).ok
    assert "not found" in probe_accounting(sacct=str(tmp_path / "missing")).detail


def test_min_job_age_from_scontrol(tmp_path):
    sc = _fake(tmp_path, "scontrol", "echo 'MinJobAge               = 300 sec'\n")
    assert min_job_age(scontrol=sc) == 300
    bad = _fake(tmp_path, "scontrol_bad", "exit 1\n")
    assert min_job_age(scontrol=bad) is None
    assert min_job_age(scontrol=os.path.join(str(tmp_path), "missing")) is None


def test_cancelled_by_a_user_is_a_failure_state_for_the_plugin():
    """sacct writes ``CANCELLED by <uid>`` for a job cancelled with scancel; the plugin
    compares whole strings with its failure states, so the run waited for the job forever.
    The wrapper hands it the state word (decision D219), once, and leaves failures of the
    query (``None``) alone."""
    import asyncio
    import types

    import snakemake_executor_plugin_slurm as plugin

    from baiuv.pipeline.slurm_status import base_state, normalize_plugin_states

    assert "query_job_status" in vars(plugin)  # the name the plugin calls at each check
    answers = [({"17": "CANCELLED by 0", "18": "COMPLETED", "19": "RUNNING"}, 0.01), (None, None)]

    async def query(command, logger):
        return answers.pop(0)

    fake = types.SimpleNamespace(query_job_status=query)
    assert normalize_plugin_states(fake) and normalize_plugin_states(fake)
    states, _ = asyncio.run(fake.query_job_status("sacct ...", None))
    assert states == {"17": "CANCELLED", "18": "COMPLETED", "19": "RUNNING"}
    assert asyncio.run(fake.query_job_status("sacct ...", None)) == (None, None)
    assert base_state("CANCELLED by 0") == "CANCELLED" and base_state("") == ""
    assert not normalize_plugin_states(types.SimpleNamespace())
