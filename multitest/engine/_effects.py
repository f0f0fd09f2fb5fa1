"""Effect sizes of a ranking, by column, for the outputs and figures (computed on demand)."""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ..stats._corrections import agreeing_alpha
from ..stats._effect_sizes import over_datasets
from ..stats._posthoc import _pair_differences
from ._stage1 import decision_design

__all__ = ["dataset_effects", "decision_level"]

#: Up to this many pairs of algorithms (L = 25) the second-pass figure
#: (``effects_second_pass``) is drawn and every pair's Wilcoxon interval over
#: data sets computed; above, the intervals only on request (``all_pairs``,
#: ``--all-intervals``): their cost grows as pairs x S^2.
INTERVAL_PAIRS_LIMIT = 300
#: With a paired second pass (Wilcoxon, sign), its intervals are computed by default while
#: pairs x S (S + 1) / 2 (the Walsh averages it inverts its test at) stays within this
#: (45 pairs over 100 data sets: 1.4 s), above only on request (``all_pairs``,
#: ``--all-intervals``): the test is run at ties near each bound (300 data sets: 0.2 s a pair).
INVERTED_WALSH_LIMIT = 1 << 20


def dataset_effects(ranking, result):
    """The interval of the pairwise test for every pair of one data set (``result.pairs()`` order).

    The test's own interval (:attr:`multitest.stats.PairwiseTest.interval`)
    at the level its decisions were taken (:func:`decision_level`), with the
    run's alternative and fold design: it excludes 0 exactly when the test
    rejects (for the Bayesian test: its lower bound is above the ROPE
    exactly when the costlier overrides).

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    result : multitest.engine.DataSetResult

    Returns
    -------
    FoldInterval or None
        None for a score matrix (no folds) or a test without an interval.

    Examples
    --------
    >>> import multitest
    >>> ranking = multitest.rank(multitest.example_results(), "training_time")
    >>> result = ranking.datasets[0]
    >>> effects = dataset_effects(ranking, result)
    >>> effects.method
    'combined 5x2 cv F test'
    >>> rejected = result.table.pvalue[0] < ranking.settings.alpha
    >>> bool((effects.contains(0.0) != rejected).all())
    True
    """
    entry = ranking.pairwise_test
    if not result.tested or entry.interval is None:
        return None
    table = result.table
    prior = table.prior[result.index]
    errors = ranking.results.errors[result.index]
    design = decision_design(ranking.results.design, ranking.settings.test_train_ratio)
    return entry.interval(errors[prior[table.cheaper]], errors[prior[table.costlier]], design,
                          decision_level(ranking, result), ranking.settings.alternative)


def decision_level(ranking, result):
    """``1 - alpha'``: the level at which the pairs of one data set were decided.

    Without a correction ``alpha' = alpha``.  A correction within the data set
    decides by adjusted p-values; ``alpha'`` is then a level at which the raw
    p-values give the same decisions (:func:`multitest.stats.agreeing_alpha`):
    Bonferroni's ``alpha / m``, for the step-wise corrections ``alpha / (m - r)``
    (``r`` pairs rejected: Holm's and Hochberg's step at the first pair not
    rejected), else the largest ``alpha / j`` that separates the rejected pairs
    from the others, else the smallest p-value not rejected.  The corrections
    within a data set are monotone in the raw p-values, so one level always
    separates them.  The Bayesian test: ``2 min_probability - 1`` (its central
    credible interval).

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    result : multitest.engine.DataSetResult

    Returns
    -------
    float

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> from multitest.engine import decision_level
    >>> decision_level(ranking, ranking.dataset("iris"))
    0.95
    """
    s = ranking.settings
    if ranking.pairwise_test.bayesian:
        return 2 * s.min_probability - 1
    if s.correction == "none":
        return 1 - s.alpha
    table = result.table
    adjusted = np.asarray(table.pvalue_adjusted[result.index], dtype=float)
    alpha = agreeing_alpha(table.pvalue[result.index], adjusted, adjusted < s.alpha, s.alpha,
                           s.correction)
    return 1 - float(alpha[0])


# --------------------------------------------------------------------------
# Columns for the outputs (small runs; computed on demand from the ranking)
# --------------------------------------------------------------------------


