"""Writing a :class:`~multitest.ranking.Ranking`: ``result.json`` and CSV tables.

All files of one run are first written to a temporary directory next to the
output directory and then moved into place one by one with ``os.replace``, so
that an existing output is never half-overwritten and a failed run leaves the
previous outputs untouched.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile

import numpy as np
import pandas as pd

__all__ = ["to_dict", "write_outputs", "atomic_directory", "INLINE_PAIRS_LIMIT",
           "PAIRWISE_FILE"]

#: Above this many pairwise results in all, ``result.json`` refers to
#: :data:`PAIRWISE_FILE` instead of listing every pair inline.
INLINE_PAIRS_LIMIT = 100_000
PAIRWISE_FILE = "pairwise.csv.gz"


def _number(value):
    """JSON-safe float: infinities become the strings 'inf' / '-inf'."""
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def to_dict(ranking, inline_pairs=None):
    """The ``result.json`` document of a ranking (schema in the README).

    Parameters
    ----------
    ranking : multitest.ranking.Ranking
    inline_pairs : bool, optional
        List every pairwise result inline.  By default inline when there are
        at most :data:`INLINE_PAIRS_LIMIT` of them.
    """
    n_pairs = ranking.datasets[0].table.statistic.size
    if inline_pairs is None:
        inline_pairs = n_pairs <= INLINE_PAIRS_LIMIT
    doc = {
        "final_order": list(ranking.final_order),
        "average_ranks": {a: float(r) for a, r in ranking.average_ranks.items()},
        "friedman": _friedman(ranking),
        "second_pass": _second_pass(ranking),
        "control": _control(ranking),
        "datasets": {r.name: _dataset(r, inline_pairs) for r in ranking.datasets},
        "settings": dict(ranking.settings.to_dict(), costs=ranking.profile.describe()),
        "notes": list(ranking.notes),
        "input": {"source": ranking.results.source,
                  "algorithms": list(ranking.results.algorithms),
                  "n_datasets": ranking.results.n_datasets,
                  "replications": ranking.results.replications,
                  "folds_per_replication": ranking.results.folds_per_replication,
                  "has_folds": ranking.results.has_folds},
        "pairwise_file": None if inline_pairs else PAIRWISE_FILE,
        "n_pairwise_tests": n_pairs if ranking.results.has_folds else 0,
    }
    doc["settings"]["friedman_gate"] = ranking.settings.friedman_gate
    return doc


def _friedman(ranking):
    fr = ranking.friedman
    if fr is None:
        return None
    return {"statistic": _number(fr.statistic), "pvalue": _number(fr.pvalue), "df": fr.df,
            "iman_davenport_statistic": _number(fr.iman_davenport_statistic),
            "iman_davenport_pvalue": _number(fr.iman_davenport_pvalue),
            "iman_davenport_df": list(fr.iman_davenport_df),
            "rejected": bool(fr.pvalue < ranking.settings.alpha),
            "gate": ranking.settings.friedman_gate,
            "decision": ranking.second_pass.gate}


def _second_pass(ranking):
    sp = ranking.second_pass
    if sp is None:
        return None
    names = sp.algorithms
    pvalues = []
    if sp.posthoc is not None:
        i, j = np.triu_indices(len(names), k=1)
        pvalues = [[names[a], names[b], _number(sp.posthoc.pvalues[a, b])] for a, b in zip(i, j)]
    cd = sp.critical_difference
    return {"method": sp.method, "correction": sp.correction, "alpha": sp.alpha,
            "applied": sp.applied, "gate": sp.gate,
            "critical_difference": None if cd is None else _number(cd),
            "significant": [list(pair) for pair in sp.significant_pairs()],
            "pvalues": pvalues,
            "prior_order": list(sp.prior_order),
            "average_costs": dict(zip(names, map(float, sp.average_costs))),
            "edges": [list(edge) for edge in sp.edges()],
            "order": list(sp.order)}


def _control(ranking):
    c = ranking.control
    if c is None:
        return None
    names = ranking.algorithms
    others = [i for i in range(len(names)) if i != c.control]
    return {"control": names[c.control], "method": ranking.settings.control_method,
            "critical_difference": _number(c.critical_difference),
            "comparisons": [{"algorithm": names[i], "statistic": _number(c.statistic[i]),
                             "pvalue": _number(c.raw_pvalues[i]),
                             "pvalue_adjusted": _number(c.pvalues[i]),
                             "significant": bool(c.significant[i])} for i in others]}


def _dataset(result, inline_pairs):
    doc = {"order": list(result.order),
           "ranks": {a: (int(r) if float(r).is_integer() else float(r))
                     for a, r in result.ranks.items()},
           "prior_order": list(result.prior_order),
           "costs": dict(zip(result.algorithms, map(float, result.costs))),
           "cost_ties": [list(group) for group in result.cost_ties],
           "mean_errors": result.mean_errors,
           "tested": result.tested}
    pairs = result.pairs() if inline_pairs else None
    if inline_pairs:
        doc["edges"] = [{"from": p["a"], "to": p["b"], "statistic": _number(p["statistic"]),
                         "pvalue": _number(p["pvalue"])} for p in pairs if p["override"]]
        doc["pairwise"] = [dict(p, statistic=_number(p["statistic"]),
                                pvalue=_number(p["pvalue"]),
                                pvalue_adjusted=_number(p["pvalue_adjusted"])) for p in pairs]
    else:
        doc["edges"] = [{"from": a, "to": b, "statistic": _number(s), "pvalue": _number(p)}
                        for a, b, s, p in result.edges()]
    return doc


# -- tables ----------------------------------------------------------------------

def pairwise_frame(ranking):
    """Every pairwise result of every data set, one row per pair."""
    frames = []
    names = np.asarray(ranking.algorithms, dtype=object)
    for r in ranking.datasets:
        if not r.tested:
            continue
        t, s = r.table, r.index
        cheaper, costlier = t.prior[s][t.first], t.prior[s][t.second]
        frames.append(pd.DataFrame({
            "dataset": r.name, "a": names[cheaper], "b": names[costlier],
            "statistic": t.statistic[s], "pvalue": t.pvalue[s],
            "pvalue_adjusted": t.pvalue_adjusted[s],
            "mean_error_a": t.mean_errors[s][cheaper], "mean_error_b": t.mean_errors[s][costlier],
            "override": t.override[s]}))
    columns = ["dataset", "a", "b", "statistic", "pvalue", "pvalue_adjusted", "mean_error_a",
               "mean_error_b", "override"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def stage_tables(ranking):
    """The CSV tables of every stage: ``{file name: DataFrame}``."""
    algorithms = list(ranking.algorithms)
    tables = {
        "final_order.csv": pd.DataFrame({"rank": range(1, len(ranking.final_order) + 1),
                                         "algorithm": list(ranking.final_order)}),
        "ranks.csv": ranking.ranks_frame().reset_index(),
        "orders.csv": pd.DataFrame(
            [[r.name, "prior"] + list(r.prior_order) for r in ranking.datasets]
            + [[r.name, "multitest"] + list(r.order) for r in ranking.datasets],
            columns=["dataset", "stage"] + [f"position_{i}" for i in range(1, len(algorithms) + 1)]
        ).sort_values(["dataset", "stage"], kind="stable"),
        "mean_errors.csv": pd.DataFrame(
            [[r.name] + [r.mean_errors[a] for a in algorithms] for r in ranking.datasets],
            columns=["dataset"] + algorithms),
        "costs.csv": pd.DataFrame(
            [[r.name] + list(map(float, r.costs)) for r in ranking.datasets],
            columns=["dataset"] + algorithms),
    }
    sp = ranking.second_pass
    if sp is not None:
        tables["second_pass.csv"] = pd.DataFrame({
            "algorithm": algorithms, "average_rank": sp.average_ranks,
            "average_cost": sp.average_costs,
            "prior_position": [sp.prior_order.index(a) + 1 for a in algorithms],
            "final_position": [sp.order.index(a) + 1 for a in algorithms]})
        if sp.posthoc is not None:
            i, j = np.triu_indices(len(algorithms), k=1)
            tables["posthoc.csv"] = pd.DataFrame({
                "a": np.asarray(algorithms, dtype=object)[i],
                "b": np.asarray(algorithms, dtype=object)[j],
                "statistic": sp.posthoc.statistic[i, j], "pvalue": sp.posthoc.pvalues[i, j],
                "significant": sp.significant[i, j]})
    return tables


# -- atomic writing -----------------------------------------------------------------

@contextlib.contextmanager
def atomic_directory(out_dir):
    """Collect files in a staging directory; move them into ``out_dir`` on success.

    Yields the staging directory.  On an exception nothing in ``out_dir``
    changes.  Each file is moved with :func:`os.replace` (atomic on POSIX), so
    a reader sees either the old or the new version of every file.
    """
    out_dir = os.path.abspath(out_dir)
    parent = os.path.dirname(out_dir)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".multitest-", dir=parent)
    try:
        yield staging
        os.makedirs(out_dir, exist_ok=True)
        for root, _, files in os.walk(staging):
            target_root = os.path.join(out_dir, os.path.relpath(root, staging))
            os.makedirs(target_root, exist_ok=True)
            for name in files:
                os.replace(os.path.join(root, name), os.path.join(target_root, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_outputs(ranking, out_dir, *, extra=None):
    """Write ``result.json``, the CSV tables and (for large runs) the pairwise file.

    Parameters
    ----------
    ranking : multitest.ranking.Ranking
    out_dir : str or os.PathLike
    extra : callable, optional
        ``extra(staging_dir)`` writes more files (figures, the report) into
        the same atomic batch.

    Returns
    -------
    list of str
        The files written, relative to ``out_dir``.
    """
    with atomic_directory(out_dir) as staging:
        doc = to_dict(ranking)
        with open(os.path.join(staging, "result.json"), "w", encoding="utf-8") as handle:
            json.dump(doc, handle, indent=1, allow_nan=False)
        for name, table in stage_tables(ranking).items():
            table.to_csv(os.path.join(staging, name), index=False)
        if ranking.results.has_folds:
            name = PAIRWISE_FILE if doc["pairwise_file"] else "pairwise.csv"
            pairwise_frame(ranking).to_csv(os.path.join(staging, name), index=False,
                                           float_format="%.17g")
        if extra is not None:
            extra(staging)
        written = sorted(os.path.relpath(os.path.join(root, f), staging)
                         for root, _, files in os.walk(staging) for f in files)
    return written
