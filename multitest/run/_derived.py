"""The derived files of an experiment folder, from the folds in its store.

``results.csv``, ``costs/<measure>.yaml``, ``costs/noise.csv``, ``failures.csv`` and
``provenance.json``, described in :mod:`multitest.run._runner`, written in one batch
(:func:`_write_outputs`); the store is not among them.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import platform
import sys
import time

import numpy as np
import pandas as pd
import yaml

from ._measure import MEASURES, TIMED_MEASURES
from ._store import KEY

#: Internal to multitest.run.
__all__: list[str] = []

_UNITS = {"fit_time": ("seconds (wall clock)", "Mean wall-clock time of fit over the folds"),
          "fit_cpu_time": ("CPU seconds", "Mean CPU time of fit over the folds"),
          "predict_time": ("seconds (wall clock)",
                           "Mean wall-clock time of predict on the test fold"),
          "predict_cpu_time": ("CPU seconds", "Mean CPU time of predict on the test fold"),
          "peak_memory": ("bytes", "Mean peak growth of resident memory during fit"),
          "model_size": ("bytes", "Mean size of the fitted model, pickled")}
#: The command recorded in the folder's manifest (an experiment folder, not an analysis).
_COMMAND = "run"


def _machine():
    """The hardware and software of this process's machine (for provenance)."""
    info = {"host": platform.node(), "platform": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "cpu": platform.processor() or platform.machine()}
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/meminfo", encoding="utf-8") as handle:
            info["memory_bytes"] = int(handle.readline().split()[1]) * 1024
    return info


def _derive(experiment, tasks, frame):
    """results.csv, the profiles, the noise and the failures from the stored folds."""
    wanted = pd.DataFrame([(*t.key, t.spec) for t in tasks], columns=list(KEY) + ["spec"])
    current = wanted.merge(frame, on=list(KEY) + ["spec"], how="left")
    ok = current["status"] == "ok"
    failures = current[~ok].copy()
    failures["status"] = failures["status"].fillna("missing")
    failures["error"] = failures["error"].fillna("").map(lambda e: e.split("\n", 1)[0])
    bad_sets = list(dict.fromkeys(failures["dataset"]))
    ranked = [d.name for d in experiment.datasets if d.name not in bad_sets]
    notes = [_drop_note(name, failures[failures["dataset"] == name]) for name in bad_sets]
    good = current[ok]
    # Every fold is a row; a failed one has an empty error (the missing-result policy).
    results = current[list(KEY)].assign(error=current["loss"].where(ok))
    for measure in MEASURES:
        results[measure] = current[measure].where(ok)
    noise = _noise(good)
    names = [d.name for d in experiment.datasets]
    profiles = {m: _profile(m, good, noise, experiment, names) for m in MEASURES} \
        if len(good) else {}
    return {"results": results, "failures": failures[list(KEY) + ["status", "error"]],
            "profiles": profiles, "noise": noise, "ranked": ranked, "dropped": bad_sets,
            "notes": notes}


def _drop_note(name, rows):
    first = rows.iloc[0]
    what = f"{first['algorithm']} fold {first['replication']}.{first['fold']} " \
           f"{first['status']}" + (f": {first['error']}" if first["error"] else "")
    return (f"data set {name!r} has {len(rows)} failed or missing fold(s) ({what}); see "
            "failures.csv; they are empty errors in results.csv, which `multitest rank "
            "--missing` handles")


def _noise(good):
    """Spread of the repeated fits of one fold: coefficient of variation per measure."""
    rows = []
    for _, row in good[good["repeats"].notna()].iterrows():
        repeats = json.loads(row["repeats"])
        for measure in TIMED_MEASURES:
            values = np.array([r[measure] for r in repeats], dtype=float)
            mean = values.mean()
            rows.append({"dataset": row["dataset"], "algorithm": row["algorithm"],
                         "measure": measure, "repeats": len(values), "mean": mean,
                         "std": values.std(ddof=1),
                         "cv": values.std(ddof=1) / mean if mean > 0 else 0.0})
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "measure", "repeats", "mean",
                                       "std", "cv"])


