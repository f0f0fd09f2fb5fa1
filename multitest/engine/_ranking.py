"""Multi²Test end to end: :func:`rank` and its :class:`Ranking` result."""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import MultitestError
from .._format import p_equals
from ..inputs._cost_tables import as_profile, is_cost_table
from ..inputs._costs import CostProfile, load_profile, profile_from_order
from ..inputs._missing import apply_missing, missing_costs
from ..inputs._results import Results, load_results
from ..stats._bayesian import BayesSettings
from ..stats._entry import TestFailure
from ..stats._friedman import friedman, rank_rows
from ..stats._nemenyi import control_comparisons
from ._cost_ties import CostTolerance
from ._partial import multitest_per_dataset_partial
from ._per_dataset import multitest_per_dataset
from ._stage1 import decision_design
from ._second_pass import second_pass as run_second_pass
from ._settings import SCORE_MATRIX_TEST, Settings, check_for_results

__all__ = ["rank", "Ranking"]

#: Mean errors of one data set closer than this (relative) are tied in the error ranks:
#: the means of equal accuracies, computed in another order, differ in their last bits.
ERROR_TIE_RTOL = 1e-12


@dataclass(frozen=True, eq=False)
class Ranking:
    """The result of Multi²Test (MultiTest alone when there is one data set).

    Attributes
    ----------
    final_order : tuple of str
        Best first.
    datasets : tuple of multitest.engine.DataSetResult
        MultiTest on each data set.
    average_positions : dict
        ``{algorithm: average position over data sets}``: the mean of the
        MultiTest positions (1 = best), which contain the cost order; the
        second pass ranks these (docs/method.md §5).
    average_error_ranks : dict
        ``{algorithm: average error rank over data sets}``: the mean over the
        data sets of the rank of the algorithm's mean error (1 = lowest error,
        ties averaged), costs left out.
    friedman : multitest.stats.FriedmanResult or None
        The Friedman test on the positions; None with a single data set.
    friedman_errors : multitest.stats.FriedmanResult or None
        The Friedman test on the error ranks (R's ``friedman.test`` on the
        mean-error matrix); None with a single data set.
    second_pass : multitest.engine.SecondPassResult or None
        None with a single data set.
    control : multitest.stats.ControlResult or None
        Comparisons against ``settings.control``, when asked for.
    settings : Settings
    profile : multitest.inputs.CostProfile
    results : multitest.inputs.Results
    notes : tuple of str
        Everything a reader must know: the gate decision, cost ties, input
        without folds, a single data set, the missing results...
    table : multitest.engine.PairwiseTable
        Stage 1 on every data set: one row per data set (``DataSetResult.index``),
        one column per pair; each of :attr:`datasets` is a view of its row.
    orders : DataSetOrders
        The order and ranks of every data set, one row each.
    missing : multitest.inputs._missing.MissingReport or None
        What the ``missing`` policy did (None under the default ``'error'``).
        Under ``'partial'`` :attr:`friedman` is None: the gate is the
        Skillings--Mack test (``second_pass.gate_test``).

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> ranking.final_order[:3]
    ('5nn', 'c45', 'mdt')
    >>> ranking.dataset("wine").order[0]
    '5nn'
    """

    final_order: tuple
    datasets: tuple
    average_positions: dict
    average_error_ranks: dict
    friedman: object
    friedman_errors: object
    second_pass: object
    control: object
    settings: Settings
    profile: CostProfile
    results: Results
    notes: tuple
    table: object
    orders: object
    missing: object = None

    @property
    def pairwise_test(self):
        """The registry entry of the stage-1 test (None for a score matrix).

        What the outputs ask of the test: its interval, whether it is Bayesian.
        """
        return self.settings.pairwise_test if self.results.has_folds else None

    @property
    def algorithms(self):
        return self.results.algorithms

    @functools.cached_property
    def tolerance(self):
        """The :class:`~multitest.engine.CostTolerance` of the prior, with the profile's noise."""
        return _tolerance(self.settings, self.profile, self.results)

    def dataset(self, name):
        """The :class:`~multitest.engine.DataSetResult` of data set ``name``."""
        for result in self.datasets:
            if result.name == name:
                return result
        raise MultitestError(f"`name`: no data set {name!r}; data sets are "
                             f"{', '.join(r.name for r in self.datasets)}")

    def ranks_frame(self, rows=slice(None)):
        """Per-data-set ranks as a :class:`pandas.DataFrame` (data sets x algorithms);
        `rows`: a slice of the data sets (default all)."""
        return pd.DataFrame(self.orders.rank_matrix(rows),
                            dtype=float if self.missing is not None else None,
                            index=pd.Index(self.results.datasets[rows], name="dataset"),
                            columns=list(self.algorithms))

    @functools.cached_property
    def explanations(self):
        """Why each algorithm holds its final position: :func:`~multitest.engine.explain_order`,
        computed once (the summary, ``result.json`` and the report all show it)."""
        from ._explain import explain_order

        return explain_order(self)

    @property
    def positions_only(self):
        """The sentence saying that the Friedman test rejects on positions but not on
        errors, or None (see :func:`positions_only_sentence`)."""
        return positions_only_sentence(self.friedman, self.friedman_errors,
                                       self.settings.alpha)

    def error_ranks(self):
        """Per data set the rank of each algorithm's mean error, ``(S, L)``, input order
        (1 = lowest error, ties averaged); :attr:`average_error_ranks` is their mean."""
        return rank_rows(self.table.mean_errors, rtol=ERROR_TIE_RTOL)

    def to_frame(self):
        """The final table, best first, as a :class:`pandas.DataFrame`.

        Columns ``position``, ``algorithm``, ``average_position``,
        ``average_error_rank`` (those of ``final_order.csv``), ``average_cost``,
        ``cost_unit``, ``first_on`` (data sets where first) and ``reason`` (a phrase);
        see :func:`multitest.engine._frames.final_frame`.

        Examples
        --------
        >>> from multitest import rank, example_results
        >>> ranking = rank(example_results(), "training_time")
        >>> list(ranking.to_frame()["algorithm"]) == list(ranking.final_order)
        True
        """
        from ._frames import final_frame

        return final_frame(self)

    def pairwise_frame(self):
        """Every pairwise test of every data set, labelled by names (``pairwise.csv``).

        One row per data set and pair, ``a`` the cheaper: ``statistic``, ``pvalue``,
        ``pvalue_adjusted`` (the correction within the data set), the mean errors,
        ``override``, then the effect and the test's interval (``mean_difference``,
        ``estimate``, ``ci_low``, ``ci_high``, ``ci_level``); see
        :func:`multitest.engine._frames.pairwise_effects_frame`.
        """
        from ._frames import pairwise_effects_frame

        return pairwise_effects_frame(self)

    def posthoc_frame(self):
        """The post-hoc comparisons over data sets, labelled by names.

        One row per pair, ``a`` the cheaper on average: ``statistic``, ``pvalue``
        (adjusted), ``pvalue_raw``, ``significant``, the Hodges--Lehmann effect and its
        interval; see :func:`multitest.engine._frames.posthoc_frame`.
        """
        from ._frames import posthoc_frame

        return posthoc_frame(self)

    def to_latex(self, path=None):
        """The tables in LaTeX (``tables.tex``): the final order, the order on each data
        set, the post-hoc comparisons (adjusted p-values, the significant in bold).

        booktabs rules, names escaped, a caption and a label (``tab:multitest-final``,
        ``tab:multitest-datasets``, ``tab:multitest-posthoc``) each; see
        :func:`multitest.engine._latex.latex_tables`.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Also write the text to this file (UTF-8).

        Returns
        -------
        str
        """
        from ._latex import latex_tables

        return _written(latex_tables(self), path)

    def to_markdown(self, path=None):
        """The summary in Markdown (``summary.md``, CommonMark with tables): the order as
        a table, why each position, the Friedman decisions, the settings, the missing
        results and the notes; see :func:`multitest.engine._markdown.markdown_summary`.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Also write the text to this file (UTF-8).

        Returns
        -------
        str
        """
        from ._markdown import markdown_summary

        return _written(markdown_summary(self), path)

    def __str__(self):
        """The summary ``multitest rank`` prints."""
        from ._summary import summary_text

        return summary_text(self)

    def __repr__(self):
        return (f"Ranking(final_order={list(self.final_order)}, datasets={len(self.datasets)}, "
                f"test={self.settings.test!r}, alpha={self.settings.alpha})")


