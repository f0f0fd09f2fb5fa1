"""Writing a :class:`~multitest.engine._ranking.Ranking`: ``result.json`` and CSV tables.

All files of one run are written through one output-folder transaction
(:mod:`multitest.outputs._transaction`): the folder holds the previous run or the new one,
never a mix, and ``manifest.json`` says which.

Small runs list every pairwise result inline in ``result.json`` (and in
``pairwise.csv``).  Above :data:`INLINE_PAIRS_LIMIT` results in all,
``result.json`` names :data:`PAIRWISE_FILE` instead: an uncompressed NumPy
``.npz`` archive holding what cannot be recomputed (the per-fold errors, the
cost orders and the decisions as bits; see :func:`write_pairwise_file`);
:func:`read_pairwise` reruns the deterministic tests and returns the table of
:func:`pairwise_frame`, bit for bit.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import zipfile

import numpy as np
import pandas as pd

from ._transaction import transaction

__all__ = ["to_dict", "write_outputs", "atomic_directory", "INLINE_PAIRS_LIMIT",
           "PAIRWISE_FILE", "pairwise_frame", "stage_tables", "write_pairwise_file",
           "read_pairwise", "is_large", "write_csv"]

#: Above this many pairwise results in all, ``result.json`` refers to
#: :data:`PAIRWISE_FILE` instead of listing every pair (and every edge) inline.
INLINE_PAIRS_LIMIT = 20_000
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


def to_dict(ranking, inline_pairs=None, *, datasets=None, effects=None):
    """The ``result.json`` document of a ranking (schema in the README).

    Parameters
    ----------
    ranking : multitest.engine._ranking.Ranking
    inline_pairs : bool, optional
        List every pairwise result inline.  By default inline when there are
        at most :data:`INLINE_PAIRS_LIMIT` of them.
    effects : dict of str to ndarray, optional
        :func:`multitest.stats._effect_sizes.pairwise_columns` of the ranking, when
        the caller has it already (the inline pairs carry these columns).
    datasets : object, optional
        Put this under ``datasets`` instead of the document of every data set
        (used to write those one at a time).
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
        "datasets": _datasets(ranking, inline_pairs, effects) if datasets is None else datasets,
        "settings": dict(ranking.settings.to_dict(), costs=ranking.profile.describe()),
        "notes": list(ranking.notes),
        "input": {"source": ranking.results.source,
                  "algorithms": list(ranking.results.algorithms),
                  "n_datasets": ranking.results.n_datasets,
                  "replications": ranking.results.replications,
                  "folds_per_replication": ranking.results.folds_per_replication,
                  "has_folds": ranking.results.has_folds},
        "pairwise_file": None if inline_pairs else PAIRWISE_FILE,
        "dataset_tables": None if inline_pairs else DATASET_TABLES,
        "n_pairwise_tests": ranking.datasets[0].table.statistic.size,
    }
    doc["explanations"] = _explanations(ranking)
    return doc


def _explanations(ranking):
    """One sentence per final position, and the Friedman power when it cannot reject."""
    from ..engine._explain import explain_order, friedman_power

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
    from ..engine._effects import second_pass_rows

    sp = ranking.second_pass
    if sp is None:
        return None
    names = sp.algorithms
    if len(names) * (len(names) - 1) // 2 > INLINE_PAIRS_LIMIT:
        # Hundreds of thousands of pairs: their p-values and effect sizes are in
        # the two tables (read with pandas), not repeated as JSON.
        return _second_pass_doc(sp, None, None, {"significant": "posthoc.csv",
                                                 "pvalues": "posthoc.csv",
                                                 "effect_sizes": "effect_sizes.csv"})
    pvalues = []
    if sp.posthoc is not None:
        i, j = np.triu_indices(len(names), k=1)
        values = sp.posthoc.pvalues[i, j]
        if np.isfinite(values).all():   # the usual case: no conversion per value
            named = np.asarray(names, dtype=object)
            pvalues = [list(row) for row in zip(named[i], named[j], values.tolist())]
        else:
            pvalues = [[names[a], names[b], _number(p)] for a, b, p in zip(i, j, values)]
    return _second_pass_doc(sp, pvalues, second_pass_rows(ranking))