def _profile(measure, good, noise, experiment, datasets):
    grouped = good.groupby(["dataset", "algorithm"], sort=False)[measure]
    table, deviation = {}, {}
    # The noise of each cost: its standard deviation over the folds (ddof=0, as
    # scikit-learn's std_fit_time); costs closer than it are ties (--cost-tolerance).
    for (dataset, algorithm), value in grouped.mean().items():
        table.setdefault(str(dataset), {})[str(algorithm)] = float(value)
    for (dataset, algorithm), value in grouped.std(ddof=0).items():
        deviation.setdefault(str(dataset), {})[str(algorithm)] = float(value)
    unit, description = _UNITS[measure]
    description += "; noise of each cost: its standard deviation over the folds"
    # A learner with no fold done on a data set: its average where it ran (stated).
    by_learner = good.groupby("algorithm", sort=False)[measure]
    overall, overall_std = by_learner.mean(), by_learner.std(ddof=0)
    filled = [(d, str(a)) for d in datasets for a in overall.index
              if str(a) not in table.setdefault(d, {})]
    for dataset, algorithm in filled:
        table[dataset][algorithm] = float(overall[algorithm])
        deviation.setdefault(dataset, {})[algorithm] = float(overall_std[algorithm])
    if filled:
        description += (f"; {len(filled)} (data set, learner) pair(s) without a finished fold "
                        "take the learner's mean over the folds it finished elsewhere")
    spread = noise.loc[noise["measure"] == measure, "cv"]
    if len(spread):
        description += (f"; noise of {experiment.repeats} repeated fits of one fold: median "
                        f"coefficient of variation {spread.median():.1%} over {len(spread)} "
                        "data set x algorithm pairs (costs/noise.csv)")
    return {"name": measure, "description": description,
            "source": f"measured by multitest run ({os.path.basename(experiment.path)})",
            "unit": unit, "normalization": "none", "per_dataset": table,
            "noise": deviation}


def _provenance(experiment, start, run, engine, worker_info, derived, counts, digests):
    import importlib.metadata as metadata

    versions = {}
    for package in ("multitest", "numpy", "scipy", "pandas", "scikit-learn", "dask",
                    "distributed", "threadpoolctl"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[package] = metadata.version(package)
    with open(experiment.path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    fold_seeds = {r: int(np.random.SeedSequence([experiment.seed, r]).generate_state(1)[0])
                  for r in range(1, experiment.replications + 1)}
    noise = derived["noise"]
    return {
        "experiment": os.path.abspath(experiment.path), "experiment_sha256": digest,
        "name": experiment.name, "run": run, "command": sys.argv,
        "started": _iso(start), "finished": _iso(time.time()),
        "cv": {"replications": experiment.replications, "folds": experiment.folds,
               "seed": experiment.seed, "stratified": True,
               "fold_seeds_by_replication": fold_seeds},
        "metric": experiment.metric, "repeats": experiment.repeats,
        "timeout": experiment.timeout, "isolate": experiment.isolate,
        "data_sha256": digests, "versions": versions,
        "client": _machine(),
        "engine": engine, "workers": worker_info, "folds": counts,
        "datasets_ranked": derived["ranked"], "datasets_dropped": derived["dropped"],
        "notes": derived["notes"],
        "noise_median_cv": {m: float(noise.loc[noise["measure"] == m, "cv"].median())
                            for m in TIMED_MEASURES if (noise["measure"] == m).any()},
        "measurement": ("each fit in a forked child process" if experiment.isolate else
                        "each fit in the worker process") + ", single-threaded (threadpoolctl, "
                       "n_jobs=1); wall and CPU time separately; peak memory = growth of the "
                       "resident set during fit (VmHWM after clear_refs) less the file pages "
                       "paged in (RssFile); model size = pickled bytes",
    }


def _iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(
        timespec="seconds")


def _write_outputs(out, derived, provenance, raw_csv):
    """Write the derived files in one batch; the store is not among them."""
    from ..outputs._csv import neutralize_frame
    from ..outputs._transaction import transaction

    tables = {k: derived[k] if raw_csv else neutralize_frame(derived[k])
              for k in ("results", "failures", "noise")}
    settings = {"command": _COMMAND, "experiment": provenance["experiment"]}
    with transaction(out, settings=dict(settings, raw_csv=True) if raw_csv else settings,
                     inputs=[provenance["experiment"]]) as staging:
        tables["results"].to_csv(os.path.join(staging, "results.csv"), index=False,
                                 float_format="%.17g")
        tables["failures"].to_csv(os.path.join(staging, "failures.csv"), index=False)
        costs = os.path.join(staging, "costs")
        os.makedirs(costs)
        for measure, profile in derived["profiles"].items():
            with open(os.path.join(costs, f"{measure}.yaml"), "w", encoding="utf-8") as handle:
                yaml.safe_dump(profile, handle, sort_keys=False, allow_unicode=True)
        tables["noise"].to_csv(os.path.join(costs, "noise.csv"), index=False)
        with open(os.path.join(staging, "provenance.json"), "w", encoding="utf-8") as handle:
            json.dump(provenance, handle, indent=1, default=str)
