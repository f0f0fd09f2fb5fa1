"""The settings of an analysis: every option checked, and the rules between them, once.

:meth:`Settings.from_options` checks every value (by its
:class:`~multitest.engine._options.Option`) and every rule saying which option applies to
which test or second pass, once (in the spirit of scipy's ``_iv_`` functions).  An option
that does not apply to the chosen test or second pass is refused with a one-line error
naming it; the Bayesian correlated t-test takes a test/train ratio ``r`` as its fold
correlation ``rho = r / (1 + r)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .._errors import MultitestError
from ..stats._corrections import BERGMANN_HOMMEL_MAX
from ..stats._registry import available_tests, get_test
from ._cost_ties import COST_TOLERANCE_DEFAULT
from ._options import _SETTING, options_of
from ._second_pass_methods import (SECOND_PASS_METHODS, check_handles_missing,
                                   get_second_pass_method)

__all__ = ["Settings"]

#: What :attr:`Settings.test` records when the results are a score matrix (no folds).
SCORE_MATRIX_TEST = "none (score matrix)"

# The record
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    """Everything that determined a :class:`~multitest.engine.Ranking`.

    Built by :meth:`from_options`, which checks every value and refuses an option
    that does not apply to the chosen test or second pass.  The fields are the
    settings :func:`multitest.rank` records (``to_dict``), in this order.

    Attributes
    ----------
    test : str
        Name of the pairwise test (``'none (score matrix)'`` without folds).
    alpha : float
    correction, alternative : str
    costs : str or None
        Name of the cost profile; filled by :func:`multitest.rank`.
    second_pass, posthoc_correction : str
        ``posthoc_correction`` is ``'none'`` for a second pass without correction.
    friedman_gate : bool
    control : str or None
    control_method : str
    friedman_ties : str
    test_train_ratio : float or None
    rope, min_probability : float
        Of the Bayesian tests (``0`` and ``0.95`` when none is chosen): the
        costlier overrides when P(costlier practically better) >= ``min_probability``.
    bayes_seed : int
        Of the Bayesian signed-rank second pass.
    cost_tolerance : str
        Costs closer than this are ties (:class:`~multitest.engine.CostTolerance`).
    missing : str
        The missing-result policy (:data:`multitest.inputs._missing.MISSING_POLICIES`);
        recorded by the ranking's :attr:`~multitest.engine.Ranking.missing`
        report, not by :meth:`to_dict`.
    pairwise_test : multitest.stats.PairwiseTest
        The test's registry entry (not recorded).

    Examples
    --------
    >>> from multitest.engine import Settings
    >>> s = Settings.from_options(test="corrected-t", second_pass="wilcoxon")
    >>> s.posthoc_correction, s.alpha
    ('holm', 0.05)
    >>> from multitest import MultitestError
    >>> try:
    ...     Settings.from_options(rope=0.01)
    ... except MultitestError as exc:
    ...     print(str(exc).split(" (")[0])
    `rope` applies to the Bayesian tests only
    """

    test: str
    alpha: float
    correction: str
    alternative: str
    costs: str | None
    second_pass: str
    posthoc_correction: str
    friedman_gate: bool
    control: str | None
    control_method: str
    friedman_ties: str
    test_train_ratio: float | None
    rope: float
    min_probability: float
    bayes_seed: int
    cost_tolerance: str = COST_TOLERANCE_DEFAULT
    missing: str = field(default="error", metadata={"recorded": False})
    pairwise_test: object = field(default=None, repr=False, compare=False,
                                  metadata={"recorded": False})

    @classmethod
    def from_options(cls, **options):
        """Check every option of :func:`multitest.rank` and the rules between them.

        Parameters
        ----------
        **options
            Keywords of :func:`multitest.rank` (``test``, ``alpha``, ``correction``,
            ...); None or absent: the default.

        Returns
        -------
        Settings

        Raises
        ------
        MultitestError
            One line naming the option: an unknown option, an invalid value, or an
            option that does not apply to the chosen test or second pass.
        """
        return _iv_settings(options)

    def decision_rules(self, *, second_pass=True):
        """What decided each stage, in words: the stage-1 test and its rule, the second
        pass (`second_pass`: whether one ran, i.e. two data sets or more) and its rule.

        A Bayesian stage decides by probability: alpha is named with the stages that
        use it, and said to decide no stage when neither does.

        Examples
        --------
        >>> from multitest.engine import Settings
        >>> print(Settings.from_options().decision_rules())
        test combined-5x2cv-f, alpha 0.05, correction none; second pass nemenyi
        >>> print(Settings.from_options(test='bayes-correlated-t').decision_rules())
        test bayes-correlated-t (override when P(costlier practically better) >= 0.95,
        rope 0); second pass nemenyi at alpha 0.05
        >>> print(Settings.from_options(test='bayes-correlated-t', second_pass='bayesian',
        ...                             rope=0.01).decision_rules())
        test bayes-correlated-t (override when P(costlier practically better) >= 0.95,
        rope 0.01); second pass bayesian (the same rule); alpha 0.05 only for the
        intervals and tests reported, not the order
        """
        rule = (f"override when P(costlier practically better) >= {self.min_probability:g}, "
                f"rope {self.rope:g}")
        matrix = self.test == SCORE_MATRIX_TEST
        bayesian = not matrix and self.pairwise_test is not None and self.pairwise_test.bayesian
        if matrix:
            first = "no pairwise test (a score matrix)"
        elif bayesian:
            first = f"test {self.test} ({rule})"
        else:
            first = f"test {self.test}, alpha {self.alpha:g}, correction {self.correction}"
        alpha_used = not (matrix or bayesian)
        if not second_pass:
            second = "no second pass (one data set)"
        elif get_second_pass_method(self.second_pass).bayesian:
            second = f"second pass {self.second_pass} ({'the same rule' if bayesian else rule})"
        else:
            second = f"second pass {self.second_pass}" + \
                ("" if alpha_used else f" at alpha {self.alpha:g}")
            alpha_used = True
        # A score matrix of one data set has neither: no interval, no test to quote alpha for
        unused = "" if alpha_used or not (second_pass or bayesian) else (
            f"; alpha {self.alpha:g} only for the intervals and tests reported, not the order")
        return f"{first}; {second}{unused}"

    def to_dict(self):
        """The recorded settings, ``{name: value}`` in field order."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.metadata.get("recorded", True)}


