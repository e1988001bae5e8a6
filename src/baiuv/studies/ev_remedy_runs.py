"""Beyond the paper: the runs of the EV remedy study (:mod:`baiuv.studies.ev_remedies`).

A remedy (:class:`Remedy`) is a threshold kind and an ``n0``; the remedies of one ``n0``
are stopping levels of one trajectory per run (:func:`run_remedy_shard`; D330: one
trajectory for every threshold of an n0), each row equal to that of the remedy run alone.

Random streams: run ``r`` of algorithm ``A`` on instance ``i`` draws from
``run_seed(seed, "ev_remedies", i, A, r)``, common to every remedy of the run, except the
trajectories of the authors' code's configuration (:data:`BASELINE`, ``n0 = 2``) on an
instance the main experiment also runs (a named instance of Figure 2, or its random
instances): they are the main experiment's runs, drawn from that experiment's
``run_seed(seed, experiment, instance, A, r)`` with its settings (:func:`main_streams`,
:func:`check_main_config`), and the aggregation checks their rows against the main
experiment's (:func:`check_main_rows`; D400: the authors' code's configuration is the main
experiment's runs). Random instances of Figure 2 are those of the simulation's ``random``
experiment (``run_seed(seed, "random", "instances", 0, j)``), the audit's those of
``audit_<family>``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from baiuv.experiments.stopping_times import Experiment
from baiuv.model.characteristic import characteristic_time
from baiuv.model.instance import GaussianInstance
from baiuv.model.validate import check_delta
from baiuv.registry import get_algorithm, run_parameters
from baiuv.simulation.engine import (
    Runner,
    RunSettings,
    shard_runs,
    warm_up,
)
from baiuv.simulation.rng import generator_of, run_seed
from baiuv.studies.audit import AuditInstance, audit_instances
from baiuv.studies.ev_truncation import EVIDENCE_COLUMNS, truncation_evidence

__all__ = [
    "SECTION_SCHEMA",
    "BASELINE",
    "BASELINE_REMEDY",
    "EXPERIMENT",
    "MAIN_COLUMNS",
    "RUN_COLUMNS",
    "THRESHOLD_KINDS",
    "Remedy",
    "check_ev_remedies_config",
    "check_main_config",
    "check_main_rows",
    "check_shares_levels",
    "ev_instances",
    "group_streams",
    "main_groups",
    "main_pairs",
    "main_streams",
    "remedies_by_n0",
    "remedies_from_config",
    "run_remedy_shard",
]

#: Key of the random streams.
EXPERIMENT = "ev_remedies"
#: The authors' code's configuration (heuristic threshold, n0 = 2: D51), the reference of
#: the costs.
BASELINE = "heuristic n0=2"
#: Threshold kinds of a remedy.
THRESHOLD_KINDS = ("heuristic", "ev-box", "ev-bob", "ev-heuristic-student")

RUN_COLUMNS = [
    "group",
    "instance",
    "algorithm",
    "remedy",
    "threshold",
    "n0",
    "run",
    "stream",
    "stream_instance",
    "spawn_key",
    "stopping_time",
    "recommendation",
    "best_arm",
    "correct",
    "truncated",
    "count_best",
    "count_rec",
    "lower_bound",
]


@dataclass(frozen=True)
class Remedy:
    """A remedy: threshold kind and initial pulls ``n0``; a stopping level of every run of
    every instance, the trajectories of its ``n0`` (D333: every remedy at the full run
    count)."""

    threshold: str
    n0: int

    def __post_init__(self):
        if self.threshold not in THRESHOLD_KINDS:
            raise ValueError(f"threshold must be one of {THRESHOLD_KINDS}, got {self.threshold!r}")
        if int(self.n0) != self.n0 or self.n0 < 2:
            raise ValueError(f"n0 must be an integer >= 2, got {self.n0!r}")

    @property
    def name(self) -> str:
        """``"<threshold> n0=<n0>"``."""
        return f"{self.threshold} n0={self.n0}"


#: The remedy of the authors' code's configuration (:data:`BASELINE`): its trajectories on
#: the main experiment's instances are that experiment's runs (:func:`main_streams`).
BASELINE_REMEDY = Remedy("heuristic", 2)


def remedies_from_config(specs: Sequence[Mapping], *, baseline: bool = True) -> list[Remedy]:
    """Remedies of the ``ev_remedies.remedies`` list (or a part of it, ``baseline=False``:
    the remedies of one n0); the whole list must contain the baseline."""
    out = []
    for j, spec in enumerate(specs):
        try:
            if extra := set(spec) - {"threshold", "n0"}:
                raise ValueError(f"unknown fields {sorted(extra)} (a remedy has threshold, n0)")
            out.append(Remedy(str(spec["threshold"]), int(spec["n0"])))
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"ev_remedies.remedies[{j}]: {exc}") from None
    names = [r.name for r in out]
    if len(set(names)) != len(names):
        raise ValueError("ev_remedies.remedies: duplicate remedy")
    if baseline and BASELINE not in names:
        raise ValueError(f"ev_remedies.remedies must contain the baseline ({BASELINE})")
    return out


def check_ev_remedies_config(
    section: Mapping,
    named: Mapping[str, Mapping],
    seed: int,
    *,
    simulation: Mapping | None = None,
) -> None:
    """Cross-field checks of the ``ev_remedies`` section (``ValueError`` naming the field):
    EV rules whose trajectory serves every threshold as a stopping level
    (:func:`check_shares_levels`), valid remedies including the baseline, valid
    instances, and, with the ``simulation`` section, the runs it shares with the main
    experiment run as that experiment runs them (:func:`check_main_config`)."""
    check_delta(section["delta"])
    for j, a in enumerate(section["algorithms"]):
        try:
            check_shares_levels(a)
        except ValueError as exc:
            raise ValueError(f"ev_remedies.algorithms[{j}]: {exc}") from None
    remedies_from_config(section["remedies"])
    ev_instances(section, named, seed)
    if simulation is not None:
        check_main_config(section, simulation)


# ---------- D400: the authors' code's configuration is the main experiment's runs
def _study_settings(section: Mapping, remedy: Remedy) -> RunSettings:
    """The settings of the study's runs of ``remedy`` (δ and ``max_samples`` of the
    section, the rule parameters' defaults)."""
    return RunSettings(
        delta=check_delta(section["delta"]),
        threshold=remedy.threshold,
        n0=int(remedy.n0),
        max_samples=int(section.get("max_samples", RunSettings().max_samples)),
    )