def _second_pass_doc(sp, pvalues, effect_sizes, pair_tables=None):
    cd = sp.critical_difference
    return {"method": sp.method, "correction": sp.correction, "alpha": sp.alpha,
            "applied": sp.applied, "gate": sp.gate,
            "critical_difference": None if cd is None else _number(cd),
            "significant": None if pair_tables else list(map(list, sp.significant_pairs())),
            "pvalues": pvalues,
            "prior_order": list(sp.prior_order),
            "average_costs": dict(zip(sp.algorithms, map(float, sp.average_costs))),
            "edges": list(map(list, sp.edges())),
            "order": list(sp.order),
            "effect_sizes": effect_sizes,
            "pair_tables": pair_tables}


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
    from ..stats._effect_sizes import interval_of   # see docs/effect_sizes.md

    if not ranking.results.has_folds:
        return None
    doc = {"level": 1 - ranking.settings.alpha,
           "per_dataset_interval": interval_of(ranking.pairwise_test.interval,
                                               ranking.results.design)}
    if ranking.pairwise_test.bayesian:   # a BayesianPairwiseTable
        doc["rho"] = ranking.datasets[0].table.rho
    return doc


def _datasets(ranking, inline_pairs, effects):
    """The ``datasets`` block; `effects`: :func:`~multitest.stats._effect_sizes.pairwise_columns`
    of every data set (computed here when listing pairs inline and not given)."""
    if not inline_pairs:
        return {r.name: _dataset(r, False) for r in ranking.datasets}
    from ..engine._effects import _finite_list, pairwise_columns

    if effects is None:
        effects = pairwise_columns(ranking)
    effects = {key: _finite_list(values) for key, values in effects.items()}
    doc, start = {}, 0
    for r in ranking.datasets:
        stop = start + (r.table.first.size if r.tested else 0)
        doc[r.name] = _dataset(r, True, {k: v[start:stop] for k, v in effects.items()})
        start = stop
    return doc


#: Above :data:`INLINE_PAIRS_LIMIT`, where ``result.json`` points for what each
#: data set's entry leaves out.
DATASET_TABLES = {"order": "orders.csv", "prior_order": "orders.csv", "ranks": "ranks.csv",
                  "costs": "costs.csv", "mean_errors": "mean_errors.csv",
                  "pairwise": PAIRWISE_FILE}


def _dataset(result, inline_pairs, extra=None):
    if not inline_pairs:
        # The orders, ranks, costs and means are in the CSV tables of DATASET_TABLES
        # (at 10,000 data sets, 80 MB of JSON repeating them); every edge is a pair
        # with override true in the pairwise file.
        return {"cost_ties": [list(group) for group in result.cost_ties],
                "tested": result.tested,
                "n_edges": int(result.table.override[result.index].sum()) if result.tested
                else 0}
    # After pairwise tests the ranks are already integers (positions).
    ranks = result.ranks if result.tested else {
        a: (int(r) if float(r).is_integer() else float(r)) for a, r in result.ranks.items()}
    doc = {"order": list(result.order),
           "ranks": ranks,
           "prior_order": list(result.prior_order),
           "costs": dict(zip(result.algorithms, map(float, result.costs))),
           "cost_ties": [list(group) for group in result.cost_ties],
           "mean_errors": result.mean_errors,
           "tested": result.tested}
    pairs = _json_pairs(result)
    extra = extra or {}
    for key, values in extra.items():
        for pair, value in zip(pairs, values):
            pair[key] = value
    doc["edges"] = [{"from": p["a"], "to": p["b"], "statistic": p["statistic"],
                     "pvalue": p["pvalue"], **{k: p[k] for k in extra}}
                    for p in pairs if p["override"]]
    doc["pairwise"] = pairs
    return doc


