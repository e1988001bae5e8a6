"""Adapter: result files -> results/reproduction.md."""

from pathlib import Path

import pandas as pd

from baiuv.experiments.stopping_times import error_rates, stopping_time_summary
from baiuv.pipeline.io import read_table, write_text
from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import table_page, verdict_summary_rst
from baiuv.report.reproduction import (
    characteristic_claims,
    decisions,
    experiment_claims,
    ipopt_claim,
    render,
    threshold_claims,
)

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
if "ipopt_agreement" in inp.keys():
    claims.append(ipopt_claim(read_table(inp.ipopt_agreement)[0]))
runs = pd.concat([read_table(p)[0] for p in inp.simulations], ignore_index=True)
claims += experiment_claims(
    error_rates(runs),
    stopping_time_summary(runs),
    snakemake.params.delta,
    n0=snakemake.params.n0,
)
if "asym_verdicts" in inp.keys():
    from baiuv.experiments.asymptotic import asymptotic_claims

    claims += asymptotic_claims(read_table(inp.asym_verdicts)[0], read_table(inp.asym_summary)[0])
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
        read_table(inp.ev_cells)[0], read_table(inp.ev_init)[0], delta=snakemake.params.ev_delta
    )
config_name = snakemake.params.config_name
text = render(claims, decisions(Path(inp.decisions).read_text()), config_name)
write_text(text, snakemake.output.md)
write_text(table_page(text, "Reproduction report"), snakemake.output.html)
write_text(verdict_summary_rst(claims, config_name), snakemake.output.summary)
log.info("%d claims written", len(claims))
end_job()