def _written(text, path):
    """`text`, written to `path` first when one is given."""
    if path is not None:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return text


def resolve_results(results, datasets, algorithms, allow_missing=False):
    """A :class:`Results` from a Results, a CSV path or a DataFrame, optionally subset."""
    if not isinstance(results, Results):
        if not isinstance(results, (str, os.PathLike, pd.DataFrame)):
            raise MultitestError("`results` must be a Results, a CSV path or a DataFrame, "
                                 f"got {type(results).__name__}")
        results = load_results(results, allow_missing=allow_missing)
    if datasets is not None and len(datasets) == 0:
        raise MultitestError("`datasets` names no data set; name at least one or leave it out")
    if datasets is not None or algorithms is not None:
        results = results.subset(datasets=datasets, algorithms=algorithms)
    return results


def resolve_profile(costs, results=None):
    """A :class:`CostProfile` from a profile, a YAML path / bundled name or an order.

    Dicts, data frames, wide CSV tables and ``column:NAME`` (a column of
    `results`) are read by :func:`multitest.inputs.as_profile`.
    """
    if isinstance(costs, CostProfile):
        return costs
    if is_cost_table(costs):
        return as_profile(costs, results)
    if isinstance(costs, (str, os.PathLike)):
        return load_profile(costs)
    if isinstance(costs, (list, tuple)):
        return profile_from_order(costs)
    raise MultitestError("`costs` must be a CostProfile, a YAML path or an order (list of "
                         f"names), got {type(costs).__name__}")