def main_groups(
    section: Mapping,
    simulation: Mapping | None,
    algorithm: str | None = None,
    n0: int | None = None,
) -> dict[str, str]:
    """``{group: experiment}``: the groups of the study whose runs of the authors' code's
    configuration are those of an experiment of the ``simulation`` section (the main
    experiment, Figure 2). Empty unless that section runs the study's baseline (threshold
    ``heuristic``, ``n0 = 2``, the study's δ, the rule parameters the study runs; its
    ``max_samples`` is :func:`check_main_config`'s), and, when given, runs ``algorithm``
    and ``n0`` is the baseline's. A named instance is run by the first named experiment of that instance,
    the random group by the experiment ``random`` (the one whose instances the study draws,
    :func:`ev_instances`)."""
    if not simulation or (n0 is not None and int(n0) != BASELINE_REMEDY.n0):
        return {}
    if algorithm is not None:
        name = get_algorithm(algorithm).name
        if all(get_algorithm(a).name != name for a in simulation.get("algorithms") or ()):
            return {}
    main = {**RunSettings(**run_parameters(simulation)).to_dict(), "max_samples": None}
    if main != {**_study_settings(section, BASELINE_REMEDY).to_dict(), "max_samples": None}:
        return {}
    exps = dict(simulation.get("experiments") or {})
    out = {}
    for name in dict(section.get("named") or {}):
        hits = [
            e for e, x in exps.items() if x.get("kind") == "named" and x.get("instance") == name
        ]
        if hits:
            out[str(name)] = hits[0]
    if section.get("random") and (exps.get("random") or {}).get("kind") == "random":
        out["random"] = "random"
    return out


