"""Policies for missing results: what a failed fold means for the ranking.

Results loaded with ``load_results(..., allow_missing=True)`` keep a missing
result (an empty or NaN value, a fold or an algorithm absent from a data set) as
a NaN cell.  :func:`apply_missing` applies one policy (``missing`` of
:func:`multitest.rank`, ``--missing`` of ``multitest rank``) and returns the
results to rank and a :class:`MissingReport` that every output states:

``error`` (default)
    refuse, naming how many results are missing, the first few and the policies;
``drop``
    complete cases: every data set with a missing result is left out (named);
``worst``
    a missing fold result is the worst error of that fold among the algorithms
    that ran on that data set;
``baseline:NAME``
    a missing fold result is algorithm NAME's error on the same fold;
``partial``
    nothing imputed: each data set orders only the algorithms with every fold,
    and the second pass works on the incomplete table of positions
    (Skillings--Mack gate, pairwise tests over the data sets where both ran).

Under ``worst`` and ``baseline:NAME`` a data set where a missing result cannot
be imputed (no algorithm, or not NAME, ran that fold) is left out and named, and
an algorithm with no result on any data set is refused (it would be ranked on
imputed errors alone).

A missing result also has a cost: the one measured (the mean of the folds with
one) where there is one, else, when no fold of an algorithm on a data set has a
cost (a ``column:NAME`` profile of a framework that failed every fold of a task),
the policy's (:func:`missing_costs`, :data:`MISSING_COSTS`): under ``worst`` the
largest cost measured on that data set, under ``baseline:NAME`` NAME's cost; under
``drop`` and ``partial`` none is needed (the data set is left out; the algorithm
is not ordered there).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._errors import InputError, MultitestError, abbreviate

__all__ = ["missing_costs"]

#: The values of ``missing``; ``baseline:NAME`` names the algorithm.
MISSING_POLICIES = ("error", "drop", "worst", "baseline:NAME", "partial")

#: What a missing result costs under each policy where no fold of it has a cost (README's
#: table, the notes of every output).
MISSING_COSTS = {
    "error": "not needed (a missing result is refused)",
    "drop": "not needed (its data set is left out)",
    "worst": "the largest cost measured on that data set",
    "baseline:NAME": "NAME's cost on that data set",
    "partial": "not needed (it is not ordered on that data set; costs.csv shows the largest "
               "cost measured there)",
}

_BASELINE = "baseline:"
#: Cells and names a sentence lists before "...".
_SHOWN = 5


@dataclass(frozen=True, eq=False)
class MissingReport:
    """What a missing-result policy did.

    Attributes
    ----------
    policy : str
        ``'drop'``, ``'worst'``, ``'baseline:NAME'`` or ``'partial'``.
    n_missing : int
        Missing results (cells) in the input.
    n_imputed : int
        Cells filled by ``worst`` or ``baseline:NAME``.
    dropped : tuple of str
        Data sets left out.
    first : tuple of str
        The first few missing cells, ``'(data set, algorithm, fold)'``.
    absent : ndarray of bool, shape (S, L), or None
        Under ``partial``: ``absent[s, a]`` when algorithm ``a`` lacks a fold
        on data set ``s`` of the ranked results (it is not ordered there).
    never_ran : ndarray of bool, shape (S, L), or None
        ``never_ran[s, a]`` when algorithm ``a`` has no result on any fold of
        data set ``s`` of the ranked results (None: none has).
    costed : tuple of (str, str)
        The (data set, algorithm) given a cost by the policy, no fold of theirs
        having one (:func:`missing_costs`).
    """

    policy: str
    n_missing: int
    n_imputed: int
    dropped: tuple
    first: tuple
    absent: np.ndarray | None = None
    never_ran: np.ndarray | None = None
    costed: tuple = ()

    @property
    def n_tested_pairs(self):
        """Pairwise tests run under ``partial``: the pairs of present algorithms."""
        present = (~self.absent).sum(axis=1)
        return int((present * (present - 1) // 2).sum())

    @property
    def n_absent(self):
        """(data set, algorithm) pairs left unordered under ``partial``."""
        return 0 if self.absent is None else int(self.absent.sum())

    def sentence(self):
        """One sentence stating the policy and the counts it touched."""
        if self.n_missing == 0:
            return f"missing results: policy {self.policy}; the input has none"
        cells = ", ".join(self.first) + (", ..." if self.n_missing > len(self.first) else "")
        text = f"missing results: policy {self.policy}; {self.n_missing} missing ({cells})"
        if self.policy == "drop":
            text += "; complete cases only"
        elif self.policy == "partial":
            text += (f"; nothing imputed: {self.n_absent} (data set, algorithm) pair(s) not "
                     "ordered (each data set orders the algorithms with every fold); average "
                     "ranks and costs are over the data sets where each ran; second pass: "
                     "Skillings-Mack test and pairwise tests over the data sets where both "
                     "ran")
        else:
            text += f"; {self.n_imputed} imputed with {_imputation_words(self.policy)}"
        if self.dropped:
            text += (f"; {len(self.dropped)} data set(s) left out: {_names(self.dropped)}"
                     + ("" if self.policy == "drop" else " (not imputable)"))
        return text + "; " + self.cost_sentence()

    def cost_sentence(self):
        """What a missing result costs under the policy, and the costs it gave."""
        text = ("cost of a missing result: the one measured, else (no fold with a cost) "
                + _cost_words(self.policy))
        if self.costed:
            cells = [f"({abbreviate(d, 24)}, {abbreviate(a, 24)})" for d, a in self.costed]
            text += (f", given to {len(cells)} (data set, algorithm): "
                     f"{', '.join(cells[:_SHOWN])}" + (", ..." if len(cells) > _SHOWN else ""))
        return text

    def to_dict(self):
        """The JSON form (``result.json``, key ``missing``)."""
        return {"policy": self.policy, "n_missing": self.n_missing,
                "n_imputed": self.n_imputed, "datasets_dropped": list(self.dropped),
                "first": list(self.first), "n_absent": self.n_absent,
                "costs_imputed": [list(cell) for cell in self.costed],
                "sentence": self.sentence()}


def _cost_words(policy):
    if policy.startswith(_BASELINE):
        return MISSING_COSTS["baseline:NAME"].replace("NAME", policy[len(_BASELINE):])
    return MISSING_COSTS[policy]


def _imputation_words(policy):
    if policy == "worst":
        return "the worst error of the fold among the algorithms that ran on the data set"
    return f"{policy[len(_BASELINE):]}'s error on the same fold"


def _names(names):
    shown = ", ".join(abbreviate(n) for n in names[:_SHOWN])
    return shown + (f", ... ({len(names)} in all)" if len(names) > _SHOWN else "")


def check_missing_policy(value, label="`missing`"):
    """The policy `value`, checked: one of :data:`MISSING_POLICIES` (``baseline:NAME``).

    Examples
    --------
    >>> from multitest.inputs._missing import check_missing_policy
    >>> check_missing_policy("baseline: constantpredictor")
    'baseline:constantpredictor'
    """
    if isinstance(value, str):
        if value.startswith(_BASELINE) and value[len(_BASELINE):].strip():
            return _BASELINE + value[len(_BASELINE):].strip()
        if value in MISSING_POLICIES and value != "baseline:NAME":
            return value
    raise MultitestError(f"{label} must be one of {', '.join(MISSING_POLICIES)}, got {value!r}")


def apply_missing(results, policy):
    """Apply a missing-result policy.

    Parameters
    ----------
    results : multitest.inputs.Results
        With missing results as NaN cells (``load_results(..., allow_missing=True)``).
    policy : str
        One of :data:`MISSING_POLICIES`.

    Returns
    -------
    results : multitest.inputs.Results
        The results to rank: complete, except under ``partial``.
    report : MissingReport or None
        None under ``error`` (nothing was missing).

    Raises
    ------
    InputError
        Under ``error`` when a result is missing (the number, the first few
        and the policies), or when a policy leaves no data set to rank.
    MultitestError
        On an unknown policy or baseline algorithm.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from multitest.inputs import load_results
    >>> from multitest.inputs._missing import apply_missing
    >>> frame = pd.DataFrame({"dataset": ["d"] * 6 + ["e"] * 6,
    ...                       "algorithm": ["a", "a", "b", "b", "c", "c"] * 2,
    ...                       "fold": [1, 2] * 6,
    ...                       "error": [.1, .2, .3, np.nan, .2, .2, .1, .1, .2, .2, .3, .3]})
    >>> res = load_results(frame, allow_missing=True)
    >>> worst, report = apply_missing(res, "worst")
    >>> float(worst.errors[0, 1, 1])
    0.2
    >>> print(report.sentence())
    missing results: policy worst; 1 missing ((d, b, fold 2)); 1 imputed with the worst
    error of the fold among the algorithms that ran on the data set; cost of a missing
    result: the one measured, else (no fold with a cost) the largest cost measured on that
    data set
    >>> apply_missing(res, "drop")[0].datasets
    ('e',)
    """
    policy = check_missing_policy(policy)
    if policy == "error":   # no scan of the errors: the loader counted the missing cells
        n_missing = results.n_missing
        if n_missing:
            raise InputError(f"{n_missing} result(s) missing: {', '.join(_cells(results, 3))}"
                             f"{', ...' if n_missing > 3 else ''}; to rank them anyway: "
                             "missing='drop', 'worst', 'baseline:NAME' or 'partial'",
                             source=results.source)
        return results, None
    missing = np.isnan(results.errors)
    n_missing = int(missing.sum())
    first = tuple(_cells(results, _SHOWN))
    if policy == "partial":
        return _partial(results, missing, n_missing, first)
    if policy == "drop":
        incomplete = missing.any(axis=(1, 2))
        errors, imputed = results.errors, 0
    else:
        _refuse_never_ran(results, missing, policy)
        fill = _fill(results, policy)
        errors = np.where(missing, fill, results.errors)
        incomplete = np.isnan(errors).any(axis=(1, 2))
        imputed = int((missing & ~np.isnan(fill))[~incomplete].sum())
    kept = _kept(results, incomplete, policy)
    errors = errors[kept]
    errors.setflags(write=False)
    ranked = dataclasses.replace(results, errors=errors, n_missing=0,
                                 datasets=tuple(results.datasets[i] for i in kept))
    dropped = tuple(results.datasets[i] for i in np.flatnonzero(incomplete))
    return ranked, MissingReport(policy=policy, n_missing=n_missing, n_imputed=imputed,
                                 dropped=dropped, first=first,
                                 never_ran=_never_ran(missing[kept]))


def _never_ran(missing):
    """``(S, L)``: no result on any fold; None when every algorithm has one on each data set."""
    never = missing.all(axis=2)
    return never if never.any() else None


def _refuse_never_ran(results, missing, policy):
    """An algorithm with no result on any data set would be ranked on imputed errors alone."""
    never = [a for a, gone in zip(results.algorithms, missing.all(axis=(0, 2))) if gone]
    if never:
        raise InputError(f"missing results: policy {policy}: algorithm(s) {_names(never)} have "
                         "no result on any data set (they would be ranked on imputed errors "
                         "alone); leave them out (algorithms=..., --algorithms)",
                         source=results.source)


def missing_costs(profile, results, report):
    """The cost profile with a cost for every missing result it has none for, by the policy.

    A profile read from a column of the results (``column:NAME``,
    :func:`multitest.inputs._cost_tables.profile_from_column`) has no cost (NaN) for an algorithm
    none of whose folds on a data set has one: a framework that failed every fold of
    a task.  Where that algorithm has no result on the data set either, the policy
    gives the cost (:data:`MISSING_COSTS`), its noise that of the algorithm it is
    taken from; a cost missing where the algorithm has results stays missing (the
    cost matrix refuses it, naming the data set and the algorithm).  Only the
    (data set, algorithm) without results are looked at.

    Parameters
    ----------
    profile : multitest.inputs.CostProfile
        Every level of its chain (the secondary profiles) is completed.
    results : multitest.inputs.Results
        The results to rank (:func:`apply_missing`'s).
    report : MissingReport or None
        :func:`apply_missing`'s (None under ``error``).

    Returns
    -------
    profile : multitest.inputs.CostProfile
    report : MissingReport or None
        With :attr:`MissingReport.costed`.

    Raises
    ------
    InputError
        No cost of the baseline, or none measured on a data set where ``worst`` needs
        the largest one.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from multitest.inputs import load_results, missing_costs
    >>> from multitest.inputs._missing import apply_missing
    >>> from multitest.inputs._cost_tables import profile_from_column
    >>> frame = pd.DataFrame({"dataset": ["d"] * 6 + ["e"] * 6,
    ...                       "algorithm": ["a", "a", "b", "b", "c", "c"] * 2,
    ...                       "fold": [1, 2] * 6,
    ...                       "error": [.1, .2, np.nan, np.nan, .2, .2] + [.1, .1, .2, .2, .3, .3],
    ...                       "seconds": [1, 1, np.nan, np.nan, 4, 6] + [1, 1, 2, 2, 3, 3]})
    >>> results, report = apply_missing(load_results(frame, allow_missing=True), "worst")
    >>> profile, report = missing_costs(profile_from_column(frame, "seconds"), results, report)
    >>> profile.cost_matrix(["d"], ["a", "b", "c"])
    array([[1., 5., 5.]])
    >>> report.costed
    (('d', 'b'),)
    """
    if report is None or report.never_ran is None:
        return profile, report
    cells = [(results.datasets[s], results.algorithms[j])
             for s, j in np.argwhere(report.never_ran).tolist()]
    completed, costed = _completed(profile, results, cells, report.policy)
    if costed:
        report = dataclasses.replace(report, costed=tuple(dict.fromkeys(costed)))
    return completed, report


def _completed(profile, results, cells, policy):
    """:func:`missing_costs` of `profile` and its secondary chain: ``(profile, costed)``."""
    if profile is None:
        return None, []
    secondary, costed = _completed(profile.secondary, results, cells, policy)
    changes = {} if secondary is profile.secondary else {"secondary": secondary}
    if profile.per_dataset is not None:
        table, noise, own = _completed_table(profile, results, cells, policy)
        if own:
            changes.update(per_dataset=table, noise=noise)
            costed = own + costed
    return (dataclasses.replace(profile, **changes) if changes else profile), costed


def _completed_table(profile, results, cells, policy):
    """The per-data-set table (and noise) of `profile`, the (data set, algorithm) `cells`
    without results and without a cost given the policy's."""
    unmeasured = [(d, a) for d, a in cells
                  if d in profile.per_dataset and _is_nan(profile.per_dataset[d].get(a, np.nan))]
    if not unmeasured:
        return profile.per_dataset, profile.noise, []
    table = {d: dict(row) for d, row in profile.per_dataset.items()}
    noise = None if profile.noise is None else {d: dict(r) for d, r in profile.noise.items()}
    for d, a in unmeasured:
        source = _cost_source(table[d], results.algorithms, policy, d, results.source)
        table[d][a] = table[d][source]
        if noise is not None:
            noise.setdefault(d, {})[a] = noise.get(d, {}).get(source, 0.0)
    return table, noise, unmeasured


def _is_nan(value):
    return isinstance(value, float) and np.isnan(value)


def _cost_source(row, names, policy, dataset, source):
    """The algorithm whose cost on a data set a missing one takes: the costliest measured
    (``worst``; ``partial``'s placeholder), or the baseline."""
    if policy.startswith(_BASELINE):
        name = policy[len(_BASELINE):]
        if _is_nan(row.get(name, np.nan)):
            raise InputError(f"missing results: policy {policy}: no cost of {abbreviate(name)} "
                             f"on data set '{abbreviate(dataset)}' to give its missing results",
                             source=source)
        return name
    measured = [(row[a], a) for a in names if not _is_nan(row.get(a, np.nan))]
    if not measured:
        raise InputError(f"missing results: policy {policy}: no cost measured on data set "
                         f"'{abbreviate(dataset)}', so none for its missing results",
                         source=source)
    return max(measured, key=lambda pair: pair[0])[1]


def _fill(results, policy):
    """The value each cell would get: ``(S, L, F)`` (NaN where none can be given)."""
    errors = results.errors
    if policy == "worst":
        with np.errstate(invalid="ignore"):
            ran = ~np.isnan(errors)
            worst = np.where(ran, errors, -np.inf).max(axis=1, keepdims=True)
        worst = np.where(np.isneginf(worst), np.nan, worst)
        return np.broadcast_to(worst, errors.shape)
    name = policy[len(_BASELINE):]
    if name not in results.algorithms:
        raise MultitestError(f"`missing`: baseline {name!r} is not an algorithm of the "
                             f"results; algorithms are {', '.join(results.algorithms)}")
    return np.broadcast_to(errors[:, [results.algorithms.index(name)], :], errors.shape)


def _kept(results, incomplete, policy):
    kept = np.flatnonzero(~incomplete)
    if kept.size == 0:
        raise InputError(f"missing results: policy {policy} leaves no data set to rank (every "
                         "one has a missing result it cannot fill); try missing='partial'",
                         source=results.source)
    return kept


def _partial(results, missing, n_missing, first):
    """Keep the cells; data sets with fewer than two complete algorithms are left out."""
    absent = missing.any(axis=2)
    too_few = (~absent).sum(axis=1) < 2
    kept = _kept(results, too_few, "partial")
    never = [a for a, gone in zip(results.algorithms, absent[kept].all(axis=0)) if gone]
    if never:
        raise InputError(f"missing results: policy partial: algorithm(s) {_names(never)} have "
                         "no data set with every fold; leave them out (algorithms=...)",
                         source=results.source)
    ranked = results if not too_few.any() else results.subset(
        datasets=[results.datasets[i] for i in kept])
    dropped = tuple(results.datasets[i] for i in np.flatnonzero(too_few))
    return ranked, MissingReport(policy="partial", n_missing=n_missing, n_imputed=0,
                                 dropped=dropped, first=first, absent=absent[kept],
                                 never_ran=_never_ran(missing[kept]))


def _cells(results, count):
    """The first `count` missing cells as ``'(data set, algorithm, fold)'`` texts."""
    s, a, f = (x[:count].tolist() for x in np.nonzero(np.isnan(results.errors)))
    k = results.folds_per_replication
    return [f"({abbreviate(results.datasets[i], 24)}, {abbreviate(results.algorithms[j], 24)}"
            + (", " + (f"fold {g + 1}" if results.replications == 1 else
                       f"fold {g // k + 1}.{g % k + 1}") if results.has_folds else "") + ")"
            for i, j, g in zip(s, a, f)]
