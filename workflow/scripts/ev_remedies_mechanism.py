"""Adapter: EV remedy runs -> erring runs replayed, the model at the first check, table."""

from baiuv.pipeline.logs import end_job, setup_logging
from baiuv.report.pages import for_readers
from baiuv.storage.io import read_table, write_table, write_text
from baiuv.studies.ev_mechanism import erring_runs, init_comparison, mechanism_markdown
from baiuv.studies.ev_remedy_runs import ev_instances

log = setup_logging(snakemake.log[0])
p = snakemake.params
sec = p.section
runs, _ = read_table(snakemake.input[0])
insts = {a.instance_id: a.instance for _, a, _ in ev_instances(sec, p.instances, p.seed)}
delta = float(sec["delta"])
err = erring_runs(
    runs,
    insts,
    seed=p.seed,
    delta=delta,
    max_samples=int(sec["max_samples"]),
)
comp = init_comparison(runs, insts, delta=delta, level=float(sec["level"]))
meta = {"delta": delta, "code": p.code}
write_table(err, snakemake.output.errors, meta)
write_table(comp, snakemake.output.init, meta)
write_text(for_readers(mechanism_markdown(err, comp)), snakemake.output.table)
log.info("%d erring runs replayed", len(err))
end_job()
