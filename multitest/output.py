"""Writing a :class:`~multitest.ranking.Ranking`: ``result.json`` and CSV tables.

All files of one run are written through one output-folder transaction
(:mod:`multitest.outdir`): the folder holds the previous run or the new one,
never a mix, and ``manifest.json`` says which.

Small runs list every pairwise result inline in ``result.json`` (and in
``pairwise.csv``).  Above :data:`INLINE_PAIRS_LIMIT` results in all,
``result.json`` names :data:`PAIRWISE_FILE` instead: an uncompressed NumPy
``.npz`` archive, one array per column, written column by column straight from
the result arrays (see :func:`write_pairwise_file`; :func:`read_pairwise`
turns it back into the table of :func:`pairwise_frame`).
"""

from __future__ import annotations

import json
import math
import os
import zipfile

import numpy as np
import pandas as pd

from .outdir import transaction

__all__ = ["to_dict", "write_outputs", "atomic_directory", "INLINE_PAIRS_LIMIT",
           "PAIRWISE_FILE", "pairwise_frame", "stage_tables", "write_pairwise_file",
           "read_pairwise", "is_large"]

#: Above this many pairwise results in all, ``result.json`` refers to
#: :data:`PAIRWISE_FILE` instead of listing every pair (and every edge) inline.
INLINE_PAIRS_LIMIT = 100_000
PAIRWISE_FILE = "pairwise.npz"

#: Columns of :func:`pairwise_frame` (and of ``pairwise.csv``).
PAIRWISE_COLUMNS = ("dataset", "a", "b", "statistic", "pvalue", "pvalue_adjusted",
                    "mean_error_a", "mean_error_b", "override")


def _number(value):
    """JSON-safe float: infinities become the strings 'inf' / '-inf'."""
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def is_large(ranking):
    """Whether the run has more than :data:`INLINE_PAIRS_LIMIT` pairwise results."""
    return ranking.datasets[0].table.statistic.size > INLINE_PAIRS_LIMIT


def to_dict(ranking, inline_pairs=None):
    """The ``result.json`` document of a ranking (schema in the README).

    Parameters
    ----------
    ranking : multitest.ranking.Ranking
    inline_pairs : bool, optional
        List every pairwise result inline.  By default inline when there are
        at most :data:`INLINE_PAIRS_LIMIT` of them.
    """
    if inline_pairs is None:
        inline_pairs = not is_large(ranking)
    doc = {
        "final_order": list(ranking.final_order),
        "average_ranks": {a: float(r) for a, r in ranking.average_ranks.items()},
        "friedman": _friedman(ranking),
        "second_pass": _second_pass(ranking),
        "control": _control(ranking),
        "effect_sizes": _effect_sizes(ranking),
        "datasets": {r.name: _dataset(r, inline_pairs, ranking) for r in ranking.datasets},
        "settings": dict(ranking.settings.to_dict(), costs=ranking.profile.describe()),
        "notes": list(ranking.notes),
        "input": {"source": ranking.results.source,
                  "algorithms": list(ranking.results.algorithms),
                  "n_datasets": ranking.results.n_datasets,
                  "replications": ranking.results.replications,
                  "folds_per_replication": ranking.results.folds_per_replication,
                  "has_folds": ranking.results.has_folds},
        "pairwise_file": None if inline_pairs else PAIRWISE_FILE,
        "n_pairwise_tests": ranking.datasets[0].table.statistic.size,
    }
    doc["explanations"] = _explanations(ranking)
    return doc


def _explanations(ranking):
    """One sentence per final position, and the Friedman power when it cannot reject."""
    from .explain import explain_order, friedman_power

    out = {"positions": [{"position": e.position, "algorithm": e.algorithm,
                          "sentence": e.sentence} for e in explain_order(ranking)]}
    fr, sp = ranking.friedman, ranking.second_pass
    if fr is not None and fr.pvalue >= sp.alpha:
        power = friedman_power(sp.average_ranks, len(ranking.datasets), sp.alpha)
        warning = power.sentence(sp.alpha, ranking.settings.friedman_gate)
        out["friedman_power"] = {"power": power.power, "datasets_needed": power.datasets_needed,
                                 "warning": warning}
    return out


def _friedman(ranking):
    fr = ranking.friedman
    if fr is None:
        return None
    return {"statistic": _number(fr.statistic), "pvalue": _number(fr.pvalue), "df": fr.df,
            "iman_davenport_statistic": _number(fr.iman_davenport_statistic),
            "iman_davenport_pvalue": _number(fr.iman_davenport_pvalue),
            "iman_davenport_df": list(fr.iman_davenport_df),
            "ties": fr.ties, "all_tied": fr.all_tied,
            "rejected": bool(fr.pvalue < ranking.settings.alpha),
            "gate": ranking.settings.friedman_gate,
            "decision": ranking.second_pass.gate}