def group_streams(section: Mapping, groups: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """``{instance id of the study: (experiment, instance id)}``: the keys of the main
    experiment's ``run_seed`` for the instances of ``groups`` (:func:`main_groups`), the
    ``streams`` of :func:`run_remedy_shard`."""
    out = {}
    for group, exp in groups.items():
        if group == "random":
            n = int(section["random"]["n_instances"])
            out.update({f"random-{i}": (str(exp), str(i)) for i in range(n)})
        else:
            out[str(group)] = (str(exp), str(group))
    return out


def main_streams(
    section: Mapping, simulation: Mapping | None, algorithm: str
) -> dict[str, tuple[str, str]]:
    """The streams of the main experiment for the baseline trajectories of ``algorithm``
    (:func:`group_streams` of :func:`main_groups`)."""
    return group_streams(section, main_groups(section, simulation, algorithm))


def main_pairs(section: Mapping, simulation: Mapping | None) -> list[tuple[str, str]]:
    """``(experiment, algorithm)`` of every cell of the main experiment whose runs the
    study shares (:func:`main_groups`), in the order of the section."""
    out = []
    for a in section["algorithms"]:
        exps = dict.fromkeys(main_groups(section, simulation, a).values())
        out += [(e, get_algorithm(a).name) for e in exps]
    return out


#: The schema of the ``ev_remedies`` section of the configuration (D416), composed into the
#: configuration schema by :func:`baiuv.pipeline.config.load_schema`.
SECTION_SCHEMA = {
    "type": "object",
    "description": (
        "beyond the paper: remedies for the EV-GLR rules' errors and their cost (null: skipped)"
    ),
    "additionalProperties": False,
    "required": ["delta", "algorithms", "remedies"],
    "properties": {
        "delta": {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "description": "confidence level delta of every remedy",
        },
        "algorithms": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "registry": "algorithms"},
            "description": "EV rules only (checked by baiuv.studies.ev_remedies)",
        },
        "remedies": {
            "type": "array",
            "description": (
                "the remedies compared: a threshold kind and n0 each (one must be the "
                "cost reference, heuristic with n0 = 2), each a stopping level of every "
                "run (D333); the remedies of one n0 share trajectories"
            ),
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["threshold", "n0"],
                "properties": {
                    "threshold": {
                        "type": "string",
                        "description": "baiuv.studies.ev_remedy_runs.THRESHOLD_KINDS",
                    },
                    "n0": {
                        "type": "integer",
                        "minimum": 2,
                        "description": "initial pulls of each arm",
                    },
                },
            },
        },
        "named": {
            "type": "object",
            "description": "top-level instance name -> runs",
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "random": {
            "type": "object",
            "description": "random instances drawn as in Figure 2",
            "additionalProperties": False,
            "required": ["n_instances"],
            "properties": {
                "n_instances": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "number of random instances",
                },
                "runs_per_instance": {
                    "type": "integer",
                    "minimum": 1,
                    "default": 1,
                    "description": "runs on each random instance",
                },
                "K": {
                    "type": "integer",
                    "minimum": 2,
                    "default": 10,
                    "description": "number of arms",
                },
                "gap_range": {
                    "type": "array",
                    "items": {"type": "number"},
                    "minItems": 2,
                    "maxItems": 2,
                    "description": "range of the uniform gaps to the best arm",
                },
                "var_range": {
                    "type": "array",
                    "items": {"type": "number"},
                    "minItems": 2,
                    "maxItems": 2,
                    "description": "range of the uniform variances of the other arms",
                },
            },
        },
        "audit_families": {
            "type": "array",
            "description": (
                "random instances drawn like the audit's (same keys as audit.families)"
            ),
            "items": {"type": "object"},
        },
        "audit_runs": {
            "type": "integer",
            "minimum": 1,
            "default": 100,
            "description": "runs on each audit-like random instance",
        },
        "max_samples": {
            "type": "integer",
            "minimum": 1,
            "registry_default": "max_samples",
            "description": (
                "a run longer than this is stopped and counted as truncated (an error in "
                "the verdicts; the aggregation fails when counting it as correct changes "
                "a verdict, D333); simulation.max_samples when the n0 = 2 runs are the "
                "simulation's (D400)"
            ),
        },
        "level": {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "default": 0.95,
            "description": "confidence level of the Wilson intervals",
        },
        "shards": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": (
                "shards per (algorithm, n0): one job runs every threshold of that n0 as "
                "stopping levels of one trajectory"
            ),
        },
    },
}


#: The fields of the ``random`` entries that draw the random instances, with defaults.
_RANDOM_FIELDS = {"n_instances": None, "runs_per_instance": 1, "K": 10,
                  "gap_range": (0.2, 1.0), "var_range": (0.1, 10.0)}  # fmt: skip