def pairwise_columns(ranking, results=None):
    """Effect-size (and Bayesian probability) columns of stage 1, per pair.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    results : sequence of DataSetResult, optional
        Default every data set; rows in data-set order, pairs in cost order
        (the rows of ``pairwise.csv`` and of ``result.pairs()``).

    Returns
    -------
    dict of str to ndarray
        ``mean_difference`` (mean over the folds of cheaper minus costlier
        error), then the test's interval (:func:`dataset_effects`):
        ``estimate`` (its point estimate), ``ci_low``, ``ci_high``,
        ``ci_low_open`` and ``ci_high_open`` (the bound itself is rejected:
        ``(`` or ``)``), ``ci_level`` (the confidence achieved,
        :attr:`~multitest.stats.FoldInterval.achieved`; NaN for a test without
        an interval); with the Bayesian
        correlated t-test also ``p_cheaper_better``, ``p_equivalent``,
        ``p_costlier_better``.  Empty for a score matrix.
    """
    results = ranking.datasets if results is None else results
    tested = [r for r in results if r.tested]
    if not tested:
        return {}
    errors = ranking.results.errors
    keys = ("estimate", "ci_low", "ci_high", "ci_low_open", "ci_high_open", "ci_level")
    parts = {key: [] for key in ("mean_difference", *keys)}
    for r in tested:
        prior = r.table.prior[r.index]
        d = errors[r.index, prior[r.table.cheaper]] - errors[r.index, prior[r.table.costlier]]
        parts["mean_difference"].append(d.mean(axis=1))
        effects = dataset_effects(ranking, r)
        if effects is None:
            nan, closed = np.full(d.shape[0], np.nan), np.zeros(d.shape[0], dtype=bool)
            values = (nan, nan, nan, closed, closed, nan)
        else:
            values = (effects.estimate, effects.low, effects.high, effects.low_open,
                      effects.high_open, effects.achieved)
        for key, value in zip(keys, values):
            parts[key].append(value)
    columns = {key: np.concatenate(values) for key, values in parts.items()}
    table = tested[0].table
    if ranking.pairwise_test.bayesian:     # a BayesianPairwiseTable
        from ._bayesian_stage1 import pair_probabilities

        posteriors = [pair_probabilities(ranking.results.errors, table, r.index) for r in tested]
        columns["p_cheaper_better"] = np.concatenate([p.cheaper_better for p in posteriors])
        columns["p_equivalent"] = np.concatenate([p.equivalent for p in posteriors])
        columns["p_costlier_better"] = np.concatenate([p.costlier_better for p in posteriors])
    return columns