def _second_pass(ranking):
    from .effect_sizes import second_pass_rows

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
            "order": list(sp.order),
            "effect_sizes": second_pass_rows(ranking)}


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


def _effect_sizes(ranking):
    """Conventions of the effect sizes (values are beside each pair); None without folds."""
    from .effect_sizes import interval_of   # see docs/effect_sizes.md

    if not ranking.results.has_folds:
        return None
    doc = {"level": 1 - ranking.settings.alpha,
           "per_dataset_interval": interval_of(ranking.settings.test, ranking.results.design)}
    rho = getattr(ranking.datasets[0].table, "rho", None)   # Bayesian correlated t-test
    if rho is not None:
        doc["rho"] = rho
    return doc


def _finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


def _dataset(result, inline_pairs, ranking=None):
    doc = {"order": list(result.order),
           "ranks": {a: (int(r) if float(r).is_integer() else float(r))
                     for a, r in result.ranks.items()},
           "prior_order": list(result.prior_order),
           "costs": dict(zip(result.algorithms, map(float, result.costs))),
           "cost_ties": [list(group) for group in result.cost_ties],
           "mean_errors": result.mean_errors,
           "tested": result.tested}
    if inline_pairs:
        from .effect_sizes import pairwise_columns

        pairs = result.pairs()
        extra = {} if ranking is None else pairwise_columns(ranking, [result])
        pairs = [dict(p, **{k: _finite_or_none(v[n]) for k, v in extra.items()})
                 for n, p in enumerate(pairs)]
        doc["edges"] = [{"from": p["a"], "to": p["b"], "statistic": _number(p["statistic"]),
                         "pvalue": _number(p["pvalue"]), **{k: p[k] for k in extra}}
                        for p in pairs if p["override"]]
        doc["pairwise"] = [dict(p, statistic=_number(p["statistic"]),
                                pvalue=_number(p["pvalue"]),
                                pvalue_adjusted=_number(p["pvalue_adjusted"])) for p in pairs]
    else:
        # Every edge is a pair with override true in the pairwise file.
        doc["n_edges"] = int(result.table.override[result.index].sum()) if result.tested else 0
    return doc


# -- tables ----------------------------------------------------------------------

def pairwise_frame(ranking):
    """Every pairwise result of every data set, one row per pair.

    Columns :data:`PAIRWISE_COLUMNS`: data set, ``a`` (the cheaper), ``b``,
    statistic, p-value, adjusted p-value, the two mean errors and whether
    ``b`` overrides ``a``.  Data sets in input order, pairs in cost order.
    """
    table = _tested_table(ranking)
    if table is None:
        return pd.DataFrame(columns=list(PAIRWISE_COLUMNS))
    names, datasets = ranking.algorithms, [r.name for r in ranking.datasets]
    S, P = table.statistic.shape
    cheaper, costlier = table.prior[:, table.first], table.prior[:, table.second]
    means = table.mean_errors
    rows = np.arange(S)[:, None]
    return pd.DataFrame({
        "dataset": np.repeat(np.asarray(datasets, dtype=object), P),
        "a": np.asarray(names, dtype=object)[cheaper.ravel()],
        "b": np.asarray(names, dtype=object)[costlier.ravel()],
        "statistic": table.statistic.ravel(), "pvalue": table.pvalue.ravel(),
        "pvalue_adjusted": table.pvalue_adjusted.ravel(),
        "mean_error_a": means[rows, cheaper].ravel(), "mean_error_b": means[rows, costlier].ravel(),
        "override": table.override.ravel()})


def _tested_table(ranking):
    """The :class:`~multitest.per_dataset.PairwiseTable` shared by the data sets.

    Its rows are the data sets, in order (as :func:`multitest.rank` builds
    them); None without pairwise tests (score-matrix input).
    """
    first = ranking.datasets[0]
    return first.table if first.tested else None


def _code_dtype(n):
    return np.uint16 if n <= np.iinfo(np.uint16).max else np.int32