def check_main_config(section: Mapping, simulation: Mapping) -> None:
    """``ValueError`` naming the fields unless the study's runs of the authors' code's
    configuration on the main experiment's instances (:func:`main_groups`) can be that
    experiment's runs: the same ``max_samples``, the same number of runs of each named
    instance, the same random instances and runs (D400: the authors' code's
    configuration is the main experiment's runs)."""
    if not main_pairs(section, simulation):
        return
    groups = main_groups(section, simulation)
    why = []
    mine = _study_settings(section, BASELINE_REMEDY).max_samples
    theirs = RunSettings(**run_parameters(simulation)).max_samples
    if mine != theirs:
        why.append(f"ev_remedies.max_samples = {mine} but simulation.max_samples = {theirs}")
    exps = simulation["experiments"]
    for group, exp in groups.items():
        if group == "random":
            a = {k: section["random"].get(k, d) for k, d in _RANDOM_FIELDS.items()}
            b = {k: exps[exp].get(k, d) for k, d in _RANDOM_FIELDS.items()}
            for k in _RANDOM_FIELDS:
                if tuple(np.atleast_1d(a[k])) != tuple(np.atleast_1d(b[k])):
                    why.append(
                        f"ev_remedies.random.{k} = {a[k]!r} but "
                        f"simulation.experiments.{exp}.{k} = {b[k]!r}"
                    )
        elif int(section["named"][group]) != int(exps[exp]["runs"]):
            why.append(
                f"ev_remedies.named.{group} = {section['named'][group]} runs but "
                f"simulation.experiments.{exp}.runs = {exps[exp]['runs']}"
            )
    if why:
        raise ValueError(
            f"ev_remedies: the runs of {BASELINE} on {sorted(groups)} are the main "
            "experiment's (D400), which runs them otherwise: " + "; ".join(why)
        )


def ev_instances(section: Mapping, named: Mapping[str, Mapping], seed: int) -> list[tuple]:
    """``(group, AuditInstance, runs)`` of the ``ev_remedies`` section, in canonical order.

    ``named``: ``{name: runs}`` (group = name); ``random``: Figure 2's random instances
    (``{n_instances, runs_per_instance, K, gap_range, var_range}``, group ``random``, ids
    ``random-<j>``); ``audit_families`` with ``audit_runs``: random instances drawn like the
    audit's (group ``audit``).
    """
    out = []
    for name, runs in dict(section.get("named") or {}).items():
        if name not in named:
            raise ValueError(f"ev_remedies.named: unknown instance {name!r}")
        inst = named[name]
        gi = GaussianInstance(np.asarray(inst["mu"], float), inst["sigma2"], str(name))
        out.append((str(name), AuditInstance(str(name), "named", gi), int(runs)))
    rnd = section.get("random")
    if rnd:
        exp = Experiment(
            "random",
            "random",
            int(rnd.get("runs_per_instance", 1)),
            None,
            int(rnd["n_instances"]),
            int(rnd.get("K", 10)),
            tuple(rnd.get("gap_range", (0.2, 1.0))),
            tuple(rnd.get("var_range", (0.1, 10.0))),
        )
        for i in range(exp.n_instances):
            _, gi = exp.instance_at(i, seed)
            iid = f"random-{i}"
            out.append(("random", AuditInstance(iid, "random", gi), exp.runs))
    fams = section.get("audit_families") or []
    if fams:
        for a in audit_instances({"families": fams}, named, seed):
            out.append(("audit", a, int(section["audit_runs"])))
    if not out:
        raise ValueError("ev_remedies: at least one instance is required")
    return out


@functools.lru_cache(maxsize=8192)
def _lower_bound(mu: tuple, sigma2: tuple, lid: float) -> float:
    return float(characteristic_time(np.array(mu), np.array(sigma2))) * lid


def remedies_by_n0(remedies: Sequence[Remedy]) -> dict[int, list[Remedy]]:
    """The remedies grouped by ``n0``, in the order of ``remedies``: the remedies of one
    group are the stopping levels of one trajectory (:func:`run_remedy_shard`)."""
    out: dict[int, list[Remedy]] = {}
    for r in remedies:
        out.setdefault(int(r.n0), []).append(r)
    return out