def rank(results, costs, *, test=None, alpha=None, correction=None, alternative=None,
         second_pass=None, posthoc_correction=None, friedman_gate=None, control=None,
         control_method=None, datasets=None, algorithms=None, friedman_ties=None,
         test_train_ratio=None, rope=None, min_probability=None, bayes_seed=None,
         cost_tolerance=None, missing=None, settings=None):
    """Order algorithms from best to worst by error and cost (Multi²Test).

    Every option is checked once, by :meth:`Settings.from_options`; an option
    that does not apply to the chosen test or second pass (``rope`` with a
    t test, ``posthoc_correction`` with Nemenyi, ``control_method`` without
    ``control``...) is refused.  None (the default) means the default below.

    Parameters
    ----------
    results : Results, str, os.PathLike or pandas.DataFrame
        Per-fold results (see :func:`multitest.inputs.load_results`).
    costs : CostProfile, str, os.PathLike, dict, pandas.DataFrame or sequence of str
        A cost profile, a YAML file or bundled profile name, an order
        (cheapest first), or costs in another form: ``{algorithm: cost}``,
        ``{data set: {algorithm: cost}}``, a wide DataFrame or CSV table
        (data sets x algorithms), ``'column:NAME'`` (mean of a column of the
        results); see :mod:`multitest.inputs._cost_tables`.
    test : str or callable, default 'combined-5x2cv-f'
        Pairwise test: a registered name, a ``module:function`` path or a
        function (see :mod:`multitest.stats`).
    alpha : float, default 0.05
        Significance level of every test.
    correction : {'none', 'bonferroni', 'holm', 'hochberg', 'hommel'}, default 'none'
        Correction of the pairwise p-values within one data set (not with
        the Bayesian test).
    alternative : {'two-sided', 'greater'}, default 'two-sided'
        ``'greater'``: one-sided p-values for "the costlier is better"
        (tests that support it).
    second_pass : {'nemenyi', 'wilcoxon', 'wilcoxon-pratt', 'wilcoxon-scipy', 'sign', \
'bayesian'}, default 'nemenyi'
        Post-hoc test over data sets (the Wilcoxon tests: exact conditional
        with zeros dropped, with Pratt's zeros, or scipy's conventions;
        ``'bayesian'``: the Bayesian signed-rank test, see
        :func:`multitest.stats._bayesian_signed_rank.signed_rank`).
    posthoc_correction : {'holm', 'bonferroni', 'hochberg', 'hommel', 'shaffer', \
'bergmann-hommel', 'none'}, default 'holm'
        Family-wise correction of the Wilcoxon and sign second passes only
        (``'bergmann-hommel'``: at most 10 algorithms).
    friedman_gate : bool, default True
        Apply the post-hoc test only when the Friedman test rejects (the
        Bayesian second pass is never gated).
    control : str, optional
        Also compare every algorithm with this one (Bonferroni–Dunn or Holm).
    control_method : {'holm', 'bonferroni-dunn'}, default 'holm'
        With ``control`` only.
    datasets, algorithms : sequence of str, optional
        Restrict the analysis to these.
    friedman_ties : {'corrected', 'uncorrected'}, default 'corrected'
        Friedman statistic with R's tie correction, or Demšar's uncorrected one.
    test_train_ratio : float, (n_test, n_train) or str, optional
        ``r = n_test / n_train`` for the tests with a fold design: the
        corrected resampled t test (default ``1/(k - 1)``) and the Bayesian
        correlated t-test (its correlation ``rho = r / (1 + r)``, default
        ``1/k``); e.g. ``"1/9"`` for random subsampling with 10 % test sets.
    rope : float, default 0
        Region of practical equivalence ``[-rope, rope]`` (error units) of the
        Bayesian tests (``test='bayes-correlated-t'``, ``second_pass='bayesian'``).
    min_probability : float, default 0.95
        A Bayesian test lets the costlier override when P(costlier
        practically better) >= ``min_probability`` (``--min-probability``).
    bayes_seed : int, default 0
        Seed of the Monte Carlo sampling of the Bayesian signed-rank test
        (``second_pass='bayesian'``).
    cost_tolerance : str or float, default 'noise'
        Costs closer than this are ties, broken by the secondary profile, then
        by name: ``'noise'`` (the profile's noise where it has one, else
        exact), ``'exact'``, a number or a percentage such as ``'5%'`` (see
        :class:`multitest.engine.CostTolerance`).  The ties are named in the notes.
    missing : {'error', 'drop', 'worst', 'baseline:NAME', 'partial'}, default 'error'
        What a missing result (a failed fold) means; see
        :func:`multitest.inputs._missing.apply_missing` and docs/how-to/missing-results.md.
        ``'partial'`` needs a second pass over the data sets where both
        algorithms ran (``'wilcoxon'``, ``'sign'``...), not Nemenyi.
    settings : Settings, optional
        All of the above at once (from :meth:`Settings.from_options`, or a
        ranking's ``settings``); then no other option may be given.

    Returns
    -------
    Ranking

    Raises
    ------
    MultitestError
        On invalid input or settings; the message names the file, row or
        parameter.

    Examples
    --------
    >>> from multitest import rank, example_results
    >>> ranking = rank(example_results(), "training_time", datasets=["optdigits"])
    >>> ranking.final_order
    ('svr', 'svl', 'sv2', '5nn', 'mlp', 'lnp', 'mdt', 'c45')
    """
    options = {"test": test, "alpha": alpha, "correction": correction,
               "alternative": alternative, "second_pass": second_pass,
               "posthoc_correction": posthoc_correction, "friedman_gate": friedman_gate,
               "control": control, "control_method": control_method,
               "friedman_ties": friedman_ties, "test_train_ratio": test_train_ratio,
               "rope": rope, "min_probability": min_probability, "bayes_seed": bayes_seed,
               "cost_tolerance": cost_tolerance, "missing": missing}
    settings = _settings_of(settings, options)
    source = results.source if isinstance(results, Results) else results
    results = resolve_results(results, datasets, algorithms,
                              allow_missing=settings.missing != "error")
    results, report = apply_missing(results, settings.missing)
    profile, report = missing_costs(resolve_profile(costs, source), results, report)
    check_for_results(settings, results)
    unused = [] if algorithms is not None else _unused_costs_note(profile, results)
    settings = dataclasses.replace(
        settings, costs=profile.name,
        test=settings.pairwise_test.name if results.has_folds else SCORE_MATRIX_TEST)
    return _rank(results, profile, settings, unused, report)