def write_pairwise_file(ranking, path):
    """Write every pairwise result to an uncompressed ``.npz`` archive.

    One array per column, every array of length ``n`` (the number of pairs,
    data sets in input order, pairs in cost order within a data set):

    - ``dataset`` (int): index into ``datasets``;
    - ``a``, ``b`` (int): indices into ``algorithms``; ``a`` is the cheaper;
    - ``statistic``, ``pvalue`` (float64): as in ``pairwise.csv`` (infinite
      statistics stay ``inf``);
    - ``pvalue_adjusted`` (float64): only when it differs from ``pvalue``
      (a within-data-set correction was applied); otherwise it would repeat
      ``pvalue`` exactly, and :func:`read_pairwise` copies ``pvalue``;
    - ``override`` (bool): ``b`` is significantly better than ``a``: the edges.

    and the lookup arrays ``datasets`` (S,), ``algorithms`` (L,) (Unicode)
    and ``mean_errors`` (S, L) (float64; ``mean_error_a`` of a pair is
    ``mean_errors[dataset, a]``).  Index arrays are ``uint16`` when the names
    fit, else ``int32``.  ``np.load(path)`` reads it without pickling;
    :func:`read_pairwise` returns the table of :func:`pairwise_frame`.
    The columns are written one after the other, so memory beyond the
    results themselves stays at one column.
    """
    table = _tested_table(ranking)
    if table is None:
        raise ValueError("no pairwise tests to write (score-matrix input)")
    names, datasets = ranking.algorithms, [r.name for r in ranking.datasets]
    S, P = table.statistic.shape
    columns = (
        ("datasets", lambda: np.asarray(datasets, dtype=str)),
        ("algorithms", lambda: np.asarray(names, dtype=str)),
        ("mean_errors", lambda: table.mean_errors),
        ("dataset", lambda: np.repeat(np.arange(S, dtype=_code_dtype(S)), P)),
        ("a", lambda: table.prior.astype(_code_dtype(len(names)))[:, table.first]),
        ("b", lambda: table.prior.astype(_code_dtype(len(names)))[:, table.second]),
        ("statistic", lambda: table.statistic),
        ("pvalue", lambda: table.pvalue),
        ("pvalue_adjusted", lambda: table.pvalue_adjusted),
        ("override", lambda: table.override),
    )
    if _same_values(table.pvalue_adjusted, table.pvalue):
        columns = tuple(c for c in columns if c[0] != "pvalue_adjusted")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, make in columns:
            array = make()
            if key not in ("datasets", "algorithms", "mean_errors"):
                array = array.reshape(-1)
            with archive.open(f"{key}.npy", "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, np.ascontiguousarray(array),
                                          allow_pickle=False)
            del array


def _same_values(x, y):
    return x is y or (x.shape == y.shape and np.array_equal(x, y))


def read_pairwise(path):
    """The table of :func:`pairwise_frame` from a file of :func:`write_pairwise_file`.

    Parameters
    ----------
    path : str or os.PathLike
        A ``pairwise.npz`` written by :func:`write_outputs`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIRWISE_COLUMNS`, one row per pair.
    """
    with np.load(path, allow_pickle=False) as archive:
        datasets = archive["datasets"].astype(object)
        algorithms = archive["algorithms"].astype(object)
        dataset = archive["dataset"].astype(np.intp)
        a, b = archive["a"].astype(np.intp), archive["b"].astype(np.intp)
        means = archive["mean_errors"]
        return pd.DataFrame({
            "dataset": datasets[dataset], "a": algorithms[a], "b": algorithms[b],
            "statistic": archive["statistic"], "pvalue": archive["pvalue"],
            "pvalue_adjusted": archive["pvalue_adjusted"] if "pvalue_adjusted" in archive
            else archive["pvalue"],
            "mean_error_a": means[dataset, a], "mean_error_b": means[dataset, b],
            "override": archive["override"]})