def check_shares_levels(algorithm: str) -> None:
    """``ValueError`` unless ``algorithm`` is an EV rule whose trajectory can serve every
    threshold as a stopping level (:attr:`baiuv.registry.Algorithm.shares_levels`)."""
    alg = get_algorithm(algorithm)
    if not alg.plug_in:
        raise ValueError(f"{algorithm!r} is not an EV rule")
    if not alg.shares_levels:
        raise ValueError(
            f"{alg.name} reads the stopping level: its remedies cannot share a trajectory"
        )


def run_remedy_shard(
    instances: Sequence[tuple],
    algorithm: str,
    remedies: Remedy | Sequence[Remedy],
    *,
    seed: int,
    delta: float,
    max_samples: int,
    n_shards: int = 1,
    shard: int = 0,
    evidence: bool = False,
    streams: Mapping[str, tuple[str, str]] | None = None,
):
    """Simulate one shard of ``algorithm`` with the ``remedies`` of one ``n0`` (a
    :class:`Remedy` or a list of them) on ``instances`` (from :func:`ev_instances`).

    Run ``r`` of an instance is one trajectory (stream ``run_seed(seed, EXPERIMENT,
    instance, algorithm, r)``) whose stopping levels are the thresholds of the remedies
    (D330: one trajectory for every threshold of an n0). ``streams``
    (:func:`main_streams`) maps an instance id to the main experiment's ``(experiment,
    instance)``: with the baseline's ``n0``, run ``r`` of that instance is drawn from
    ``run_seed(seed, experiment, instance, algorithm, r)``, the main experiment's run
    (D400: the authors' code's configuration is the main experiment's runs; the other ``n0`` keep
    the study's streams). No EV rule reads the threshold or
    δ, so each remedy's row equals, bit for bit, that of a run with the remedy alone
    (D306). One row per run and remedy (:data:`RUN_COLUMNS`), runs in order, remedies in
    the order given. With ``evidence``, also the evidence of the truncated rows, from the
    final statistics of their levels
    (:func:`baiuv.studies.ev_truncation.truncation_evidence`): returns ``(rows,
    evidence)``."""
    group = [remedies] if isinstance(remedies, Remedy) else list(remedies)
    if not group or not all(isinstance(r, Remedy) for r in group):
        raise ValueError("remedies must be a Remedy or a non-empty list of them")
    if len({r.n0 for r in group}) != 1:
        raise ValueError(f"remedies of one trajectory share n0, got {[r.name for r in group]}")
    if len({r.threshold for r in group}) != len(group):
        raise ValueError(f"remedies: duplicate threshold in {[r.name for r in group]}")
    check_shares_levels(algorithm)
    alg = get_algorithm(algorithm)
    d = check_delta(delta)
    n0 = int(group[0].n0)
    s = RunSettings(delta=d, threshold=group[0].threshold, n0=n0, max_samples=int(max_samples))
    jobs = [(g, a, r) for g, a, runs in instances for r in range(runs)]
    mine = [jobs[k] for k in shard_runs(len(jobs), n_shards, shard)]
    if mine:
        warm_up(mine[0][1].instance, alg, s, seed=seed)
    # the heuristic last: the kernel's first level, checked on its fastest path, is then
    # one that stops late (the order changes no level's outcome)
    order = sorted(range(len(group)), key=lambda j: group[j].threshold == "heuristic")
    runner = Runner(alg, s, [{"threshold": group[j].threshold} for j in order])
    lid = s.resolved_log_inv_delta
    shared = dict(streams or {}) if n0 == BASELINE_REMEDY.n0 else {}
    rows, proof = [], []
    for g, a, r in mine:
        inst = a.instance
        key = shared.get(a.instance_id, (EXPERIMENT, a.instance_id))
        ss = run_seed(seed, *key, alg.name, r)
        rng = generator_of(ss)
        taus, recs, counts, truncs, means, variances, states, _ = runner.final_outcomes(
            inst.mu, inst.sigma2, rng
        )
        best = inst.best_arm
        lb = _lower_bound(tuple(inst.mu.tolist()), tuple(inst.sigma2.tolist()), lid)
        for j in range(len(group)):
            k = order.index(j)
            rem, rec = group[j], int(recs[k])
            rows.append(
                {
                    "group": g,
                    "instance": a.instance_id,
                    "algorithm": alg.name,
                    "remedy": rem.name,
                    "threshold": rem.threshold,
                    "n0": n0,
                    "run": int(r),
                    "stream": key[0],
                    "stream_instance": key[1],
                    "spawn_key": ",".join(str(x) for x in ss.spawn_key),
                    "stopping_time": int(taus[k]),
                    "recommendation": rec,
                    "best_arm": int(best),
                    "correct": bool(rec == best),
                    "truncated": bool(truncs[k]),
                    "count_best": int(counts[k][best]),
                    "count_rec": int(counts[k][rec]),
                    "lower_bound": lb,
                }
            )
        cut = {
            group[j].threshold: (counts[k], means[k], variances[k], states[k])
            for k, j in enumerate(order)
            if truncs[k]
        }
        if evidence and cut:
            proof += truncation_evidence(
                inst,
                alg.name,
                cut,
                n0=n0,
                delta=d,
                max_samples=int(max_samples),
                keys={"group": g, "instance": a.instance_id, "run": int(r)},
            )
    out = pd.DataFrame(rows, columns=RUN_COLUMNS)
    if not evidence:
        return out
    return out, pd.DataFrame(proof, columns=EVIDENCE_COLUMNS)