def second_pass_columns(ranking, all_pairs=False):
    """Effect sizes over data sets of every pair, in the second-pass prior order, by column.

    ``a`` is the cheaper by average cost, ``b`` the costlier;
    ``d = e_a - e_b`` per data set (mean errors), positive: ``b`` is better.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    all_pairs : bool
        The Hodges–Lehmann estimates and intervals of every pair whatever
        their number; by default only up to :data:`INTERVAL_PAIRS_LIMIT`
        pairs (those the second-pass figure shows), and for a paired second
        pass within :data:`INVERTED_WALSH_LIMIT`, else NaN.  Both within
        :data:`~multitest.stats._effect_sizes.OVER_DATASETS_LIMIT`.

    Returns
    -------
    dict of str to ndarray
        Keys ``a``, ``b`` (names), ``hodges_lehmann``, then the interval of the
        second pass's own test (:func:`_deciding_intervals`): ``ci_low``,
        ``ci_high``, ``ci_low_open``, ``ci_high_open``, ``ci_level`` (achieved;
        NaN when not computed or the method gives none), ``wins_a``, ``ties``,
        ``wins_b``, ``superiority_b``; with the Bayesian second pass also
        ``p_a_better``, ``p_equivalent``, ``p_b_better``.  Empty without a
        second pass.  Read-only: computed once per ranking and shared.
    """
    sp = ranking.second_pass
    if sp is None:
        return {}
    L = len(ranking.algorithms)
    pairs, S = L * (L - 1) // 2, len(ranking.datasets)
    intervals = bool(all_pairs) or pairs <= INTERVAL_PAIRS_LIMIT and (
        sp.method_entry.interval is None or pairs * S * (S + 1) // 2 <= INVERTED_WALSH_LIMIT)
    with _SECOND_PASS_LOCK:   # result.json and the CSV tables are written by two threads
        shared = _SECOND_PASS_COLUMNS.setdefault(ranking, {})  # JSON, CSV, figure, report
        if intervals not in shared:
            columns = _second_pass_columns(ranking, sp, intervals)
            for values in columns.values():
                values.setflags(write=False)
            shared[intervals] = columns
        return dict(shared[intervals])


_SECOND_PASS_COLUMNS = weakref.WeakKeyDictionary()
_SECOND_PASS_LOCK = threading.Lock()


def second_pass_rows(ranking, all_pairs=False):
    """:func:`second_pass_columns` as one dict per pair (NaN as None), for JSON.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    all_pairs : bool
        As :func:`second_pass_columns`.

    Returns
    -------
    list of dict
        Empty without a second pass.
    """
    columns = second_pass_columns(ranking, all_pairs)
    bounds = ("hodges_lehmann", "ci_low", "ci_high", "ci_level")    # NaN: not computed
    lists = {key: _finite_list(values) if key in bounds else values.tolist()
             for key, values in columns.items()}
    keys = list(lists)
    return [dict(zip(keys, values)) for values in zip(*lists.values())]


def _second_pass_columns(ranking, sp, intervals):
    names = list(ranking.algorithms)
    index = {a: i for i, a in enumerate(names)}
    order = np.array([index[a] for a in sp.prior_order])
    i, j = np.triu_indices(len(names), k=1)
    a, b = order[i], order[j]
    mean_errors = ranking.table.mean_errors
    effects = over_datasets(mean_errors, (a, b), level=1 - ranking.settings.alpha,
                            intervals=intervals)
    bounds = _deciding_intervals(sp, mean_errors, a, b, intervals)
    names = np.asarray(names, dtype=object)
    columns = {"a": names[a], "b": names[b], "hodges_lehmann": effects.hodges_lehmann,
               **dict(zip(("ci_low", "ci_high", "ci_low_open", "ci_high_open", "ci_level"),
                          bounds)),
               "wins_a": effects.a_better, "ties": effects.ties, "wins_b": effects.b_better,
               "superiority_b": np.asarray(effects.superiority, dtype=float)}
    if sp.method_entry.bayesian and sp.posthoc is not None:
        columns.update(p_a_better=np.asarray(sp.posthoc.better[a, b], dtype=float),
                       p_equivalent=np.asarray(sp.posthoc.equivalent[a, b], dtype=float),
                       p_b_better=np.asarray(sp.posthoc.better[b, a], dtype=float))
    return columns


def _deciding_intervals(sp, mean_errors, a, b, intervals):
    """``ci_low, ci_high, ci_low_open, ci_high_open, ci_level`` of the pairs ``(a, b)``:
    the shifts the second pass's own test does not reject at the level its correction
    decided at (:func:`multitest.stats.agreeing_alpha`), so that an interval excludes 0
    exactly when the pair is significantly different.  NaN where there is none: not
    computed (``intervals`` false), the post-hoc test not applied (the Friedman gate),
    or a method that gives none (:attr:`SecondPassMethod.interval`)."""
    n = a.size
    nan, closed = np.full(n, np.nan), np.zeros(n, dtype=bool)
    entry = sp.method_entry
    if not intervals or entry.interval is None or sp.posthoc is None:
        return nan, nan.copy(), closed, closed.copy(), nan.copy()
    posthoc = sp.posthoc
    alpha = agreeing_alpha(posthoc.raw_pvalues[a, b], posthoc.pvalues[a, b],
                           posthoc.significant[a, b], posthoc.alpha, posthoc.correction)
    lows, highs, low_open, high_open, achieved = (
        np.empty(n), np.empty(n), np.empty(n, dtype=bool), np.empty(n, dtype=bool), np.empty(n))
    for chunk, d in _pair_differences(mean_errors, a, b, 1 << 20):
        _, lows[chunk], highs[chunk], low_open[chunk], high_open[chunk], achieved[chunk] = (
            entry.interval(d, alpha=alpha[chunk]))
    return lows, highs, low_open, high_open, achieved


def _finite_list(values):
    """The values as Python floats, None for NaN and infinities."""
    values = np.asarray(values, dtype=float)
    out = values.tolist()
    for k in np.flatnonzero(~np.isfinite(values)).tolist():
        out[k] = None
    return out