def stage_tables(ranking):
    """The CSV tables of every stage: ``{file name: DataFrame}``."""
    algorithms = list(ranking.algorithms)
    names = np.asarray(algorithms, dtype=object)
    results = ranking.datasets
    datasets = [r.name for r in results]
    positions = [f"position_{i}" for i in range(1, len(algorithms) + 1)]
    prior = pd.DataFrame([r.prior_order for r in results], columns=positions)
    final = pd.DataFrame([r.order for r in results], columns=positions)
    prior.insert(0, "stage", "prior")
    final.insert(0, "stage", "multitest")
    for frame in (prior, final):
        frame.insert(0, "dataset", datasets)
    orders = pd.concat([prior, final], ignore_index=True).sort_values(
        ["dataset", "stage"], kind="stable")
    tables = {
        "final_order.csv": pd.DataFrame({"rank": range(1, len(ranking.final_order) + 1),
                                         "algorithm": list(ranking.final_order)}),
        "ranks.csv": ranking.ranks_frame().reset_index(),
        "orders.csv": orders,
        "mean_errors.csv": _by_dataset(datasets, algorithms, results[0].table.mean_errors),
        "costs.csv": _by_dataset(datasets, algorithms,
                                 np.array([np.asarray(r.costs, dtype=float) for r in results])
                                 .reshape(len(results), len(algorithms))),
    }
    sp = ranking.second_pass
    if sp is not None:
        prior_position = {a: i for i, a in enumerate(sp.prior_order, start=1)}
        final_position = {a: i for i, a in enumerate(sp.order, start=1)}
        tables["second_pass.csv"] = pd.DataFrame({
            "algorithm": algorithms, "average_rank": sp.average_ranks,
            "average_cost": sp.average_costs,
            "prior_position": [prior_position[a] for a in algorithms],
            "final_position": [final_position[a] for a in algorithms]})
        from .effect_sizes import second_pass_rows

        tables["effect_sizes.csv"] = pd.DataFrame(second_pass_rows(ranking))
        if sp.posthoc is not None:
            i, j = np.triu_indices(len(algorithms), k=1)
            tables["posthoc.csv"] = pd.DataFrame({
                "a": names[i], "b": names[j],
                "statistic": sp.posthoc.statistic[i, j], "pvalue": sp.posthoc.pvalues[i, j],
                "significant": sp.significant[i, j]})
        else:
            # The Friedman gate kept the post-hoc test from running: the file is
            # there, with its header and no row, rather than silently absent.
            tables["posthoc.csv"] = pd.DataFrame(
                columns=["a", "b", "statistic", "pvalue", "significant"])
    return tables


def _by_dataset(datasets, algorithms, matrix):
    frame = pd.DataFrame(matrix, columns=algorithms)
    frame.insert(0, "dataset", datasets)
    return frame


# -- atomic writing -----------------------------------------------------------------

def atomic_directory(out_dir, *, settings=None, inputs=()):
    """Collect files in a staging directory; make them the contents of ``out_dir``.

    Yields the staging directory (inside ``out_dir``).  On success the files
    replace the previous run's as a whole; on an exception nothing in
    ``out_dir`` changes.  A transaction of :func:`multitest.outdir.transaction`
    (see there for the lock, the manifest and the recovery of killed runs).
    """
    return transaction(out_dir, settings=settings, inputs=inputs)


def write_outputs(ranking, out_dir, *, extra=None, inputs=()):
    """Write ``result.json``, the CSV tables and (for large runs) the pairwise file.

    Parameters
    ----------
    ranking : multitest.ranking.Ranking
    out_dir : str or os.PathLike
    extra : callable, optional
        ``extra(staging_dir)`` writes more files (figures, the report) into
        the same atomic batch.
    inputs : iterable of str, optional
        More files the run read (a settings file); with the results file and
        the cost profiles, no output may replace or remove them.

    Returns
    -------
    list of str
        The files written, relative to ``out_dir``.
    """
    source = ranking.results.source
    manifest = {"command": "rank", "input": source, "settings": ranking.settings.to_dict(),
                "costs": ranking.profile.describe()}
    inputs = [source, *_profile_paths(ranking.profile), *inputs]
    with atomic_directory(out_dir, settings=manifest, inputs=inputs) as staging:
        doc = to_dict(ranking)
        with open(os.path.join(staging, "result.json"), "w", encoding="utf-8") as handle:
            if doc["pairwise_file"]:
                # Large runs: one line, through the C encoder (several times faster
                # than the indenting one, which is pure Python).
                handle.write(json.dumps(doc, allow_nan=False))
            else:
                json.dump(doc, handle, indent=1, allow_nan=False)
        for name, table in stage_tables(ranking).items():
            table.to_csv(os.path.join(staging, name), index=False)
        if ranking.results.has_folds:
            if doc["pairwise_file"]:
                write_pairwise_file(ranking, os.path.join(staging, doc["pairwise_file"]))
            else:
                from .effect_sizes import pairwise_columns

                pairwise_frame(ranking).assign(**pairwise_columns(ranking)).to_csv(
                    os.path.join(staging, "pairwise.csv"), index=False, float_format="%.17g")
        if extra is not None:
            extra(staging)
        written = sorted(os.path.relpath(os.path.join(root, f), staging)
                         for root, _, files in os.walk(staging) for f in files)
    return written


def _profile_paths(profile):
    """The YAML files a cost profile was read from (its tie-breakers and components)."""
    for level in profile.levels:
        if level.path:
            yield level.path
        for component, _ in level.weighted or ():
            yield from _profile_paths(component)