def _json_pairs(result):
    """:meth:`~multitest.engine._per_dataset.DataSetResult.pairs` with JSON-safe numbers, by columns."""
    if not result.tested:
        return []
    t, s = result.table, result.index
    names = np.asarray(result.algorithms, dtype=object)
    prior, means = t.prior[s], t.mean_errors[s]
    cheaper, costlier = prior[t.first], prior[t.second]
    columns = {"a": names[cheaper].tolist(), "b": names[costlier].tolist(),
               "statistic": _json_floats(t.statistic[s]), "pvalue": _json_floats(t.pvalue[s]),
               "pvalue_adjusted": _json_floats(t.pvalue_adjusted[s]),
               "mean_error_a": _json_floats(means[cheaper]),
               "mean_error_b": _json_floats(means[costlier]),
               "override": t.override[s].tolist()}
    keys = list(columns)
    return [dict(zip(keys, row)) for row in zip(*columns.values())]


def _json_floats(values):
    """``[_number(v) for v in values]``, converting only the infinite ones one by one."""
    out = values.tolist()
    for i in np.flatnonzero(~np.isfinite(values)).tolist():
        out[i] = _number(values[i])
    return out


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
    """The :class:`~multitest.engine.PairwiseTable` shared by the data sets.

    Its rows are the data sets, in order (as :func:`multitest.rank` builds
    them); None without pairwise tests (score-matrix input).
    """
    first = ranking.datasets[0]
    return first.table if first.tested else None


def _code_dtype(n):
    return np.uint16 if n <= np.iinfo(np.uint16).max else np.int32


#: Version of the layout of :data:`PAIRWISE_FILE` (1: one float column per statistic).
PAIRWISE_FORMAT = 2


def _recomputable(ranking):
    """Whether stage 1 can be rerun bit for bit from the errors (a built-in test)."""
    return ranking.pairwise_test.difference_only


def write_pairwise_file(ranking, path):
    """Write every pairwise result to an uncompressed ``.npz`` archive.

    What cannot be recomputed is stored, the rest is derived on reading:

    - ``errors`` (float64, (S, L, F)): the per-fold errors, data sets and
      algorithms in input order, folds replication-major;
    - ``prior`` (uint16, or int32 beyond 65,535 algorithms; (S, L)): the
      algorithm at each cost position of each data set, cheapest first;
    - ``override`` (uint8): :func:`numpy.packbits` of the ``(S, P)`` decisions,
      ``P = L (L - 1) / 2`` pairs per data set in cost order (positions
      ``(0, 1), (0, 2), ..., (1, 2), ...``): the costlier is significantly
      better, the edges;
    - ``settings`` (Unicode, (1,)): JSON of the test, ``alternative``,
      ``correction``, ``alpha``, ``replications``, ``folds_per_replication``;
    - ``datasets``, ``algorithms`` (Unicode): the names; ``format``: ``[2]``.

    With a built-in test (deterministic), :func:`read_pairwise` reruns the
    tests and obtains the statistics and p-values bit for bit (and checks
    the decisions against ``override``).  With a user's test, which may not
    be, ``statistic``, ``pvalue`` and (when a correction changed it)
    ``pvalue_adjusted`` (float64, ``S P``) are stored too.  At S = 10,000,
    L = 100 (49.5 million tests) the file is 87 MB instead of 1.1 GB.
    """
    table = _tested_table(ranking)
    if table is None:
        raise ValueError("no pairwise tests to write (score-matrix input)")
    results, settings = ranking.results, ranking.settings
    meta = {"test": settings.test, "alternative": settings.alternative,
            "correction": settings.correction, "alpha": settings.alpha,
            "replications": results.replications,
            "folds_per_replication": results.folds_per_replication}
    columns = [
        ("format", lambda: np.array([PAIRWISE_FORMAT], dtype=np.int32)),
        ("settings", lambda: np.array([json.dumps(meta)])),
        ("datasets", lambda: np.asarray([r.name for r in ranking.datasets], dtype=str)),
        ("algorithms", lambda: np.asarray(ranking.algorithms, dtype=str)),
        ("errors", lambda: results.errors),
        ("prior", lambda: table.prior.astype(_code_dtype(len(ranking.algorithms)))),
        ("override", lambda: np.packbits(table.override, axis=None)),
    ]
    if not _recomputable(ranking):
        columns += [("statistic", lambda: np.asarray(table.statistic).reshape(-1)),
                    ("pvalue", lambda: np.asarray(table.pvalue).reshape(-1))]
        if not _same_values(table.pvalue_adjusted, table.pvalue):
            columns.append(("pvalue_adjusted",
                            lambda: np.asarray(table.pvalue_adjusted).reshape(-1)))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, make in columns:
            array = make()
            with archive.open(f"{key}.npy", "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, np.ascontiguousarray(array),
                                          allow_pickle=False)
            del array


