"""Stability of the final order (docs/method.md section 6).

Three questions a reader of a Multi²Test order asks, answered by one call to
:func:`stability`:

- **Resampling the data sets.**  The data sets are drawn with replacement
  ``bootstrap`` times (seeded); each resample gets its own second pass
  (Friedman gate, post-hoc test, average-cost prior, cost-keyed sort).  For
  every algorithm: the probability of each final position and of being first.
- **The significance level.**  The final order for each α of a grid (the
  whole analysis, per-data-set tests included, is rerun at that α).
- **The cost profile.**  The final order under several cost profiles, side by
  side.

MultiTest on one data set does not depend on which other data sets are in the
analysis, so the per-data-set ranks are computed once and every resample only
indexes rows of the ``(S, L)`` rank and mean-error matrices and of the
``(levels, S, L)`` cost keys.  The Nemenyi second pass needs just the average
ranks and the critical difference, which depends on ``L``, ``S`` and α alone,
so no quantile is computed inside the loop; every resample goes through the
decisions of :func:`multitest.engine.second_pass` (the method's
entry in :data:`~multitest.engine._second_pass_methods.SECOND_PASS_METHODS`),
so the result is the same as the second pass on the resampled rows.

Computation only: the text table is here, the heat map and the HTML page are
in :mod:`multitest.figures._stability`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._errors import MultitestError
from .._format import escape_terminal, format_frequency, format_table
from ..stats._friedman import friedman_statistics, rank_tie_terms
from ._ranking import rank, resolve_profile, resolve_results
from ._cost_ties import CostTolerance
from ._second_pass import average_cost_prior, final_order, second_pass_decisions
from ._second_pass_methods import get_second_pass_method
from ._options import options_of
from ._settings import check_stability_options

__all__ = ["StabilityResult", "stability"]

#: Options of :func:`multitest.rank` that :func:`stability` passes on.
RANK_OPTIONS = tuple(o.name for o in options_of("stability", ("setting", "selection")))

#: The options of the stability analysis itself (``bootstrap``, ``seed``, ...).
_OWN_OPTIONS = {o.name: o for o in options_of("stability", ("stability",))}

DEFAULT_BOOTSTRAP = _OWN_OPTIONS["bootstrap"].default
#: Most data sets drawn in all (resamples x data sets): the draws are one array of 8-byte
#: integers (10^8 resamples of 38 data sets asked for 28 GiB: a MemoryError traceback).
MAX_DRAWS = 2**28
DEFAULT_ALPHAS = _OWN_OPTIONS["alphas"].default

# How many of the most frequent resampled orders the text and JSON list.
_TOP_ORDERS = 5


@dataclass(frozen=True, eq=False)
class StabilityResult:
    """How stable a Multi²Test order is.

    Attributes
    ----------
    algorithms : tuple of str
        Input order: the rows of `position_probability`.
    bootstrap : int
        Number of bootstrap resamples of the data sets.
    seed : int
        Seed of :func:`numpy.random.default_rng` that drew them (the bootstrap's,
        not the Bayesian signed-rank test's ``bayes_seed``).
    n_datasets : int
        Data sets in the analysis (and in every resample).
    reference_order : tuple of str
        The final order on the data as given, best first.
    position_probability : ndarray, shape (L, L)
        ``[a, p]``: fraction of resamples in which ``algorithms[a]`` is at
        final position ``p`` (0 = first).  Rows and columns sum to 1.
    first_probability : dict
        ``{algorithm: fraction of resamples in which it is first}``.
    mean_position : dict
        ``{algorithm: mean final position over resamples}``, 1 = first.
    reference_frequency : float
        Fraction of resamples whose whole final order is `reference_order`.
    order_frequencies : tuple of (tuple of str, float)
        Every final order met in the resamples with its frequency, most
        frequent first (ties in the order of first appearance).
    posthoc_fraction : float
        Fraction of resamples in which the post-hoc test was applied (the
        Friedman test rejected, or the gate was off); in the others the final
        order is the average-cost order.
    alphas : tuple of float
        The α grid, ascending.
    orders_by_alpha : dict
        ``{alpha: final order}`` on the data as given, with the reference cost
        profile and every other setting unchanged.
    profiles : tuple of str
        Names of the profiles compared (as in ``CostProfile.name``).
    orders_by_profile : dict
        ``{profile name: final order}`` at the reference α.
    settings : dict
        Every setting of the reference analysis (``Ranking.settings``, its
        ``bayes_seed`` included) plus ``bootstrap``, ``seed``, ``n_datasets``,
        ``n_algorithms``.
    decision_rules : str
        What decided each stage of the reference analysis, in words
        (:meth:`Settings.decision_rules`).

    Examples
    --------
    >>> from multitest import example_results, stability
    >>> result = stability(example_results(), "training_time", bootstrap=20,
    ...                    datasets=["iris", "wine", "zoo"])
    >>> result.bootstrap
    20
    """

    algorithms: tuple
    bootstrap: int
    seed: int
    n_datasets: int
    reference_order: tuple
    position_probability: np.ndarray
    first_probability: dict
    mean_position: dict
    reference_frequency: float
    order_frequencies: tuple
    posthoc_fraction: float
    alphas: tuple
    orders_by_alpha: dict
    profiles: tuple
    orders_by_profile: dict
    settings: dict
    decision_rules: str

    def position_frame(self):
        """`position_probability` as a :class:`pandas.DataFrame`.

        Rows are algorithms in reference order (best first), columns the
        final positions 1..L.
        """
        index = {a: i for i, a in enumerate(self.algorithms)}
        rows = [index[a] for a in self.reference_order]
        L = len(self.algorithms)
        return pd.DataFrame(self.position_probability[rows],
                            index=pd.Index(self.reference_order, name="algorithm"),
                            columns=pd.Index(range(1, L + 1), name="position"))

    def __repr__(self):
        first = max(self.first_probability, key=self.first_probability.get)
        return (f"StabilityResult(reference_order={list(self.reference_order)}, "
                f"bootstrap={self.bootstrap}, seed={self.seed}, "
                f"most_often_first={first!r} ({self.first_probability[first]:.3f}))")


# -- validation ----------------------------------------------------------------

def _iv_stability(own, rank_options):
    """The checked options of :func:`stability`: its own ones, then those of rank().

    Returns
    -------
    own : dict
        ``bootstrap``, ``seed``, ``alphas``, ``profiles``, checked.
    settings : multitest.engine.Settings
    selection : dict
        ``datasets`` and ``algorithms``.
    """
    own = {name: option.check(own[name], option.label) for name, option in _OWN_OPTIONS.items()}
    return (own,) + check_stability_options(rank_options)


# -- the bootstrap ---------------------------------------------------------------

def _friedman_pvalues(sums, n_datasets, n_algorithms, tie_terms):
    """Friedman p-values from column rank sums, shape (B, L) -> (B,).

    The arithmetic of :func:`multitest.stats.friedman` (the same helper),
    vectorized over resamples; `tie_terms` (B,) is each resample's
    ``sum (t^3 - t)``, zeros for the uncorrected statistic.
    """
    chi2, _ = friedman_statistics(sums, n_datasets, tie_terms)
    return stats.chi2.sf(chi2, n_algorithms - 1)


def _bootstrap_orders(ranks, mean_errors, keys, algorithms, draws, settings, tolerance=None):
    """Final order (algorithm indices, best first) of every resample.

    Equivalent to :func:`multitest.engine.second_pass` on
    ``ranks[idx], mean_errors[idx], keys[:, idx]`` for each row ``idx`` of
    ``draws``, with the second pass of `settings` (:class:`~multitest.engine.Settings`:
    its method, alpha, correction, gate and tie correction), without building result
    objects.

    Returns
    -------
    orders : ndarray of int, shape (B, L)
    applied : ndarray of bool, shape (B,)
        Whether the post-hoc test was applied.
    """
    B, S = draws.shape
    L = len(algorithms)
    entry = get_second_pass_method(settings.second_pass)
    alpha, correction = settings.alpha, settings.posthoc_correction
    sums = np.stack([ranks[idx].sum(axis=0) for idx in draws])
    row_ties = rank_tie_terms(ranks) if settings.friedman_ties == "corrected" else np.zeros(S)
    applied = (_friedman_pvalues(sums, S, L, row_ties[draws].sum(axis=1)) < alpha
               ) | (not settings.friedman_gate)
    orders = np.empty((B, L), dtype=np.intp)
    for b, idx in enumerate(draws):
        _, prior = average_cost_prior(keys[:, idx, :], algorithms,
                                      None if tolerance is None else tolerance.rows(idx))
        _, significant, better = second_pass_decisions(
            entry, ranks[idx], mean_errors[idx], sums[b] / S, applied=applied[b], alpha=alpha,
            correction=correction, keep=False)
        orders[b] = final_order(prior, significant, better)
    return orders, applied


def stability(results, costs, *, bootstrap=DEFAULT_BOOTSTRAP, seed=0,
              alphas=DEFAULT_ALPHAS, profiles=(), **rank_options):
    """How stable the final order is under resampling, α and the cost profile.

    Parameters
    ----------
    results : Results, str, os.PathLike or pandas.DataFrame
        Per-fold results, as for :func:`multitest.rank`; at least 2 data sets.
    costs : CostProfile, str, os.PathLike or sequence of str
        The reference cost profile, as for :func:`multitest.rank`.
    bootstrap : int, default 1000
        Number of resamples of the data sets (with replacement, S of S;
        ``--bootstrap``, ``-B``).
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng` that draws the resamples; the
        same seed gives the same result.
    alphas : sequence of float, default (0.01, 0.05, 0.10)
        α grid for :attr:`StabilityResult.orders_by_alpha` (sorted, duplicates
        dropped).  The bootstrap uses the reference α (``alpha``, default 0.05).
    profiles : sequence of (str, os.PathLike or CostProfile), default ()
        Cost profiles to compare with the reference one: bundled names, YAML
        paths, profiles, or orders (lists of names; give each a distinct name
        with :func:`multitest.profile_from_order`).  Results are keyed by
        ``CostProfile.name``, which must be unique.
    **rank_options
        Every other option of :func:`multitest.rank` (``test``, ``alpha``,
        ``correction``, ``alternative``, ``second_pass``,
        ``posthoc_correction``, ``friedman_gate``, ``datasets``,
        ``algorithms``...), used by every analysis.

    Returns
    -------
    StabilityResult

    Raises
    ------
    MultitestError
        On an invalid parameter (the message names it), fewer than 2 data
        sets, or anything :func:`multitest.rank` rejects.

    Notes
    -----
    A resample contains some data sets several times; each copy counts as a
    data set in the Friedman test, the post-hoc test and the average costs,
    which is the usual bootstrap over data sets.  Per-data-set MultiTest
    results do not change with the resample, so they are computed once.

    Examples
    --------
    >>> from multitest import example_results
    >>> from multitest import stability
    >>> result = stability(example_results(), "training_time", bootstrap=200)
    >>> result.reference_order[0], result.position_frame().sum(axis=1).round(6).unique()
    ('5nn', array([1.]))
    """
    own, base, selection = _iv_stability({"bootstrap": bootstrap, "seed": seed,
                                          "alphas": alphas, "profiles": profiles}, rank_options)
    n_bootstrap, seed, alphas = own["bootstrap"], own["seed"], own["alphas"]
    resolved = resolve_results(results, selection["datasets"], selection["algorithms"],
                               allow_missing=base.missing != "error")
    given = resolved
    reference = rank(given, resolve_profile(costs), settings=base)
    # After the missing-result policy: complete results, a cost for every missing one
    resolved, profile = reference.results, reference.profile
    if resolved.n_datasets < 2:
        raise MultitestError(f"`results`: stability resamples the data sets and needs at least "
                             f"2, got {resolved.n_datasets}")
    settings = reference.settings

    algorithms = resolved.algorithms
    S, L = resolved.n_datasets, resolved.n_algorithms
    ranks = reference.ranks_frame().to_numpy(dtype=float)
    mean_errors = np.asarray(reference.table.mean_errors, dtype=float)
    keys = profile.keys(resolved.datasets, algorithms)
    tolerance = CostTolerance.parse(settings.cost_tolerance).with_noise(
        profile.noise_matrix(resolved.datasets, algorithms))
    if n_bootstrap * S > MAX_DRAWS:
        raise MultitestError(f"`bootstrap`: {n_bootstrap:,} resamples of {S:,} "
                             f"data sets are {n_bootstrap * S:,} draws, held at once; at most "
                             f"{MAX_DRAWS:,} ({MAX_DRAWS * 8 / 2**30:g} GiB): ask for fewer "
                             "resamples")
    draws = np.random.default_rng(seed).integers(0, S, size=(n_bootstrap, S))
    orders, applied = _bootstrap_orders(ranks, mean_errors, keys, algorithms, draws, settings,
                                        tolerance)

    counts = np.zeros((L, L))
    np.add.at(counts, (orders, np.broadcast_to(np.arange(L), orders.shape)), 1)
    probability = counts / n_bootstrap
    probability.setflags(write=False)
    frequencies = Counter(tuple(algorithms[i] for i in row) for row in orders.tolist())
    ordered = sorted(frequencies.items(), key=lambda item: -item[1])  # stable: first seen first

    orders_by_alpha = {a: (reference.final_order if a == settings.alpha else
                           rank(resolved, profile, settings=dataclasses.replace(base, alpha=a)
                                ).final_order)
                       for a in alphas}
    orders_by_profile = {}
    for item in own["profiles"]:
        other = resolve_profile(item)
        if other.name in orders_by_profile:
            raise MultitestError(f"`profiles`: two profiles are named {other.name!r}")
        orders_by_profile[other.name] = rank(given, other, settings=base).final_order

    return StabilityResult(
        algorithms=algorithms, bootstrap=n_bootstrap, seed=seed, n_datasets=S,
        reference_order=tuple(reference.final_order), position_probability=probability,
        first_probability={a: float(probability[i, 0]) for i, a in enumerate(algorithms)},
        mean_position={a: float(probability[i] @ np.arange(1, L + 1))
                       for i, a in enumerate(algorithms)},
        reference_frequency=frequencies.get(tuple(reference.final_order), 0) / n_bootstrap,
        order_frequencies=tuple((order, count / n_bootstrap) for order, count in ordered),
        posthoc_fraction=float(applied.mean()),
        alphas=alphas, orders_by_alpha=orders_by_alpha,
        profiles=tuple(orders_by_profile), orders_by_profile=orders_by_profile,
        settings=dict(settings.to_dict(), bootstrap=n_bootstrap, seed=seed, n_datasets=S,
                      n_algorithms=L),
        decision_rules=settings.decision_rules())


# -- text and JSON ---------------------------------------------------------------

def _alpha_label(alpha):
    return f"alpha={alpha:g}"


def orders_columns(result):
    """Columns of the side-by-side orders table: ``[(label, order)]``.

    The reference analysis first, then the α grid, then the cost profiles.
    """
    s = result.settings
    columns = [(f"reference ({s['costs']}, alpha={s['alpha']:g})", result.reference_order)]
    columns += [(_alpha_label(a), result.orders_by_alpha[a]) for a in result.alphas]
    columns += [(name, result.orders_by_profile[name]) for name in result.profiles]
    return columns


def summary_lines(result):
    """Sentences describing the run, shared by the text and the HTML report."""
    s = result.settings
    return [
        f"{result.bootstrap} bootstrap resamples of the {result.n_datasets} data sets "
        f"(with replacement, seed {result.seed}); {len(result.algorithms)} algorithms.",
        f"Cost profile {s['costs']}; {result.decision_rules}"
        + ("" if s["friedman_gate"] else " (Friedman gate off)") + ".",
        f"The post-hoc test was applied in {result.posthoc_fraction:.1%} of the resamples "
        "(elsewhere the Friedman test did not reject and the final order is the "
        "average-cost order).",
        f"The reference order came out in {result.reference_frequency:.1%} of the resamples.",
    ]


def stability_text(result):
    """Readable plain-text tables of a :class:`StabilityResult` (for the CLI).

    Names are escaped (:func:`~multitest._format.escape_terminal`) before the
    tables are aligned, so that the columns stay aligned as the terminal shows them.
    """
    L = len(result.algorithms)
    shown = escape_terminal
    index = {a: i for i, a in enumerate(result.algorithms)}
    out = ["Stability of the final order", ""] + summary_lines(result) + [""]

    out.append("Probability of each final position (rows in reference order; '.' = never)")
    header = ["algorithm", "ref", "P(first)", "mean pos"] + [str(p) for p in range(1, L + 1)]
    rows = []
    for position, name in enumerate(result.reference_order, start=1):
        row = result.position_probability[index[name]]
        rows.append([shown(name), position, format_frequency(row[0]),
                     f"{result.mean_position[name]:.2f}"] + [format_frequency(p) for p in row])
    out += [format_table(header, rows, "l" + "r" * (len(header) - 1)), ""]

    top = result.order_frequencies[:_TOP_ORDERS]
    out.append(f"Most frequent final orders ({len(result.order_frequencies)} distinct)")
    out += [format_table(["frequency", "order"],
                         [[f"{f:.3f}", " > ".join(map(shown, order))] for order, f in top],
                         "rl"), ""]

    columns = orders_columns(result)
    out.append("Final order by significance level and by cost profile (on the data as given)")
    out.append(format_table(["position"] + [label for label, _ in columns],
                      [[p + 1] + [shown(order[p]) for _, order in columns] for p in range(L)],
                      "r" + "l" * len(columns)))
    return "\n".join(out) + "\n"


def stability_to_dict(result, top_orders=None):
    """A JSON-ready dictionary of a :class:`StabilityResult`.

    Parameters
    ----------
    top_orders : int, optional
        List only this many of the most frequent resampled orders (all by
        default).
    """
    frequencies = result.order_frequencies
    if top_orders is not None:
        frequencies = frequencies[:top_orders]
    return {
        "reference_order": list(result.reference_order),
        "bootstrap": result.bootstrap,
        "seed": result.seed,
        "n_datasets": result.n_datasets,
        "algorithms": list(result.algorithms),
        "position_probability": {a: result.position_probability[i].tolist()
                                 for i, a in enumerate(result.algorithms)},
        "first_probability": dict(result.first_probability),
        "mean_position": dict(result.mean_position),
        "reference_frequency": result.reference_frequency,
        "posthoc_fraction": result.posthoc_fraction,
        "distinct_orders": len(result.order_frequencies),
        "order_frequencies": [{"order": list(order), "frequency": f}
                              for order, f in frequencies],
        "alphas": list(result.alphas),
        "orders_by_alpha": {f"{a:g}": list(result.orders_by_alpha[a]) for a in result.alphas},
        "profiles": list(result.profiles),
        "orders_by_profile": {p: list(result.orders_by_profile[p]) for p in result.profiles},
        "settings": dict(result.settings),
    }
