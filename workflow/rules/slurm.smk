# On a SLURM cluster (--executor slurm, profiles/slurm), before any job is submitted: find
# out whether job accounting answers and choose how the run follows its jobs (decision
# D130): sacct when accounting answers, squeue when it does not and slurm.conf's MinJobAge
# is long enough, otherwise stop at once with one line naming the setting.
from baiuv.pipeline.slurm_status import (  # noqa: E402
    SlurmStatusError,
    choose_status_command,
    min_job_age,
    normalize_plugin_states,
    probe_accounting,
)


def _slurm_executor_active():
    plugin = workflow.executor_plugin
    return plugin is not None and getattr(plugin, "cli_prefix", None) == "slurm"


onstart:
    if _slurm_executor_active():
        from snakemake.exceptions import WorkflowError
        from snakemake.logging import logger

        _settings = workflow.executor_settings
        try:
            _choice = choose_status_command(
                getattr(_settings, "status_command", None),
                probe_accounting(),
                min_job_age(),
                getattr(_settings, "init_seconds_before_status_checks", None),
            )
        except SlurmStatusError as exc:
            raise WorkflowError(str(exc)) from None
        _settings.status_command = _choice.command
        logger.info(_choice.message)
        import snakemake_executor_plugin_slurm as _slurm_plugin

        # "CANCELLED by <uid>" is a failure, not a running job (D219)
        normalize_plugin_states(_slurm_plugin)