def _same_values(x, y):
    return x is y or (x.shape == y.shape and np.array_equal(x, y))


def read_pairwise(path, datasets=None):
    """The table of :func:`pairwise_frame` from a file of :func:`write_pairwise_file`.

    Parameters
    ----------
    path : str or os.PathLike
        A ``pairwise.npz`` written by :func:`write_outputs`.
    datasets : sequence of str, optional
        Only these data sets (in the order given): reading a few data sets of
        a large run costs only their tests.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIRWISE_COLUMNS`, one row per pair.

    Raises
    ------
    MultitestError
        An unknown data set name, a file of another layout, or recomputed
        decisions that differ from the stored ones (a file written by a
        version of multitest or NumPy that computes differently).
    """
    from .._errors import MultitestError

    with np.load(path, allow_pickle=False) as archive:
        if "format" not in archive.files or int(archive["format"][0]) != PAIRWISE_FORMAT:
            raise MultitestError(f"{os.fspath(path)}: not a pairwise file of format "
                                 f"{PAIRWISE_FORMAT} (written by another multitest version)")
        names = [str(n) for n in archive["datasets"]]
        meta = json.loads(str(archive["settings"][0]))
        errors, prior = archive["errors"], archive["prior"].astype(np.intp)
        S, L = prior.shape
        P = L * (L - 1) // 2
        override = np.unpackbits(archive["override"], count=S * P).astype(bool).reshape(S, P)
        stored = {k: archive[k].reshape(S, P) for k in ("statistic", "pvalue", "pvalue_adjusted")
                  if k in archive.files}
        algorithms = archive["algorithms"].astype(object)
    rows = _dataset_rows(names, datasets, path)
    errors, prior, override = errors[rows], prior[rows], override[rows]
    if stored:
        table = {k: v[rows] for k, v in stored.items()}
        table.setdefault("pvalue_adjusted", table["pvalue"])
        mean_errors = errors.mean(axis=2)
    else:
        table = _rerun(errors, prior, meta)
        if not np.array_equal(table.override, override):
            raise MultitestError(f"{os.fspath(path)}: the recomputed decisions differ from the "
                                 "stored ones (written by a version that computes differently)")
        mean_errors = table.mean_errors
        table = {k: np.asarray(getattr(table, k))
                 for k in ("statistic", "pvalue", "pvalue_adjusted")}
    first, second = np.triu_indices(L, k=1)
    cheaper, costlier = prior[:, first], prior[:, second]
    index = np.arange(len(rows))[:, None]
    return pd.DataFrame({
        "dataset": np.repeat(np.asarray([names[r] for r in rows], dtype=object), P),
        "a": algorithms[cheaper.ravel()], "b": algorithms[costlier.ravel()],
        "statistic": table["statistic"].ravel(), "pvalue": table["pvalue"].ravel(),
        "pvalue_adjusted": table["pvalue_adjusted"].ravel(),
        "mean_error_a": mean_errors[index, cheaper].ravel(),
        "mean_error_b": mean_errors[index, costlier].ravel(),
        "override": override.ravel()})


