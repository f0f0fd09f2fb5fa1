"""The ``multitest`` command line's parser, built from the options' definitions.

Every option of ``multitest rank`` and ``multitest stability`` comes from
:data:`multitest.engine._options.OPTIONS` (its flag, group, help and type), so the command
line, :func:`multitest.rank` and a ``--config`` file check a value the same way;
``multitest run``'s parser needs none of the engine (:func:`build_parser` with
``run_only``).
"""

from __future__ import annotations

import argparse

from . import __version__
from ._errors import one_line
from ._format import RAW_CSV_HELP, escape_terminal

__all__ = ["build_parser", "option_of"]


class _OneLineErrors(argparse.ArgumentParser):
    """Usage errors as one line (``multitest: error: ...``), exit status 2; no option read
    from a prefix of its name (``--dataset`` is neither ``--datasets`` nor
    ``--dataset-column``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        self.exit(2, escape_terminal(f"multitest: error: {one_line(message)} (see {self.prog} "
                                     "--help)\n"))


def _from_text(kind):
    """Command-line text as a number or an integer when it reads as one, else the text.

    Whatever it gives is checked with the option (``multitest.engine._options``), so that
    ``--alpha 1.5`` and ``--alpha x`` get the same message as ``rank(..., alpha=1.5)``.
    """
    convert = {"number": float, "integer": int}.get(kind)

    def parse(text):
        try:
            return convert(text) if convert else text
        except ValueError:
            return text
    return parse


def _addoption_of(group, option):
    """One option of the definition as an argparse argument (default None: not given)."""
    if option.switch is not None:
        group.add_argument(*option.cli_flags, dest=option.key, default=None,
                           action="store_true" if option.switch else "store_false",
                           help=option.help_text)
        return
    metavar = option.metavar or (option.choices and "{" + ",".join(option.choices) + "}")
    group.add_argument(*option.cli_flags, dest=option.key, default=None, metavar=metavar,
                       type=_from_text(option.kind), help=option.help_text)


def _add_options(parser, command):
    """The results, every option of `command` in its groups, and --config."""
    from .engine._options import options_of

    parser.add_argument("results", help="per-fold results, long-format CSV")
    groups = {}
    for option in options_of(command):
        if option.group not in groups:
            groups[option.group] = parser.add_argument_group(option.group)
        _addoption_of(groups[option.group], option)
        if option.key == "kind":
            groups[option.group].add_argument(
                "--config", metavar="YAML", help="settings file; keys are the long options "
                "with '_' for '-' (command-line options win)")


_EXAMPLES = """examples:
  multitest demo                                   # the bundled data, both cost profiles
  multitest rank results.csv --costs training_time --out out --format svg --report
  multitest rank results.csv --order knn,tree,svm  # inline prior, cheapest first
  multitest stability results.csv --costs training_time -B 1000 --out stab --report
  multitest explain out                            # why each position, from a finished run
  multitest tests                                  # the registered pairwise tests
  multitest COMMAND --help                         # the options of one command
"""


_RANK_EXAMPLES = """examples:
  multitest rank results.csv --costs training_time
  multitest rank results.csv --order knn,tree,svm --out out --format svg --report
  multitest rank results.csv --costs my_costs.yaml --test kfold-t --alpha 0.01
  multitest rank results.csv --config run.yaml --quiet
"""

_STABILITY_EXAMPLES = """examples:
  multitest stability results.csv --costs training_time -B 1000 --seed 0
  multitest stability results.csv --costs training_time --alphas 0.01,0.05,0.1 \\
      --profiles training_time,space_complexity --out stab --report
"""


def _add_quiet(parser, default=False):
    parser.add_argument("-q", "--quiet", action="store_true", default=default,
                        help="no progress bars on standard error")


def build_parser(run_only=False):
    """The command line; `run_only`: only ``multitest run``, which needs none of the engine."""
    parser = _OneLineErrors(
        prog="multitest", description="Order learning algorithms by error and cost "
        "(MultiTest / Multi²Test).", epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"multitest {__version__}")
    _add_quiet(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if not run_only:
        _add_analysis_parsers(sub)
    _add_run_parser(sub)
    return parser


def _add_analysis_parsers(sub):
    rank_parser = sub.add_parser(
        "rank", help="order algorithms from per-fold results",
        description="Order algorithms from per-fold results.", epilog=_RANK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_options(rank_parser, "rank")
    _add_quiet(rank_parser, default=argparse.SUPPRESS)
    stab = sub.add_parser("stability", help="how stable the final order is (bootstrap, alpha, "
                          "cost profiles)", description="Resample the data sets with "
                          "replacement and rerun the second pass; compare alphas and profiles.",
                          epilog=_STABILITY_EXAMPLES,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_options(stab, "stability")
    _add_quiet(stab, default=argparse.SUPPRESS)
    demo = sub.add_parser("demo", help="run the bundled report data with both bundled profiles")
    demo.add_argument("--out", metavar="DIR", help="also write outputs under DIR/<profile>")
    demo.add_argument("--format", metavar="svg[,png,pdf]", help="figure formats")
    demo.add_argument("--report", action="store_true", help="write report.html per profile")
    demo.add_argument("--dpi", type=int, metavar="N", help="resolution of PNG figures")
    demo.add_argument("--raw-csv", action="store_true",
                      help=option_of("rank", "raw_csv").help_text)
    _add_quiet(demo, default=argparse.SUPPRESS)
    explain = sub.add_parser("explain", help="why each algorithm holds its position, from "
                             "a finished run", description="Print the explanation of every "
                             "final position from OUT/result.json (written by multitest rank "
                             "--out OUT).")
    explain.add_argument("out", metavar="OUT", help="an output folder of multitest rank")
    sub.add_parser("tests", help="list the registered pairwise tests")


def _add_run_parser(sub):
    run = sub.add_parser("run", help="run learners under cross-validation and measure their "
                         "costs (needs the 'run' extra)", description="Fit every algorithm on "
                         "every fold of every data set of EXPERIMENT, in processes of this "
                         "machine or on a Dask cluster; write "
                         "DIR/results.csv, DIR/costs/*.yaml and DIR/provenance.json. Re-running "
                         "resumes from the store DIR/store.sqlite.")
    run.add_argument("experiment", metavar="EXPERIMENT.yaml", help="the experiment file")
    run.add_argument("--out", metavar="DIR", required=True, help="the experiment folder")
    run.add_argument("--workers", type=int, metavar="N",
                     help="worker processes of the local cluster (default: the CPUs this "
                          "process may use)")
    run.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="use an existing Dask scheduler instead of a local cluster")
    run.add_argument("--timeout", metavar="SECONDS",
                     help="kill and record a fit that runs longer: positive finite seconds, "
                     "or 'none' for no limit (overrides the experiment's timeout)")
    run.add_argument("--retry-failed", action="store_true",
                     help="recompute the folds stored as failed")
    run.add_argument("--raw-csv", action="store_true", help=RAW_CSV_HELP)


def option_of(command, key):
    """The option of `command` whose key is `key`."""
    from .engine._options import options_of

    return next(o for o in options_of(command) if o.key == key)
