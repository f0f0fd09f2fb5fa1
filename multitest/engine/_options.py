"""The options of an analysis, each described once: check, default, applicability, flag.

Every option of :func:`multitest.rank`, of :func:`multitest.engine.stability`
and of the ``multitest rank`` / ``multitest stability`` commands is one :class:`Option`
in :data:`OPTIONS`: its name, how its value is checked, its default, a one-line help, its
command-line flag and group, and its type in a ``--config`` file.  The command line builds
its parser and reads its settings files (:func:`read_settings_file`) from this list;
:class:`~multitest.engine.Settings` checks the rules between options.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._errors import InputError, MultitestError, abbreviate
from .._format import RAW_CSV_HELP
from .._cpus import max_workers
from ..inputs._costs import CostProfile, bundled_profiles
from ..inputs._yaml import read_yaml
from ..inputs._design import parse_test_train_ratio
from ..inputs._missing import check_missing_policy
from ..inputs._results import VALUE_KINDS
from ..inputs._split import RANGE_BYTES
from ..stats._bayesian import DEFAULT_THRESHOLD
from ..stats._corrections import CORRECTIONS, PAIRWISE_CORRECTIONS
from ..stats._friedman import FRIEDMAN_TIES
from ..stats._nemenyi import CONTROL_METHODS
from ..stats._registry import DEFAULT_TEST, get_test
from ._cost_ties import COST_TOLERANCE_DEFAULT, check_cost_tolerance
from ._second_pass_methods import SECOND_PASS_METHODS

__all__ = []

#: ``'greater'``: one-sided tests in the direction "the costlier is better".
ALTERNATIVES = ("two-sided", "greater")

# --------------------------------------------------------------------------
# Checks of single values: ``check(value, label) -> value``, ``label`` names the option.
# --------------------------------------------------------------------------

def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _probability(low):
    """A number strictly between ``low`` and 1."""
    def check(value, label):
        if not _is_real(value) or not low < float(value) < 1:
            raise MultitestError(f"{label} must be a number strictly between {low:g} and 1, "
                                 f"got {value!r}")
        return float(value)
    return check


def _nonnegative(value, label):
    if not _is_real(value) or not np.isfinite(value) or value < 0:
        raise MultitestError(f"{label} must be a finite number >= 0, got {value!r}")
    return float(value)


def _count(minimum, maximum=None, why=""):
    """An integer ``>= minimum`` (and ``<= maximum``, the bound's reason `why`)."""
    def check(value, label):
        if not _is_integer(value) or value < minimum:
            raise MultitestError(f"{label} must be an integer >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise MultitestError(f"{label} must be at most {maximum:,}{why}, got {value!r}")
        return int(value)
    return check


#: Highest resolution of PNG figures: print quality is 300-600; --dpi 100000 kept Graphviz
#: drawing one figure for over a minute and 2.4 GB.
MAX_DPI = 1200


def _workers(value, label):
    """A number of worker processes: an integer from 1 to :func:`~multitest._cpus.max_workers`
    (asked when a value is checked)."""
    return _count(1, max_workers(), " (4 per CPU)")(value, label)


def _choice(allowed):
    def check(value, label):
        if not isinstance(value, str) or value not in allowed:
            raise MultitestError(f"{label} must be one of {', '.join(allowed)}, got {value!r}")
        return value
    return check


def _boolean(value, label):
    if not isinstance(value, (bool, np.bool_)):
        raise MultitestError(f"{label} must be true or false, got {value!r}")
    return bool(value)


def _text(value, label):
    if not isinstance(value, str) or not value:
        raise MultitestError(f"{label} must be a non-empty text, got {value!r}")
    return value


def _names(value, label):
    """Names as a list: a sequence of texts, or one text with names separated by commas."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise MultitestError(f"{label} must be names (a list, or names separated by commas), "
                         f"got {value!r}")


#: Above this many data sets the per-data-set figures are drawn for this many of them by
#: default (``--figures-for``): those with overrides first, then the others, in input order.
FIGURES_FOR_DEFAULT = 50


def _figures_for(value, label):
    """``'all'``, or the names of the data sets whose figures are drawn."""
    names = _names(value, label)
    if [name.lower() for name in names] == ["all"]:
        return "all"
    if not names:
        raise MultitestError(f"{label} must name data sets, or be 'all'")
    return names


def figure_datasets(names, with_overrides, figures_for=None):
    """The data sets whose per-data-set figures are drawn (``--figures-for``).

    Parameters
    ----------
    names : sequence of str
        The data sets of the run, in input order.
    with_overrides : sequence of bool
        Whether each data set has an override.
    figures_for : 'all' or sequence of str, optional
        Checked by :func:`_figures_for`.  None: every data set up to
        :data:`FIGURES_FOR_DEFAULT`; above, that many, those with overrides first.

    Returns
    -------
    tuple of int
        The indices drawn, in input order.

    Raises
    ------
    MultitestError
        A name of ``figures_for`` is not a data set of the run.

    Examples
    --------
    >>> figure_datasets(["a", "b", "c"], [False, True, False])
    (0, 1, 2)
    >>> figure_datasets(["a", "b", "c"], [False, True, False], ["c", "a"])
    (0, 2)
    """
    names = list(names)
    if figures_for is not None:
        figures_for = _figures_for(figures_for, "`figures_for` (--figures-for)")
    if figures_for == "all" or (figures_for is None and len(names) <= FIGURES_FOR_DEFAULT):
        return tuple(range(len(names)))
    if figures_for is None:
        first = [k for k, hit in enumerate(with_overrides) if hit]
        rest = [k for k, hit in enumerate(with_overrides) if not hit]
        return tuple(sorted((first + rest)[:FIGURES_FOR_DEFAULT]))
    index = {name: k for k, name in enumerate(names)}
    unknown = [name for name in figures_for if name not in index]
    if unknown:
        raise MultitestError(f"`figures_for` (--figures-for): not data sets of the run: "
                             f"{abbreviate(', '.join(unknown), 300)}")
    return tuple(sorted({index[name] for name in figures_for}))


def _ratio(value, label):
    return parse_test_train_ratio(value)


def _test(value, label):
    """The pairwise test entry (:func:`multitest.stats.get_test`)."""
    return get_test(value)


def _alphas(value, label):
    """Significance levels, sorted, without duplicates (a number, a sequence or a text)."""
    if isinstance(value, str):
        try:
            grid = [float(part) for part in _names(value, label)]
        except ValueError:
            grid = []
        if not grid:
            raise MultitestError(f"{label} must be numbers strictly between 0 and 1, separated "
                                 f"by commas, got {value!r}")
        value = grid
    elif _is_real(value):
        value = (value,)
    try:
        alphas = tuple(value)
    except TypeError:
        raise MultitestError(f"{label} must be a sequence of numbers strictly between 0 and 1, "
                             f"got {value!r}") from None
    check = _probability(0)
    return tuple(sorted({check(a, label) for a in alphas}))


def _profiles(value, label):
    """Cost profiles to compare: a sequence, one profile, or names separated by commas."""
    if isinstance(value, str):
        return tuple(_names(value, label))
    if isinstance(value, (os.PathLike, CostProfile)):
        return (value,)
    try:
        return tuple(value)
    except TypeError:
        raise MultitestError(f"{label} must be a sequence of cost profiles (names, YAML paths "
                             f"or CostProfile), got {value!r}") from None


# --------------------------------------------------------------------------
# The definition
# --------------------------------------------------------------------------

#: What an option is for: a field of :class:`Settings` (recorded with every ranking), the
#: selection of data sets and algorithms (keywords of :func:`multitest.rank`), how the command
#: line reads the results (keywords of :func:`multitest.load_results`), another option of the
#: command line only (input and output), or an option of the stability analysis itself.
ROLES = ("setting", "selection", "reading", "command", "stability")

#: Type of a value in a ``--config`` file (and how the command line reads its text).
KINDS = {"text": "text", "names": "a list of names (or names separated by commas)",
         "number": "a number", "integer": "an integer", "boolean": "true or false",
         "ratio": "a number, two sizes or a text like 1/9", "any": "a value"}


@dataclass(frozen=True)
class Option:
    """One option, described once.

    Parameters
    ----------
    key : str
        Name in a ``--config`` file and in the settings; the command-line flag is
        ``--key`` with ``-`` for ``_`` unless `flags` says otherwise.
    check : callable
        ``check(value, label) -> value``: the normalised value, or a
        :class:`~multitest.MultitestError` whose message starts with `label`.
    help : str or callable
        One line for ``--help`` (a callable is asked when the parser is built).
    group : str
        Title of the group of the ``--help`` text.
    role : {'setting', 'selection', 'reading', 'command', 'stability'}
        See :data:`ROLES`.
    default : object
        The value when the option is not given (None: none, or one that depends on other
        options; see `default_text`).
    default_text : str, optional
        The default as ``--help`` shows it, when it is not ``str(default)``.
    keyword : str, optional
        The keyword of :func:`multitest.rank` or ``stability()`` (of
        :func:`multitest.load_results` for the role ``'reading'``) when it is not `key`.
    commands : tuple of str
        The commands (and functions) that take it: ``'rank'``, ``'stability'``.
    flags : tuple of str
        Command-line flags, when not ``('--key',)``.
    metavar : str, optional
    choices : tuple of str, optional
        Shown in ``--help``; the values are checked by `check`.
    kind : str
        Type in a ``--config`` file, one of :data:`KINDS`.
    switch : bool, optional
        The flag takes no value and sets this (``--report``, ``--no-friedman-gate``).
    path : bool
        A file or folder: in a ``--config`` file, relative to the file's folder.
    """

    key: str
    check: Callable
    help: object
    group: str
    role: str = "setting"
    default: object = None
    default_text: str | None = None
    keyword: str | None = None
    commands: tuple = ("rank", "stability")
    flags: tuple = ()
    metavar: str | None = None
    choices: tuple | None = None
    kind: str = "text"
    switch: bool | None = None
    path: bool = False

    @property
    def name(self):
        """The keyword of :func:`multitest.rank` (or ``stability()``)."""
        return self.keyword or self.key

    @property
    def label(self):
        """How error messages name the option."""
        flag = self.cli_flags[-1]
        return f"`{self.name}`" + (f" ({flag})" if self.name != self.key else "")

    @property
    def cli_flags(self):
        return self.flags or ("--" + self.key.replace("_", "-"),)

    @property
    def help_text(self):
        text = self.help() if callable(self.help) else self.help
        shown = self.default_text if self.default_text is not None else (
            None if self.default is None or self.switch is not None else str(self.default))
        return text + (f" (default {shown})" if shown else "")

    def validate(self, value):
        """The checked value of this option (None: not given)."""
        return None if value is None else self.check(value, self.label)

    def config_error(self, value):
        """Why `value` cannot be this option's value in a settings file (None when it can)."""
        ok = {"text": lambda v: isinstance(v, str),
              "names": lambda v: isinstance(v, str) or (isinstance(v, list) and v and all(
                  isinstance(x, str) for x in v)),
              "number": _is_real, "integer": _is_integer,
              "boolean": lambda v: isinstance(v, bool),
              "ratio": lambda v: isinstance(v, (str, list)) or _is_real(v),
              "any": lambda v: True}[self.kind]
        return None if value is None or ok(value) else f"must be {KINDS[self.kind]}"


def _profiles_help():
    return f"cost profile: YAML file or bundled name ({', '.join(bundled_profiles())})"


_PRIOR = "prior preference (one of)"
_TESTS = "tests"
_BAYES = "Bayesian tests (--test bayes-correlated-t, --second-pass bayesian)"
_INPUT = "input"
_OUTPUT = "output"

#: Where figure titles and captions go (``--captions``): inside the drawing, or beside it.
FIGURE_CAPTIONS = ("inside", "none")
_STABILITY = "stability"
_CLUSTER = "on a Dask cluster (the 'run' extra)"

#: Every option, in the order of ``--help``.
OPTIONS = (
    Option("costs", _text, _profiles_help, _PRIOR, role="command", metavar="PROFILE",
           path=True),
    Option("order", _names, "explicit order, cheapest first", _PRIOR, role="command",
           metavar="A,B,...", kind="names"),
    Option("secondary_costs", _text, "profile that breaks ties of the main one", _PRIOR,
           role="command", metavar="PROFILE", path=True),
    Option("cost_tolerance", check_cost_tolerance, "costs closer than this are ties, broken "
           "by the secondary profile, then by name: 'noise' (the profile's noise where it has "
           "one, else exact), 'exact', a number, or a percentage of the larger cost (5 percent: "
           "5 and a percent sign)", _PRIOR, default=COST_TOLERANCE_DEFAULT,
           metavar="TOLERANCE", kind="any"),
    Option("test", _test, "pairwise test: a registered name (multitest tests) or "
           "module:function", _TESTS, default=DEFAULT_TEST, metavar="NAME", kind="any"),
    Option("alpha", _probability(0), "significance level", _TESTS, default=0.05,
           kind="number"),
    Option("correction", _choice(CORRECTIONS), "correction within a data set", _TESTS,
           default="none", choices=CORRECTIONS),
    Option("alternative", _choice(ALTERNATIVES), "'greater': one-sided 'costlier is "
           "better' p-values", _TESTS, default="two-sided", choices=ALTERNATIVES),
    Option("second_pass", _choice(SECOND_PASS_METHODS), "post-hoc test over data sets",
           _TESTS, default="nemenyi", choices=SECOND_PASS_METHODS),
    Option("posthoc_correction", _choice(PAIRWISE_CORRECTIONS), "correction of the "
           "wilcoxon/sign second pass", _TESTS, default="holm", choices=PAIRWISE_CORRECTIONS),
    Option("friedman_gate", _boolean, "apply the post-hoc test even when Friedman does not "
           "reject", _TESTS, default=True, flags=("--no-friedman-gate",), kind="boolean",
           switch=False),
    Option("friedman_ties", _choice(FRIEDMAN_TIES), "Friedman statistic with R's tie "
           "correction or Demsar's uncorrected one", _TESTS, default="corrected",
           choices=FRIEDMAN_TIES),
    Option("test_train_ratio", _ratio, "test/train size ratio r of corrected-t, e.g. 1/9 or "
           "100/900; bayes-correlated-t: rho = r/(1+r)", _TESTS, default_text="1/(k-1) for k "
           "folds", metavar="N_TEST/N_TRAIN", kind="ratio"),
    Option("control", _text, "also compare every algorithm with this one", _TESTS,
           commands=("rank",), metavar="NAME"),
    Option("control_method", _choice(CONTROL_METHODS), "correction of the control "
           "comparisons", _TESTS, default="holm", commands=("rank",), choices=CONTROL_METHODS),
    Option("rope", _nonnegative, "region of practical equivalence [-R, R], in the units of "
           "the errors", _BAYES, default=0.0, default_text="0", metavar="R", kind="number"),
    Option("min_probability", _probability(0.5), "override when P(costlier practically "
           "better) >= P", _BAYES, default=DEFAULT_THRESHOLD, metavar="P", kind="number"),
    Option("bayes_seed", _count(0), "seed of the Monte Carlo signed-rank test "
           "(--second-pass bayesian)", _BAYES, default=0, commands=("rank",),
           metavar="N", kind="integer"),
    Option("datasets", _names, "use only these data sets", _INPUT, role="selection",
           metavar="D1,D2,...", kind="names"),
    Option("algorithms", _names, "use only these algorithms", _INPUT, role="selection",
           metavar="A1,A2,...", kind="names"),
    Option("missing", check_missing_policy, "what a missing result (failed fold) means: "
           "error, drop (complete data sets only), worst (worst error of the fold), "
           "baseline:NAME (NAME's error), partial (nothing imputed; Skillings-Mack; rank "
           "only)", _INPUT, default="error", metavar="POLICY"),
    Option("dataset_column", _text, "column naming the data sets", _INPUT, role="reading",
           default="dataset", keyword="dataset", metavar="COLUMN"),
    Option("algorithm_column", _text, "column naming the algorithms", _INPUT, role="reading",
           default_text="algorithm, or framework/method beside metric_error",
           keyword="algorithm", metavar="COLUMN"),
    Option("replication_column", _text, "column numbering the replications (with a fold "
           "column)", _INPUT, role="reading", default="replication", keyword="replication",
           metavar="COLUMN"),
    Option("fold_column", _text, "column numbering the folds", _INPUT, role="reading",
           default="fold", keyword="fold", metavar="COLUMN"),
    Option("value", _text, "column holding the values", _INPUT, role="reading",
           default_text="the one named error/accuracy/...", metavar="COLUMN"),
    Option("kind", _choice(VALUE_KINDS), "how values become errors (needed for a wide table: "
           "a column per algorithm)", _INPUT, role="reading",
           default_text="auto: from the column name", choices=VALUE_KINDS),
    Option("higher_is_better", _names, "metrics (of a 'metric' column) whose higher values "
           "are better, besides the well-known auc, accuracy, f1, r2...", _INPUT,
           role="reading", metavar="M1,M2,...", kind="names"),
    Option("lower_is_better", _names, "metrics whose lower values are better, besides the "
           "well-known logloss, rmse, mae, error...", _INPUT, role="reading",
           metavar="M1,M2,...", kind="names"),
    Option("out", _text, "write result.json, CSV tables (and figures)", _OUTPUT,
           role="command", commands=("rank",), metavar="DIR", path=True),
    Option("format", _names, "figure formats (DOT sources are always written with --out)",
           _OUTPUT, role="command", commands=("rank",), metavar="svg[,png,pdf]",
           kind="names"),
    Option("report", _boolean, "write DIR/report.html", _OUTPUT, role="command",
           commands=("rank",), kind="boolean", switch=True),
    Option("latex", _boolean, "write DIR/tables.tex (the final order, the orders per data "
           "set and the post-hoc p-values as booktabs tables) and the CD diagrams as TikZ "
           "pictures (cd.tex, cd_errors.tex)", _OUTPUT, role="command",
           commands=("rank",), kind="boolean", switch=True),
    Option("markdown", _boolean, "write DIR/summary.md: the summary in Markdown (CommonMark "
           "tables)", _OUTPUT, role="command", commands=("rank",), kind="boolean",
           switch=True),
    Option("dpi", _count(1, MAX_DPI), "resolution of PNG figures, dots per inch", _OUTPUT,
           role="command", commands=("rank",), metavar="N", kind="integer",
           default_text="Graphviz's 96"),
    Option("captions", _choice(FIGURE_CAPTIONS), "figure titles and captions drawn inside "
           "the figures, or 'none': written beside them (report, captions.md), so that a "
           "figure goes into a paper as it is", _OUTPUT, role="command", commands=("rank",),
           default="inside", choices=FIGURE_CAPTIONS),
    Option("figures_for", _figures_for, "draw the per-data-set figures (and the report's) "
           "for these data sets, or 'all'", _OUTPUT, role="command", commands=("rank",),
           default_text=f"every data set up to {FIGURES_FOR_DEFAULT}; above, "
           f"{FIGURES_FOR_DEFAULT}: those with overrides first", metavar="D1,D2,...|all",
           kind="names"),
    Option("bootstrap", _count(1), "number of resamples", _STABILITY, role="stability",
           default=1000, commands=("stability",),
           flags=("-B", "--bootstrap"), metavar="N", kind="integer"),
    Option("seed", _count(0), "random seed of the resamples", _STABILITY, role="stability",
           default=0, commands=("stability",), metavar="N", kind="integer"),
    Option("alphas", _alphas, "alpha grid", _STABILITY, role="stability",
           default=(0.01, 0.05, 0.1), default_text="0.01,0.05,0.1", commands=("stability",),
           metavar="A1,A2,...", kind="names"),
    Option("profiles", _profiles, "cost profiles to compare side by side", _STABILITY,
           role="stability", default=(), default_text="", commands=("stability",),
           metavar="P1,P2,...", kind="names"),
    Option("out", _text, "write stability.json, stability_positions.csv (and "
           "stability.html with --report)", _STABILITY, role="command",
           commands=("stability",), metavar="DIR", path=True),
    Option("report", _boolean, "write DIR/stability.html (heat maps)", _STABILITY,
           role="command", commands=("stability",), kind="boolean", switch=True),
    Option("all_intervals", _boolean, "Hodges-Lehmann intervals over data sets of every "
           "pair in result.json and effect_sizes.csv (by default only up to 300 pairs, "
           "L = 25, those the second-pass figure shows: their cost grows as pairs x S^2)",
           _OUTPUT, role="command", commands=("rank",), kind="boolean", switch=True),
    Option("raw_csv", _boolean, RAW_CSV_HELP, _OUTPUT,
           role="command", commands=("rank", "stability"), kind="boolean", switch=True),
    Option("workers", _workers, "rank a Parquet or CSV file, or a folder of them (each data "
           "set's rows together, in one file), in tasks on a local Dask cluster of N processes "
           "on 127.0.0.1: a task per file, per run of a Parquet file's row groups or per "
           f"range of about {RANGE_BYTES // 2 ** 20} MB of a CSV file; needs --out",
           _CLUSTER, role="command", commands=("rank",), metavar="N", kind="integer",
           default_text="one process"),
    Option("scheduler", _text, "the same on an existing Dask scheduler", _CLUSTER,
           role="command", commands=("rank",), metavar="tcp://HOST:PORT"),
)


def options_of(command, roles=ROLES):
    """The options of ``command`` ('rank' or 'stability') with one of `roles`, in order."""
    return tuple(o for o in OPTIONS if command in o.commands and o.role in roles)


_SETTING = {o.name: o for o in OPTIONS if o.role == "setting" and "rank" in o.commands}


def read_settings_file(path, command):
    """The settings of a ``--config`` file of `command` ('rank' or 'stability'), checked.

    Every key must be an option of `command` and its value of the option's type
    (:data:`KINDS`) and valid for it, as the option checks a value of the command line
    or of :func:`multitest.rank`; the option's message then names the file, the line
    and the key.

    Returns
    -------
    dict
        ``{key: value}`` as written (checked, not normalised).

    Raises
    ------
    InputError
        ``FILE, row LINE, field 'KEY': ...``: an unknown key, a key of another command, a
        value of the wrong type or a wrong value.

    Examples
    --------
    >>> import os, tempfile
    >>> from multitest import MultitestError
    >>> from multitest.engine._options import read_settings_file
    >>> path = os.path.join(tempfile.mkdtemp(), "run.yaml")
    >>> with open(path, "w") as f:
    ...     _ = f.write("test: kfold-t\\nalpha: 1.5\\n")
    >>> try:
    ...     read_settings_file(path, "rank")
    ... except MultitestError as exc:
    ...     print(str(exc).replace(path, "run.yaml"))
    run.yaml, row 2, field 'alpha': must be a number strictly between 0 and 1, got 1.5
    """
    data, lines = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("a settings file must be a YAML mapping", source=path, row=1)
    known = {o.key: o for o in options_of(command)}
    for key, value in data.items():
        try:
            _check_setting(known, key, value, command)
        except MultitestError as exc:
            raise InputError(_reason(str(exc), known.get(key)), source=path,
                             row=lines.get((key,)), field=key) from None
    return data


def _check_setting(known, key, value, command):
    """One key of a settings file, checked by its option (a MultitestError if wrong)."""
    if key not in known:
        others = {o.key for o in OPTIONS}
        raise MultitestError(f"setting '{key}' does not apply to multitest {command}"
                             if key in others else f"unknown setting '{key}'; valid settings "
                             f"are {', '.join(known)}")
    error = known[key].config_error(value)
    if error:
        raise MultitestError(f"{error}, got {type(value).__name__} {abbreviate(repr(value))}")
    known[key].validate(value)


def _reason(message, option):
    """An option's message without its leading label: the key is named beside it."""
    label = None if option is None else option.label
    return message[len(label):].lstrip() if label and message.startswith(label) else message


# --------------------------------------------------------------------------