def _dataset_rows(names, wanted, path):
    if wanted is None:
        return np.arange(len(names))
    from .._errors import MultitestError, abbreviate

    position = {n: i for i, n in enumerate(names)}
    unknown = [n for n in wanted if n not in position]
    if unknown:
        raise MultitestError(f"`datasets`: no data set {abbreviate(unknown[0])!r} in "
                             f"{os.fspath(path)} ({len(names)} data sets)")
    return np.array([position[n] for n in wanted], dtype=np.intp)


def _rerun(errors, prior, meta):
    """Stage 1 again, as :func:`multitest.rank` ran it (bit for bit)."""
    from ..inputs._design import FoldDesign
    from ..stats._registry import get_test
    from ..engine._per_dataset import run_pairwise_tests

    design = FoldDesign(replications=meta["replications"], folds=meta["folds_per_replication"])
    return run_pairwise_tests(errors, prior, get_test(meta["test"]), design,
                              alpha=meta["alpha"], correction=meta["correction"],
                              alternative=meta["alternative"], keep=True)


def stage_tables(ranking):
    """The CSV tables of every stage: ``{file name: DataFrame}``."""
    algorithms = list(ranking.algorithms)
    names = np.asarray(algorithms, dtype=object)
    results = ranking.datasets
    datasets = [r.name for r in results]
    tables = {
        "final_order.csv": pd.DataFrame({"rank": range(1, len(ranking.final_order) + 1),
                                         "algorithm": list(ranking.final_order)}),
        "ranks.csv": ranking.ranks_frame().reset_index(),
        "orders.csv": _orders_table(results, len(algorithms)),
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
        from ..engine._effects import second_pass_columns

        tables["effect_sizes.csv"] = _frame(second_pass_columns(ranking))
        if sp.posthoc is not None:
            i, j = np.triu_indices(len(algorithms), k=1)
            tables["posthoc.csv"] = _frame({
                "a": names[i], "b": names[j],
                "statistic": sp.posthoc.statistic[i, j], "pvalue": sp.posthoc.pvalues[i, j],
                "significant": sp.significant[i, j]})
        else:
            # The Friedman gate kept the post-hoc test from running: the file is
            # there, with its header and no row, rather than silently absent.
            tables["posthoc.csv"] = pd.DataFrame(
                columns=["a", "b", "statistic", "pvalue", "significant"])
    return tables


#: Below this many cells a table is written by pandas (its speed does not matter).
_CSV_FAST_CELLS = 50_000
#: Rows turned into text at a time by :func:`write_csv` (bounds its memory).
_CSV_BATCH_ROWS = 65_536
#: Characters for which the csv module (and so pandas) quotes a field.
_CSV_SPECIAL = re.compile(r'[,"]')


def write_csv(frame, path):
    """``frame.to_csv(path, index=False)``: the same bytes, several times faster for large tables.

    pandas turns every value to text one by one through :mod:`csv`; here
    each column becomes text at once (floats by their shortest ``repr``, as
    pandas writes them, NaN as an empty field and infinities as ``inf``,
    names quoted as :mod:`csv` quotes them) and the rows are joined in
    batches: 99,000 rows x 12 columns in about 0.3 s instead of 1-2 s.
    Tables of other types (dates, mixed objects, missing names), of a single
    column or of fewer than :data:`_CSV_FAST_CELLS` cells go to pandas.
    """
    header = np.array([str(c) for c in frame.columns], dtype=object)
    values = [frame[c].to_numpy() for c in frame.columns] if frame.shape[1] > 1 else []
    if (frame.size < _CSV_FAST_CELLS or not values
            or not all(map(_text_ready, [header, *values]))):
        frame.to_csv(path, index=False)
        return
    words = [None if v.dtype.kind == "f" else _column_words(v) for v in values]
    floats = [k for k, v in enumerate(values) if v.dtype.kind == "f"]
    for k, text in zip(floats, _float_texts([values[k] for k in floats])):
        words[k] = text
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(_quoted(header.tolist())) + os.linesep)
        for r0 in range(0, frame.shape[0], _CSV_BATCH_ROWS):
            rows = zip(*(w[r0:r0 + _CSV_BATCH_ROWS].tolist() for w in words))
            handle.write(os.linesep.join(map(",".join, rows)) + os.linesep)