def _settings_of(settings, options):
    """The :class:`Settings` of a call of :func:`rank`: given, or built from the options."""
    if settings is None:
        return Settings.from_options(**options)
    if not isinstance(settings, Settings):
        raise MultitestError(f"`settings` must be a Settings (Settings.from_options), got "
                             f"{type(settings).__name__}")
    given = [name for name, value in options.items() if value is not None]
    if given:
        raise MultitestError(f"`{given[0]}`: give the options or `settings`, not both")
    return settings


def _rank(results, profile, settings, input_notes=(), missing=None):
    """:func:`rank` on resolved results and profile, with checked settings; `input_notes`
    go first among the notes; `missing`: the report of the missing-result policy."""
    absent = None if missing is None else missing.absent
    return rank_datasets(results, profile, settings,
                         per_dataset_stage(results, profile, settings, absent),
                         input_notes, missing)


def per_dataset_stage(results, profile, settings, absent=None):
    """MultiTest on every data set of `results` (stage 1 and the orders), as :func:`rank`
    runs it: a tuple of :class:`~multitest.engine.DataSetResult`.

    Each data set depends only on its own rows, so a range of data sets gives the
    same results as the whole (``multitest rank --workers`` runs it per part).
    `absent`: the missing results under ``missing='partial'``.
    """
    keys = profile.keys(results.datasets, results.algorithms)
    pairwise_test = settings.pairwise_test if results.has_folds else None
    design = decision_design(results.design, settings.test_train_ratio)
    options = {"alpha": settings.alpha, "correction": settings.correction,
               "alternative": settings.alternative, "design": design,
               "bayes": _bayes(settings), "tolerance": _tolerance(settings, profile, results)}
    try:
        return (multitest_per_dataset(results, keys, pairwise_test, **options)
                if absent is None else
                multitest_per_dataset_partial(results, keys, absent, pairwise_test, **options))
    except TestFailure as exc:
        raise exc.located(results.errors, results.datasets, results.algorithms) from exc.error