#: The columns of a run of the authors' code's configuration equal, bit for bit, to those
#: of the main experiment's row of that run (:func:`check_main_rows`).
MAIN_COLUMNS = ("spawn_key", "stopping_time", "recommendation", "best_arm", "correct",
                "truncated", "count_best", "count_rec")  # fmt: skip


def check_main_rows(
    runs: pd.DataFrame, main: pd.DataFrame | None, pairs: Iterable[tuple[str, str]]
) -> int:
    """``ValueError`` unless the study's rows of :data:`BASELINE` drawn from the main
    experiment's streams (column ``stream`` not :data:`EXPERIMENT`) are, for every
    ``(experiment, algorithm)`` of ``pairs`` (:func:`main_pairs`) and no other, the main
    experiment's rows of that cell (``main``: its run tables,
    :func:`baiuv.experiments.stopping_times.run_shard`, ``None`` when ``pairs`` is
    empty): the same runs, each equal in :data:`MAIN_COLUMNS` (the main row's counts of
    the best and the recommended arm read from its ``counts``). Returns the number of rows
    checked (D400: the authors' code's configuration is the main experiment's runs)."""
    base = runs[(runs["remedy"] == BASELINE) & (runs["stream"] != EXPERIMENT)]
    want = list(dict.fromkeys((str(e), str(a)) for e, a in pairs))
    if main is None:
        main = pd.DataFrame(columns=["experiment", "algorithm", "instance", "run", "counts"])
    got = list(dict.fromkeys(zip(base["stream"], base["algorithm"], strict=True)))
    if set(got) != set(want):
        raise ValueError(
            f"the study's runs of {BASELINE} from the main experiment's streams cover "
            f"{sorted(got)}, expected {sorted(want)}"
        )
    why = []
    for e, a in want:
        ours = base[(base["stream"] == e) & (base["algorithm"] == a)]
        ours = ours.set_index(["stream_instance", "run"])
        m = main[(main["experiment"] == e) & (main["algorithm"] == a)]
        theirs = m.assign(
            instance=m["instance"].astype(str),
            count_best=[int(c[b]) for c, b in zip(m["counts"], m["best_arm"], strict=True)],
            count_rec=[int(c[r]) for c, r in zip(m["counts"], m["recommendation"], strict=True)],
        ).set_index(["instance", "run"])
        if len(ours) != len(theirs) or set(ours.index) != set(theirs.index):
            why.append(f"{a} on {e}: {len(ours)} runs, the main experiment's {len(theirs)}")
            continue
        theirs = theirs.loc[ours.index]
        for c in MAIN_COLUMNS:
            x, y = ours[c].tolist(), theirs[c].tolist()
            bad = [j for j in range(len(x)) if x[j] != y[j]]
            if bad:
                i, r = ours.index[bad[0]]
                why.append(
                    f"{a} on {e}: {c} differs in {len(bad)} runs (first: instance {i} run {r}, "
                    f"{x[bad[0]]!r} here, {y[bad[0]]!r} in the main experiment)"
                )
    if why:
        raise ValueError(
            f"the study's runs of {BASELINE} are not the main experiment's: " + "; ".join(why)
        )
    return len(base)