def _text_ready(values):
    """Whether :func:`_column_words` writes this column as pandas would.

    Names with a line break go to pandas: whether :mod:`csv` quotes a lone CR
    depends on the Python version.
    """
    kind = values.dtype.kind
    if kind != "O":
        return kind in "fiub"
    return pd.api.types.infer_dtype(values, skipna=False) == "string" and not any(
        "\r" in name or "\n" in name for name in set(values.tolist()))


def _column_words(values):
    """The CSV fields of a column of names, integers or booleans, as an object array."""
    kind = values.dtype.kind
    if kind == "b":
        return np.array(["False", "True"], dtype=object)[values.view(np.uint8)]
    if kind in "iu":
        distinct, inverse = np.unique(values, return_inverse=True)
        return np.array(list(map(str, distinct.tolist())), dtype=object)[inverse]
    return np.array(_quoted(values.tolist()), dtype=object)


def _float_texts(columns):
    """The CSV fields of float columns: NaN empty, infinities ``inf``, others their repr.

    Each distinct value is turned into text once when that halves the work
    (costs, positions and the means of rounded errors repeat across a table;
    test statistics and p-values repeat within a column; others do not).
    Distinct by bit pattern, so -0.0 keeps its sign.  Object arrays.
    """
    if not columns:
        return []
    text = _float_words(np.concatenate(columns), only_if_repeated=True)
    if text is None:
        return [_float_words(c) for c in columns]
    return np.split(text, np.cumsum([c.size for c in columns])[:-1])


def _float_words(values, only_if_repeated=False):
    """The fields of float values, each distinct one turned into text once if that pays.

    With ``only_if_repeated``, None unless at most half the finite values are distinct.
    """
    finite = np.isfinite(values)
    distinct, inverse = np.unique(values[finite].view(np.int64), return_inverse=True)
    if 2 * distinct.size <= inverse.size:
        words = np.array(list(map(float.__repr__, distinct.view(np.float64).tolist())),
                         dtype=object)[inverse]
    elif only_if_repeated:
        return None
    else:
        words = list(map(float.__repr__, values[finite].tolist()))
    text = np.empty(values.shape, dtype=object)
    text[np.isnan(values)] = ""
    text[values == np.inf] = "inf"
    text[values == -np.inf] = "-inf"
    text[finite] = words
    return text


def _quoted(names):
    """Names as :mod:`csv` writes them (quoted, quotes doubled, when they hold ``,`` or ``"``)."""
    special = {n for n in set(names) if _CSV_SPECIAL.search(n)}
    if not special:
        return names
    return ['"' + n.replace('"', '""') + '"' if n in special else n for n in names]


def _frame(columns):
    """A DataFrame of these arrays, names kept as objects (pandas would convert them to
    Arrow strings, only for :func:`write_csv` to convert them back)."""
    return pd.DataFrame({key: pd.Series(values, dtype=object) if values.dtype == object
                         else values for key, values in columns.items()})


def _orders_table(results, L):
    """``orders.csv``: per data set (sorted by name) its MultiTest order, then its prior order."""
    by_name = sorted(range(len(results)), key=lambda s: results[s].name)
    rows = np.empty((2 * len(results), L + 2), dtype=object)   # object: no string inference
    rows[0::2, 0] = rows[1::2, 0] = [results[s].name for s in by_name]
    rows[0::2, 1], rows[1::2, 1] = "multitest", "prior"
    rows[0::2, 2:] = [results[s].order for s in by_name]
    rows[1::2, 2:] = [results[s].prior_order for s in by_name]
    columns = ["dataset", "stage", *(f"position_{i}" for i in range(1, L + 1))]
    return pd.DataFrame(rows, columns=columns, dtype=object)