def _bayes(settings):
    return BayesSettings(rope=settings.rope, threshold=settings.min_probability,
                         seed=settings.bayes_seed)


def rank_datasets(results, profile, settings, per_dataset, input_notes=(), missing=None,
                  keys=None):
    """The :class:`Ranking` from the per-data-set results (:func:`per_dataset_stage`):
    the second pass over data sets, the notes.  `input_notes` go first among the notes;
    `missing`: the report of the missing-result policy; `keys`: the profile's sort keys
    of the results when the caller has them (``profile.keys``)."""
    keys = profile.keys(results.datasets, results.algorithms) if keys is None else keys
    tolerance = _tolerance(settings, profile, results)
    bayes = _bayes(settings)
    pairwise_test = settings.pairwise_test if results.has_folds else None
    absent = None if missing is None else missing.absent
    # Every data set's result is a view of its row of the same run-wide table and orders.
    table, orders = per_dataset[0].table, per_dataset[0].orders
    # As floats: the second pass reads them so (a copy fewer of S x L); the same numbers.
    ranks = orders.rank_matrix(dtype=float)
    notes = (([] if missing is None else [missing.sentence()]) + list(input_notes)
             + list(results.notes) + _notes(per_dataset, pairwise_test, tolerance))
    if pairwise_test is not None and pairwise_test.bayesian:
        rho = table.rho
        notes.append(f"Bayesian correlated t-test (rho = n_test/n_total = {rho:g}, rope = "
                     f"{bayes.rope:g}): the costlier overrides when P(costlier practically "
                     f"better) >= {bayes.threshold:g}")
    friedman_result = friedman_errors = second = control_result = None
    mean_errors = table.mean_errors
    if results.n_datasets >= 2:
        friedman_result, second = run_second_pass(
            ranks, mean_errors, keys, results.algorithms, method=settings.second_pass,
            alpha=settings.alpha, correction=settings.posthoc_correction,
            friedman_gate=settings.friedman_gate, friedman_ties=settings.friedman_ties,
            bayes=bayes, tolerance=tolerance, absent=absent)
    error_ranks = rank_rows(mean_errors, rtol=ERROR_TIE_RTOL)
    if absent is not None:
        # missing='partial': ranks among the algorithms that ran (a missing error sorts
        # last), averaged where each ran; no Friedman test on an incomplete table.
        error_ranks[absent] = np.nan
    if results.n_datasets >= 2:
        friedman_errors = (friedman(error_ranks, ties=settings.friedman_ties)
                           if absent is None else None)
        friedman_result = friedman_result if absent is None else None
        final_order = second.order
        notes.append(second.gate)
        disagree = positions_only_sentence(friedman_result, friedman_errors, settings.alpha)
        notes += [disagree] if disagree else []
        if second.cost_ties:
            notes.append(f"{tolerance.ties_sentence(average=True)}: "
                         + "; ".join(" = ".join(group) for group in second.cost_ties))
        if settings.control is not None:
            control_result = control_comparisons(
                ranks, results.algorithms.index(settings.control),
                method=settings.control_method, alpha=settings.alpha)
    else:
        final_order = per_dataset[0].order
        notes.append("a single data set: the final order is its MultiTest order; the second "
                     "pass (Friedman test and post-hoc test over data sets) needs at least two")
    average = ranks.mean(axis=0) if absent is None else np.nanmean(ranks, axis=0)
    return Ranking(final_order=tuple(final_order), datasets=per_dataset,
                   average_positions=dict(zip(results.algorithms, average.tolist())),
                   average_error_ranks=dict(zip(results.algorithms,
                                                np.nanmean(error_ranks, axis=0).tolist())),
                   friedman=friedman_result, friedman_errors=friedman_errors,
                   second_pass=second, control=control_result,
                   settings=settings, profile=profile, results=results, notes=tuple(notes),
                   table=table, orders=orders, missing=missing)