def _iv_settings(options):
    """:meth:`Settings.from_options`: every check of the settings, in one place."""
    unknown = [k for k in options if k not in _SETTING]
    if unknown:
        raise MultitestError(f"unknown option `{unknown[0]}`; the settings are "
                             f"{', '.join(_SETTING)}")
    given = {k: _SETTING[k].validate(v) for k, v in options.items() if v is not None}
    value = {k: given.get(k, o.default) for k, o in _SETTING.items()}
    entry = get_test(value["test"])     # the entry itself when the test was given
    method = get_second_pass_method(value["second_pass"])
    _iv_bayesian(given, entry, method)
    _iv_test_options(given, entry)
    _iv_second_pass_options(given, method)
    _iv_missing(value)
    if not method.takes_correction:
        value["posthoc_correction"] = "none"
    return Settings(**dict(value, test=entry.name, costs=None), pairwise_test=entry)


def _bayesian_names():
    tests = [n for n, t in available_tests().items() if t.bayesian]
    methods = [n for n, m in SECOND_PASS_METHODS.items() if m.bayesian]
    return f"test {', '.join(tests)} or second_pass {', '.join(methods)}"


def _iv_bayesian(given, entry, method):
    """ROPE and minimum probability need a Bayesian test or second pass; the seed the
    Bayesian second pass."""
    for name in ("rope", "min_probability"):
        if name in given and not (entry.bayesian or method.bayesian):
            raise MultitestError(f"`{name}` applies to the Bayesian tests only "
                                 f"({_bayesian_names()}); test '{entry.name}' and second_pass "
                                 f"'{method.name}' do not use it")
    if "bayes_seed" in given and not method.bayesian:
        methods = ", ".join(n for n, m in SECOND_PASS_METHODS.items() if m.bayesian)
        raise MultitestError(f"{_SETTING['bayes_seed'].label} seeds the Monte Carlo sampling of the "
                             f"second pass {methods} only; second_pass '{method.name}' does "
                             "not use it")


def _iv_test_options(given, entry):
    """The pairwise test's options: alternative, correction, test/train ratio."""
    if given.get("alternative", "two-sided") != "two-sided" and not entry.supports_one_sided:
        raise MultitestError(f"`alternative`: test '{entry.name}' has no one-sided version; "
                             "use 'two-sided' or a t-type, wilcoxon or sign test")
    if given.get("correction", "none") != "none" and entry.bayesian:
        raise MultitestError(f"`correction` must be 'none' with test '{entry.name}' "
                             f"(posterior probabilities are not corrected), got "
                             f"{given['correction']!r}")
    if "test_train_ratio" in given and not entry.uses_design:
        users = [n for n, t in available_tests().items() if t.uses_design]
        raise MultitestError(f"`test_train_ratio` is used by the tests with a fold design "
                             f"({', '.join(users)}); test '{entry.name}' has none")