def _by_dataset(datasets, algorithms, matrix):
    frame = pd.DataFrame(matrix, columns=algorithms)
    frame.insert(0, "dataset", datasets)
    return frame


# -- atomic writing -----------------------------------------------------------------

def atomic_directory(out_dir, *, settings=None, inputs=()):
    """Collect files in a staging directory; make them the contents of ``out_dir``.

    Yields the staging directory (inside ``out_dir``).  On success the files
    replace the previous run's as a whole; on an exception nothing in
    ``out_dir`` changes.  A transaction of :func:`multitest.outputs._transaction.transaction`
    (see there for the lock, the manifest and the recovery of killed runs).
    """
    return transaction(out_dir, settings=settings, inputs=inputs)


def _json_text(doc):
    """The text of an inline (small) ``result.json``.

    Indented, except each data set's lists of pairs and edges, one line each
    through the C encoder (the indenting encoder is pure Python; 99,000 pairs:
    0.1 s instead of 2 s).
    """
    # Placeholders with a random part: no name in the document can be taken for one.
    mark = f"\x00{secrets.token_hex(8)}:"
    lists = []
    datasets = {}
    for name, entry in doc["datasets"].items():
        entry = dict(entry)
        for key in ("edges", "pairwise"):
            if key in entry:
                lists.append(json.dumps(entry[key], allow_nan=False))
                entry[key] = f"{mark}{len(lists) - 1}"
        datasets[name] = entry
    text = json.dumps(dict(doc, datasets=datasets), indent=1, allow_nan=False)
    pattern = re.escape(json.dumps(mark)[:-1]) + r'(\d+)"'
    return re.sub(pattern, lambda m: lists[int(m.group(1))], text)


def _write_large_json(ranking, handle, batch=256):
    """Write ``json.dumps(to_dict(ranking))`` (one line), one data set at a time.

    The text is the same; memory holds the document of ``batch`` data sets, not
    of all (at S = 10,000, L = 100 the whole document is about 300 MB of Python
    objects).
    """
    mark = f"\x00{secrets.token_hex(8)}"
    text = json.dumps(to_dict(ranking, inline_pairs=False, datasets=mark), allow_nan=False)
    head, tail = text.split(json.dumps(mark), 1)
    handle.write(head + "{")
    results = ranking.datasets
    for k in range(0, len(results), batch):
        handle.write((", " if k else "") + ", ".join(
            f"{json.dumps(r.name)}: {json.dumps(_dataset(r, False), allow_nan=False)}"
            for r in results[k:k + batch]))
    handle.write("}" + tail)


def write_outputs(ranking, out_dir, *, extra=None, inputs=()):
    """Write ``result.json``, the CSV tables and (for large runs) the pairwise file.

    Parameters
    ----------
    ranking : multitest.engine._ranking.Ranking
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
        large = is_large(ranking)
        with open(os.path.join(staging, "result.json"), "w", encoding="utf-8") as handle:
            if large:
                _write_large_json(ranking, handle)
            else:
                from ..engine._effects import pairwise_columns

                effects = pairwise_columns(ranking)
                handle.write(_json_text(to_dict(ranking, inline_pairs=True, effects=effects)))
        for name, table in stage_tables(ranking).items():
            write_csv(table, os.path.join(staging, name))
        if ranking.results.has_folds:
            if large:
                write_pairwise_file(ranking, os.path.join(staging, PAIRWISE_FILE))
            else:
                write_csv(pairwise_frame(ranking).assign(**effects),
                          os.path.join(staging, "pairwise.csv"))
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