def _tolerance(settings, profile, results):
    return CostTolerance.parse(settings.cost_tolerance).with_noise(
        profile.noise_matrix(results.datasets, results.algorithms))


def positions_only_sentence(on_positions, on_errors, alpha):
    """The plain sentence when the Friedman test rejects on positions but not on errors.

    Parameters
    ----------
    on_positions, on_errors : multitest.stats.FriedmanResult or None
    alpha : float

    Returns
    -------
    str or None
        None when both reject, neither does, or there is no Friedman test.
    """
    if on_positions is None or not on_positions.pvalue < alpha <= on_errors.pvalue:
        return None
    return (f"the Friedman test rejects on average positions ("
            f"{p_equals(on_positions.pvalue)}) but not on average error ranks ("
            f"{p_equals(on_errors.pvalue)}): the positions contain the cost order, and the "
            "errors alone do not differ significantly")


def _cost_names(profile):
    """Every algorithm a cost profile (and its tie-breakers and components) names."""
    names = set()
    for level in profile.levels:
        names.update(level.order or ())
        names.update(level.costs or ())
        for row in (level.per_dataset or {}).values():
            names.update(row)
        for component, _ in level.weighted or ():
            names |= _cost_names(component)
    return names


def _unused_costs_note(profile, results):
    """A note naming the algorithms of the profile that have no results."""
    unused = sorted(_cost_names(profile) - set(results.algorithms), key=str)
    if not unused:
        return []
    return [f"the cost profile {profile.name!r} names algorithm(s) without results, not "
            f"used: {', '.join(map(str, unused))}"]


def _notes(per_dataset, pairwise_test, tolerance):
    notes = []
    if pairwise_test is None:
        notes.append("score-matrix input (one value per data set and algorithm): no "
                     "per-data-set test was possible; stage 1 ranks the values (ties get "
                     "average ranks)")
    tied = [f"{r.name}: {' = '.join(group)}" for r in per_dataset for group in r.cost_ties]
    if tied:
        shown = "; ".join(tied[:5]) + (f"; ... ({len(tied)} in all)" if len(tied) > 5 else "")
        notes.append(f"{tolerance.ties_sentence()}: {shown}")
    return notes