def _iv_second_pass_options(given, method):
    """The second pass's options: its correction, the gate, the control's method."""
    if given.get("posthoc_correction", "none") != "none" and not method.takes_correction:
        takers = [n for n, m in SECOND_PASS_METHODS.items() if m.takes_correction]
        raise MultitestError(f"`posthoc_correction` applies to the second passes "
                             f"{', '.join(takers)}; second_pass '{method.name}' takes no "
                             "correction")
    if given.get("friedman_gate", True) is False and method.bayesian:   # never gated
        raise MultitestError(f"`friedman_gate`: second_pass '{method.name}' is never gated (it "
                             "is applied to every pair); leave the gate on")
    if "control_method" in given and "control" not in given:
        raise MultitestError("`control_method` applies only with `control` (the algorithm "
                             "compared with every other); give control or leave it out")


def _iv_missing(value):
    """Under ``missing='partial'``: no control (it compares average ranks of complete data)."""
    if value["missing"] == "partial" and value["control"] is not None:
        raise MultitestError("`control`: comparisons against a control need every algorithm on "
                             "every data set; not with missing='partial'")


def check_for_results(settings, results):
    """The rules that depend on the data: the test's design, the correction's size, the control.

    Raises
    ------
    MultitestError
        One line naming the option.
    """
    entry = settings.pairwise_test
    if results.has_folds and entry.requires_5x2 and (
            results.replications, results.folds_per_replication) != (5, 2):
        raise MultitestError(
            f"test '{entry.name}' needs 5x2 cross-validation (5 replications of 2 folds), but "
            f"the results have {results.replications} replication(s) of "
            f"{results.folds_per_replication} fold(s); choose another test (multitest tests)")
    if not results.has_folds and settings.test_train_ratio is not None:
        raise MultitestError("`test_train_ratio`: the results are a score matrix (no folds); "
                             "no pairwise test uses a fold design")
    if (settings.posthoc_correction == "bergmann-hommel"
            and results.n_algorithms > BERGMANN_HOMMEL_MAX):
        raise MultitestError(f"`posthoc_correction`: bergmann-hommel supports at most "
                             f"{BERGMANN_HOMMEL_MAX} algorithms (it enumerates every exhaustive "
                             f"set of hypotheses); got {results.n_algorithms}; use shaffer")
    if settings.control is not None and settings.control not in results.algorithms:
        raise MultitestError(f"`control`: unknown algorithm {settings.control!r}; algorithms "
                             f"are {', '.join(results.algorithms)}")
    if settings.missing == "partial" and results.n_datasets >= 2:
        check_handles_missing(get_second_pass_method(settings.second_pass))
    if settings.control is not None and results.n_datasets < 2:
        raise MultitestError("`control`: comparisons against a control need at least 2 data sets")


def check_stability_options(options):
    """The options :func:`multitest.engine.stability` passes on to rank(), checked.

    Returns
    -------
    settings : Settings
    selection : dict
        ``datasets`` and ``algorithms``.
    """
    allowed = {o.name: o for o in options_of("stability", ("setting", "selection"))}
    for name in options:
        if name not in allowed:
            raise MultitestError(
                (f"`{name}` does not apply to the stability analysis" if name in _SETTING
                 else f"unknown option `{name}`")
                + f"; its options are {', '.join(allowed)}")
    selection = {k: allowed[k].validate(options.get(k)) for k in allowed
                 if allowed[k].role == "selection"}
    settings = Settings.from_options(**{k: v for k, v in options.items() if k in _SETTING})
    if settings.missing == "partial":   # the bootstrap resamples complete rank matrices
        raise MultitestError("`missing`: the stability bootstrap needs complete results; use "
                             "drop, worst or baseline:NAME (partial: multitest rank only)")
    if get_second_pass_method(settings.second_pass).bayesian:   # a Monte Carlo test each
        raise MultitestError(f"`second_pass`: the stability bootstrap does not support the "
                             f"'{settings.second_pass}' second pass (a Monte Carlo test per "
                             "resample); use nemenyi, wilcoxon or sign")
    return settings, selection
