"""The ``result.json`` document of a :class:`~multitest.engine.Ranking`.

Small runs list every pairwise result inline (and every edge).  Above
:data:`INLINE_PAIRS_LIMIT` results in all, the document names the pairwise
file (:mod:`multitest.outputs._pairwise_file`) and the CSV tables of
:data:`DATASET_TABLES` instead, and is written one data set at a time
(:func:`write_json`).  The schema is in the README.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import secrets

import numpy as np

from ._pairwise_file import PAIRWISE_FILE

__all__ = []

#: The document of a ranking in an output folder.
RESULT_FILE = "result.json"

#: Above this many pairwise results in all, ``result.json`` refers to the pairwise
#: file (:data:`~multitest.outputs._pairwise_file.PAIRWISE_FILE`) instead of listing
#: every pair (and every edge) inline.
INLINE_PAIRS_LIMIT = 20_000


def _number(value):
    """JSON-safe float: infinities become the strings 'inf' / '-inf', NaN (a cell missing
    under ``missing='partial'``) null."""
    value = float(value)
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def is_large(ranking):
    """Whether the run has more than :data:`INLINE_PAIRS_LIMIT` pairwise results."""
    return ranking.table.statistic.size > INLINE_PAIRS_LIMIT


def to_dict(ranking, inline_pairs=None, *, datasets=None, effects=None, all_intervals=False):
    """The ``result.json`` document of a ranking (schema in the README).

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    inline_pairs : bool, optional
        List every pairwise result inline.  By default inline when there are
        at most :data:`INLINE_PAIRS_LIMIT` of them.
    effects : dict of str to ndarray, optional
        :func:`multitest.engine._effects.pairwise_columns` of the ranking, when
        the caller has it already (the inline pairs carry these columns).
    datasets : object, optional
        Put this under ``datasets`` instead of the document of every data set
        (used to write those one at a time).
    all_intervals : bool
        The Hodges–Lehmann intervals over data sets of every pair
        (:func:`multitest.engine._effects.second_pass_columns`), not only up to
        :data:`~multitest.engine._effects.INTERVAL_PAIRS_LIMIT` pairs.
    """
    if inline_pairs is None:
        inline_pairs = not is_large(ranking)
    doc = {
        "final_order": list(ranking.final_order),
        "average_positions": {a: float(r) for a, r in ranking.average_positions.items()},
        "average_error_ranks": {a: float(r) for a, r in ranking.average_error_ranks.items()},
        "friedman": _friedman(ranking),
        "friedman_errors": _friedman_errors(ranking),
        "second_pass": _second_pass(ranking, all_intervals),
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
        "n_pairwise_tests": ranking.table.statistic.size,
    }
    doc["explanations"] = _explanations(ranking)
    if ranking.missing is not None:
        doc["missing"] = _missing(ranking)
    return doc


def _missing(ranking):
    """The missing-result policy and its counts; the Skillings-Mack gate under 'partial'."""
    out = ranking.missing.to_dict()
    if ranking.friedman is None and ranking.second_pass is not None:
        out["skillings_mack"] = {k: _number(v) if isinstance(v, float) else v for k, v in
                                 dataclasses.asdict(ranking.second_pass.gate_test).items()}
    return out


def write_json(ranking, handle, effects=None, all_intervals=False):
    """Write the ``result.json`` text of ``ranking`` to the open text file ``handle``.

    Small runs: the document indented, each data set's lists of pairs and of
    edges on one line each; large runs (:func:`is_large`): one line, written
    one data set at a time.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    handle : file
    effects : dict of str to ndarray, optional
        :func:`~multitest.engine._effects.pairwise_columns` of the ranking,
        when the caller has it already (small runs).
    all_intervals : bool
        As :func:`to_dict`.
    """
    if is_large(ranking):
        _write_large_json(ranking, handle, all_intervals=all_intervals)
    else:
        handle.write(_json_text(to_dict(ranking, inline_pairs=True, effects=effects,
                                        all_intervals=all_intervals)))


def _explanations(ranking):
    """One sentence per final position, and the Friedman power when it cannot reject."""
    from ..engine._explain import friedman_power

    out = {"positions": [{"position": e.position, "algorithm": e.algorithm,
                          "sentence": e.sentence,
                          "comparisons": [{"subject": c.subject, "other": c.other,
                                           "significant": c.significant,
                                           "pvalue": None if c.pvalue is None
                                           else _number(c.pvalue)}
                                          for c in e.comparisons]}
                         for e in ranking.explanations]}
    if ranking.positions_only is not None:
        out["positions_only"] = ranking.positions_only
    fr, sp = ranking.friedman, ranking.second_pass
    if fr is not None and fr.pvalue >= sp.alpha:
        power = friedman_power(sp.average_positions, len(ranking.datasets), sp.alpha)
        warning = power.sentence(sp.alpha, ranking.settings.friedman_gate)
        out["friedman_power"] = {"power": power.power, "datasets_needed": power.datasets_needed,
                                 "warning": warning}
    return out


def read_explanations(path):
    """The explanation lines of a finished run: every position, then the warnings.

    Parameters
    ----------
    path : str or os.PathLike
        An output folder of ``multitest rank`` (or its ``result.json``).

    Returns
    -------
    list of str
        ``Final order (best first): ...``, one sentence per position, the
        sentence on positions and errors and the Friedman power warning when
        the run has them.

    Raises
    ------
    InputError
        When ``result.json`` holds no explanations; the message names the file.
    OutputError
        When the folder holds no run listing ``result.json``, or a file that differs
        from its manifest (:func:`~multitest.outputs.read_listed`, which finishes an
        interrupted commit first).
    """
    import os

    from .._errors import InputError
    from ._reading import read_listed

    path = os.fspath(path)
    folder, name = (path, RESULT_FILE) if os.path.isdir(path) else os.path.split(path)
    source = os.path.join(folder, name)
    try:
        doc = json.loads(read_listed(folder or os.curdir, name).decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not a {RESULT_FILE} of multitest ({exc.msg})", source=source,
                         row=exc.lineno) from None
    except UnicodeDecodeError:
        raise InputError(f"not a {RESULT_FILE} of multitest (not UTF-8 text)",
                         source=source) from None
    except RecursionError:
        raise InputError(f"not a {RESULT_FILE} of multitest (nested too deeply)",
                         source=source) from None
    explanations = doc.get("explanations") if isinstance(doc, dict) else None
    positions = explanations.get("positions") if isinstance(explanations, dict) else None
    if not isinstance(positions, list) or not all(
            isinstance(p, dict) and isinstance(p.get("sentence"), str) for p in positions):
        raise InputError("holds no explanations (key 'explanations.positions'); it was not "
                         "written by multitest rank 0.2 or later", source=source,
                         field="explanations")
    lines = ["Final order (best first): " + ", ".join(str(p.get("algorithm"))
                                                      for p in positions), "", "Why this order:"]
    lines += [f"  {p['sentence']}" for p in positions]
    if explanations.get("positions_only"):
        lines.append(f"Note: {explanations['positions_only']}.")
    power = explanations.get("friedman_power")
    if isinstance(power, dict) and power.get("warning"):
        lines.append(f"Warning: {power['warning']}")
    return lines


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


def _friedman_errors(ranking):
    """The Friedman test on the ranks of the mean errors (costs left out)."""
    fr = ranking.friedman_errors
    if fr is None:
        return None
    return {"statistic": _number(fr.statistic), "pvalue": _number(fr.pvalue), "df": fr.df,
            "ties": fr.ties, "all_tied": fr.all_tied,
            "rejected": bool(fr.pvalue < ranking.settings.alpha)}


def _second_pass(ranking, all_intervals=False):
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
    return _second_pass_doc(sp, pvalues, second_pass_rows(ranking, all_intervals))


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
    from ..engine._effects import dataset_effects  # see docs/explanation/effect-sizes.md

    if not ranking.results.has_folds:
        return None
    first = next((r for r in ranking.datasets if r.tested), None)
    effects = None if first is None else dataset_effects(ranking, first)
    doc = {"level": 1 - ranking.settings.alpha,
           "per_dataset_interval": None if effects is None else effects.method,
           "per_dataset_estimate": None if effects is None else effects.estimator}
    if ranking.pairwise_test.bayesian:   # a BayesianPairwiseTable
        doc["rho"] = ranking.table.rho
    return doc


def _datasets(ranking, inline_pairs, effects):
    """The ``datasets`` block; `effects`: :func:`~multitest.engine._effects.pairwise_columns`
    of every data set (computed here when listing pairs inline and not given)."""
    if not inline_pairs:
        return {r.name: _dataset(r, False, n_edges=n)
                for r, n in zip(ranking.datasets, _edge_counts(ranking.datasets))}
    from ..engine._effects import _finite_list, pairwise_columns

    if effects is None:
        effects = pairwise_columns(ranking)
    effects = {key: _finite_list(values) for key, values in effects.items()}
    doc, start = {}, 0
    for r in ranking.datasets:
        stop = start + (r.table.cheaper.size if r.tested else 0)
        doc[r.name] = _dataset(r, True, {k: v[start:stop] for k, v in effects.items()})
        start = stop
    return doc


#: Above :data:`INLINE_PAIRS_LIMIT`, where ``result.json`` points for what each
#: data set's entry leaves out.
DATASET_TABLES = {"order": "orders.csv", "prior_order": "orders.csv", "ranks": "ranks.csv",
                  "costs": "costs.csv", "mean_errors": "mean_errors.csv",
                  "pairwise": PAIRWISE_FILE}


def _dataset(result, inline_pairs, extra=None, n_edges=0):
    """The entry of a data set in ``datasets``; `n_edges` (listed when the pairs are not):
    its number of edges (:func:`_edge_counts`)."""
    if not inline_pairs:
        # The orders, ranks, costs and means are in the CSV tables of DATASET_TABLES
        # (at 10,000 data sets, 80 MB of JSON repeating them); every edge is a pair
        # with override true in the pairwise file.
        return {"cost_ties": [list(group) for group in result.cost_ties],
                "tested": result.tested,
                "n_edges": n_edges}
    # After pairwise tests the ranks are already integers (positions).
    ranks = result.ranks if result.tested else {
        a: (int(r) if float(r).is_integer() else float(r)) for a, r in result.ranks.items()}
    doc = {"order": list(result.order),
           "ranks": ranks,
           "prior_order": list(result.prior_order),
           "costs": dict(zip(result.algorithms, map(float, result.costs))),
           "cost_ties": [list(group) for group in result.cost_ties],
           "mean_errors": result.mean_errors,
           **({} if _ordered_all(result) else {
               "ranks": {a: _number(r) for a, r in ranks.items()},
               "mean_errors": {a: _number(m) for a, m in result.mean_errors.items()}}),
           "tested": result.tested}
    pairs = _json_pairs(result)
    extra = extra or {}
    for key, values in extra.items():
        for pair, value in zip(pairs, values):
            pair[key] = value
    if not _ordered_all(result):   # missing='partial': only the pairs tested
        pairs = [p for p in pairs if None not in (p["mean_error_a"], p["mean_error_b"])]
    doc["edges"] = [{"from": p["a"], "to": p["b"], "statistic": p["statistic"],
                     "pvalue": p["pvalue"], **{k: p[k] for k in extra}}
                    for p in pairs if p["override"]]
    doc["pairwise"] = pairs
    return doc


def _ordered_all(result):
    """Whether every algorithm of the data set was ordered (not so under missing='partial')."""
    return len(result.order) == len(result.algorithms)


def _json_pairs(result):
    """:meth:`~multitest.engine.DataSetResult.pairs` with JSON-safe numbers, by columns."""
    if not result.tested:
        return []
    t, s = result.table, result.index
    names = np.asarray(result.algorithms, dtype=object)
    prior, means = t.prior[s], t.mean_errors[s]
    cheaper, costlier = prior[t.cheaper], prior[t.costlier]
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


def _write_large_json(ranking, handle, batch=256, all_intervals=False):
    """Write ``json.dumps(to_dict(ranking))`` (one line), one data set at a time.

    The text is the same; memory holds the document of ``batch`` data sets, not
    of all (at S = 10,000, L = 100 the whole document is about 300 MB of Python
    objects).
    """
    mark = f"\x00{secrets.token_hex(8)}"
    text = json.dumps(to_dict(ranking, inline_pairs=False, datasets=mark,
                              all_intervals=all_intervals), allow_nan=False)
    head, tail = text.split(json.dumps(mark), 1)
    handle.write(head + "{")
    results = ranking.datasets
    edges = _edge_counts(results)
    for k in range(0, len(results), batch):
        # a batch's entries as one object, written without its braces: the text of
        # "name": entry pairs joined by ", " (the names of the data sets are distinct)
        entries = json.dumps({r.name: _dataset(r, False, n_edges=n) for r, n in
                              zip(results[k:k + batch], edges[k:k + batch])}, allow_nan=False)
        handle.write((", " if k else "") + entries[1:-1])
    handle.write("}" + tail)


def _edge_counts(results):
    """The number of edges of each data set (0 when untested), each table's rows summed
    at once (the data sets of a ranking share one)."""
    sums = {}
    counts = []
    for r in results:
        if r.tested and id(r.table) not in sums:
            sums[id(r.table)] = [np.count_nonzero(row) for row in r.table.override]
        counts.append(int(sums[id(r.table)][r.index]) if r.tested else 0)
    return counts
