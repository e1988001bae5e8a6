"""Adapter: result files -> results/reproduction.md."""

from pathlib import Path

import pandas as pd

from baiuv.experiments.characteristic_times import characteristic_claims
from baiuv.experiments.settings_claims import settings_claims
from baiuv.experiments.stopping_claims import experiment_claims
from baiuv.experiments.stopping_times import error_rates, stopping_time_summary
from baiuv.experiments.threshold_claims import ipopt_claim, parameter_claims, threshold_claims
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import table_page, verdict_summary_rst
from baiuv.report.reproduction import decisions, render
from baiuv.simulation.engine import fhn_n0
from baiuv.storage.io import read_table, write_text

log = setup_logging(snakemake.log[0])
inp = snakemake.input
claims = characteristic_claims(
    read_table(inp.ct_instances)[0], read_table(inp.ct_gap)[0], read_table(inp.ct_variance)[0]
)
claims += threshold_claims(
    read_table(inp.thr_delta)[0],
    read_table(inp.thr_time)[0],
    read_table(inp.thr_initial)[0],
    bob_slopes=read_table(inp.bob_slope)[0] if "bob_slope" in inp.keys() else None,
    bob_slope_tol=snakemake.params.bob_slope_tol,
)
claims += parameter_claims(read_table(inp.thr_params)[0])
if "ipopt_agreement" in inp.keys():
    claims.append(ipopt_claim(read_table(inp.ipopt_agreement)[0]))
runs = pd.concat([read_table(p)[0] for p in inp.simulations], ignore_index=True)
p = snakemake.params
fhn = p.fhn_n0 if p.fhn_n0 is not None else fhn_n0(log_inv_delta=p.log_inv_delta)
claims += experiment_claims(
    error_rates(runs),
    stopping_time_summary(runs, n0=p.n0, fhn_n0=fhn),
    snakemake.params.delta,
    runs=runs,
    n0=snakemake.params.n0,
)
claims += settings_claims(p.settings, delta=p.delta, fhn_n0=fhn, runs=runs)
if "fhn_n0" in inp.keys():
    from baiuv.experiments.fhn_n0 import fhn_n0_claims

    claims += fhn_n0_claims(read_table(inp.fhn_n0)[0])
if "asym_verdicts" in inp.keys():
    from baiuv.experiments.asymptotic_claims import asymptotic_claims

    claims += asymptotic_claims(read_table(inp.asym_verdicts)[0], read_table(inp.asym_summary)[0])
if "delta_correct" in inp.keys():
    from baiuv.experiments.delta_correct import delta_correct_claims

    claims += delta_correct_claims(read_table(inp.delta_correct)[0], delta=p.dc_delta)
if "audit_summary" in inp.keys():
    from baiuv.experiments.audit import audit_claims

    claims += audit_claims(
        read_table(inp.audit_summary)[0],
        read_table(inp.audit_cells)[0],
        delta=snakemake.params.audit_delta,
    )
if "ev_cells" in inp.keys():
    from baiuv.experiments.ev_remedies import ev_claims

    claims += ev_claims(
        read_table(inp.ev_cells)[0],
        read_table(inp.ev_init)[0],
        delta=snakemake.params.ev_delta,
        instances=read_table(inp.ev_instances)[0],
        paired=read_table(inp.ev_paired)[0],
    )
config_name = snakemake.params.config_name
text = render(claims, decisions(Path(inp.decisions).read_text()), config_name)
write_text(text, snakemake.output.md)
write_text(table_page(text, "Reproduction report"), snakemake.output.html)
write_text(verdict_summary_rst(claims, config_name), snakemake.output.summary)
log.info("%d claims written", len(claims))
end_job()
