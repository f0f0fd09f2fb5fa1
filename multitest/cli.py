"""The ``multitest`` command line.

``multitest rank``, ``multitest stability``, ``multitest demo``, ``multitest tests``.  Errors in the
input are printed as one line and give exit status 2.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

from . import __version__, example_path
from .stats._corrections import CORRECTIONS, PAIRWISE_CORRECTIONS
import dataclasses

from .inputs._costs import bundled_profiles, profile_from_order, read_yaml
from ._errors import InputError, MultitestError, abbreviate, one_line
from .stats._registry import DEFAULT_TEST, available_tests
from .stats._friedman import FRIEDMAN_TIES
from .engine._ranking import ALTERNATIVES, CONTROL_METHODS, rank, resolve_profile
from .inputs._results import VALUE_KINDS, load_results
from .engine._second_pass_methods import SECOND_PASS_METHODS

__all__ = ["main"]

_CONFIG_KEYS = ("costs", "order", "secondary_costs", "test", "alpha", "correction", "alternative",
                "second_pass", "posthoc_correction", "friedman_gate", "control",
                "control_method", "datasets", "algorithms", "value", "kind", "format", "report",
                "out", "friedman_ties", "test_train_ratio", "rope", "threshold",
                "bayes_seed")


#: Type of each setting of a --config file: text, list of text (or text split on
#: commas), number or true/false.
_CONFIG_TYPES = {"alpha": "number", "friedman_gate": "boolean", "report": "boolean",
                 "order": "names", "datasets": "names", "algorithms": "names",
                 "format": "names"}


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``multitest: error: ...``), exit status 2."""

    def error(self, message):
        self.exit(2, f"multitest: error: {one_line(message)} (see {self.prog} --help)\n")


def _split(text):
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


def _add_analysis_options(parser):
    """Options shared by `rank` and `stability`: input, prior and tests."""
    parser.add_argument("results", help="per-fold results, long-format CSV")
    prior = parser.add_argument_group("prior preference (one of)")
    prior.add_argument("--costs", metavar="PROFILE",
                       help="cost profile: YAML file or bundled name (%s)"
                       % ", ".join(bundled_profiles()))
    prior.add_argument("--order", metavar="A,B,...", help="explicit order, cheapest first")
    prior.add_argument("--secondary-costs", metavar="PROFILE",
                       help="profile that breaks ties of the main one")
    tests = parser.add_argument_group("tests")
    tests.add_argument("--test", metavar="NAME", help=f"pairwise test: a registered name "
                       f"(multitest tests) or module:function (default {DEFAULT_TEST})")
    tests.add_argument("--alpha", type=float, help="significance level (default 0.05)")
    tests.add_argument("--correction", choices=CORRECTIONS,
                       help="correction within a data set (default none)")
    tests.add_argument("--alternative", choices=ALTERNATIVES,
                       help="'greater': one-sided 'costlier is better' p-values")
    tests.add_argument("--second-pass", choices=SECOND_PASS_METHODS,
                       help="post-hoc test over data sets (default nemenyi)")
    tests.add_argument("--posthoc-correction", choices=PAIRWISE_CORRECTIONS,
                       help="correction for the wilcoxon/sign second pass (default holm)")
    tests.add_argument("--no-friedman-gate", dest="friedman_gate", action="store_false",
                       default=None, help="apply the post-hoc test even when Friedman does "
                       "not reject")
    tests.add_argument("--friedman-ties", choices=FRIEDMAN_TIES,
                       help="Friedman statistic with R's tie correction (default corrected) "
                       "or Demsar's uncorrected one")
    tests.add_argument("--test-train-ratio", metavar="N_TEST/N_TRAIN",
                       help="corrected-t: test/train size ratio, e.g. 1/9 or 100/900 "
                       "(default 1/(k-1) for k folds)")
    tests.add_argument("--control", metavar="NAME",
                       help="also compare every algorithm with this one")
    tests.add_argument("--control-method", choices=CONTROL_METHODS,
                       help="correction of the control comparisons (default holm)")
    bayes = parser.add_argument_group("Bayesian tests (--test bayes-correlated-t, "
                                      "--second-pass bayesian)")
    bayes.add_argument("--rope", type=float, metavar="R", help="region of practical "
                       "equivalence [-R, R], in the units of the errors (default 0)")
    bayes.add_argument("--min-probability", "--threshold", dest="threshold", type=float,
                       metavar="P", help="override when P(costlier practically better) >= P "
                       "(default 0.95)")
    bayes.add_argument("--bayes-seed", type=int, metavar="N",
                       help="seed of the Monte Carlo signed-rank test (default 0)")
    data = parser.add_argument_group("input")
    data.add_argument("--datasets", metavar="D1,D2,...", help="use only these data sets")
    data.add_argument("--algorithms", metavar="A1,A2,...", help="use only these algorithms")
    data.add_argument("--value", metavar="COLUMN", help="column holding the values "
                      "(default: the one named error/accuracy/...)")
    data.add_argument("--kind", choices=VALUE_KINDS,
                      help="how values become errors (default auto: from the column name)")
    data.add_argument("--config", metavar="YAML", help="settings file; keys are the long "
                      "options with '_' for '-' (command-line options win)")


def _add_rank_outputs(parser):
    out = parser.add_argument_group("output")
    out.add_argument("--out", metavar="DIR", help="write result.json, CSV tables (and figures)")
    out.add_argument("--format", metavar="svg[,png,pdf]",
                     help="figure formats (DOT sources are always written with --out)")
    out.add_argument("--report", action="store_true", default=None,
                     help="write DIR/report.html")


_EXAMPLES = """examples:
  multitest demo                                   # the bundled data, both cost profiles
  multitest rank results.csv --costs training_time --out out --format svg --report
  multitest rank results.csv --order knn,tree,svm  # inline prior, cheapest first
  multitest stability results.csv --costs training_time -B 1000 --out stab --report
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


def _parser():
    parser = _Parser(
        prog="multitest", description="Order learning algorithms by error and cost "
        "(MultiTest / Multi²Test).", epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"multitest {__version__}")
    _add_quiet(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    rank_parser = sub.add_parser(
        "rank", help="order algorithms from per-fold results",
        description="Order algorithms from per-fold results.", epilog=_RANK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_analysis_options(rank_parser)
    _add_rank_outputs(rank_parser)
    _add_quiet(rank_parser, default=argparse.SUPPRESS)
    stab = sub.add_parser("stability", help="how stable the final order is (bootstrap, alpha, "
                          "cost profiles)", description="Resample the data sets with "
                          "replacement and rerun the second pass; compare alphas and profiles.",
                          epilog=_STABILITY_EXAMPLES,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_analysis_options(stab)
    _add_quiet(stab, default=argparse.SUPPRESS)
    extra = stab.add_argument_group("stability")
    extra.add_argument("-B", "--bootstrap", type=int, default=1000, metavar="N",
                       help="number of resamples (default 1000)")
    extra.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    extra.add_argument("--alphas", default="0.01,0.05,0.1", metavar="A1,A2,...",
                       help="alpha grid (default 0.01,0.05,0.1)")
    extra.add_argument("--profiles", metavar="P1,P2,...",
                       help="cost profiles to compare side by side")
    extra.add_argument("--out", metavar="DIR", help="write stability.json, "
                       "stability_positions.csv (and stability.html with --report)")
    extra.add_argument("--report", action="store_true", default=None,
                       help="write DIR/stability.html (heat maps)")
    demo = sub.add_parser("demo", help="run the bundled report data with both bundled profiles")
    demo.add_argument("--out", metavar="DIR", help="also write outputs under DIR/<profile>")
    demo.add_argument("--format", metavar="svg[,png,pdf]", help="figure formats")
    demo.add_argument("--report", action="store_true", help="write report.html per profile")
    _add_quiet(demo, default=argparse.SUPPRESS)
    sub.add_parser("tests", help="list the registered pairwise tests")
    _add_run_parser(sub)
    return parser


def _add_run_parser(sub):
    run = sub.add_parser("run", help="run learners under cross-validation and measure their "
                         "costs (needs the 'run' extra)", description="Fit every algorithm on "
                         "every fold of every data set of EXPERIMENT on a Dask cluster; write "
                         "DIR/results.csv, DIR/costs/*.yaml and DIR/provenance.json. Re-running "
                         "resumes from the store DIR/store.sqlite.")
    run.add_argument("experiment", metavar="EXPERIMENT.yaml", help="the experiment file")
    run.add_argument("--out", metavar="DIR", required=True, help="the experiment folder")
    run.add_argument("--workers", type=int, metavar="N",
                     help="worker processes of the local cluster (default: CPUs)")
    run.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="use an existing Dask scheduler instead of a local cluster")
    run.add_argument("--timeout", type=float, metavar="SECONDS",
                     help="kill and record a fit that runs longer")
    run.add_argument("--retry-failed", action="store_true",
                     help="recompute the folds stored as failed")


def _config(path):
    data, lines = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("a settings file must be a YAML mapping", source=path, row=1)
    for key in data:
        if key not in _CONFIG_KEYS:
            raise InputError(f"unknown setting '{key}'; valid settings are "
                             f"{', '.join(_CONFIG_KEYS)}", source=path, row=lines.get((key,)),
                             field=key)
        _check_config_type(key, data[key], path, lines.get((key,)))
    return data, os.path.dirname(os.path.abspath(path))


def _check_config_type(key, value, path, row):
    kind = _CONFIG_TYPES.get(key, "text")
    if value is None:
        return
    if kind == "number":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "names":
        ok = isinstance(value, str) or (isinstance(value, list) and value
                                        and all(isinstance(v, str) for v in value))
    else:
        ok = isinstance(value, str)
    if not ok:
        expected = {"number": "a number", "boolean": "true or false", "text": "text",
                    "names": "a list of names (or names separated by commas)"}[kind]
        raise InputError(f"must be {expected}, got {type(value).__name__} "
                         f"{abbreviate(repr(value))}", source=path, row=row, field=key)


def _settings(args):
    """Merge command-line options over the --config file over the defaults."""
    config, base = _config(args.config) if args.config else ({}, None)
    merged = {}
    for key in _CONFIG_KEYS:
        value = getattr(args, key, None)
        merged[key] = config.get(key) if value is None else value
    for key in ("datasets", "algorithms", "format"):
        if isinstance(merged[key], str):
            merged[key] = _split(merged[key])
    if base is not None:
        for key in ("costs", "secondary_costs", "out"):
            if getattr(args, key, None) is None and isinstance(config.get(key), str):
                candidate = os.path.join(base, config[key])
                merged[key] = candidate if os.path.exists(candidate) or key == "out" \
                    else config[key]
    return merged


def _profile(settings):
    costs, order = settings["costs"], settings["order"]
    if (costs is None) == (order is None):
        raise MultitestError("give exactly one prior preference: --costs PROFILE or "
                             "--order A,B,...")
    results = settings.get("results")
    profile = resolve_profile(costs, results) if costs is not None else profile_from_order(
        order if not isinstance(order, str) else _split(order))
    if settings["secondary_costs"] is not None:
        profile = dataclasses.replace(
            profile, secondary=resolve_profile(settings["secondary_costs"], results))
    return profile


def _run_rank(settings, results):
    options = {key: settings[key] for key in ("test", "alpha", "correction", "alternative",
                                                "second_pass", "posthoc_correction",
                                                "friedman_gate", "control", "control_method",
                                                "friedman_ties", "test_train_ratio", "rope",
                                                "threshold")
               if settings[key] is not None}
    if settings["bayes_seed"] is not None:
        options["seed"] = settings["bayes_seed"]
    return rank(results, _profile(settings), datasets=settings["datasets"],
                algorithms=settings["algorithms"], **options)


def _figure_writer(ranking, formats, report):
    """Callback writing the figures (and the report) into the staging directory.

    DOT sources are always written.  Without --format or --report, above
    FIGURE_PAIRS_LIMIT pairwise results only the overall figures are written:
    the per-data-set ones grow as S x L^2 (about 0.2 MB per data set at L = 100).
    """
    from .outputs._json import is_large
    from .figures._write import FIGURE_PAIRS_LIMIT

    n_pairs = ranking.datasets[0].table.statistic.size
    per_dataset = bool(formats) or bool(report) or not (
        is_large(ranking) or n_pairs > FIGURE_PAIRS_LIMIT)

    def write(staging):
        from .figures._write import write_figures

        warning = write_figures(ranking, staging, formats=formats or [],
                                per_dataset=per_dataset)
        if formats or report:
            from .figures._bayes import write_bayes_figures

            write_bayes_figures(ranking, staging)
        if warning and formats:
            print(f"multitest: warning: {warning}", file=sys.stderr)
        if not per_dataset:
            print(f"multitest: note: {n_pairs} pairwise results: the per-data-set figures "
                  "(override_*, trace_*) are not written; ask for them with --format",
                  file=sys.stderr)
        if report:
            from .figures._report import write_report

            write_report(ranking, os.path.join(staging, "report.html"))
    return write


def _write(ranking, out, formats, report, inputs=()):
    from .outputs._write import write_outputs

    return write_outputs(ranking, out, extra=_figure_writer(ranking, formats, report),
                         inputs=inputs)


def _print_summary(ranking, out=None, seconds=None):
    from .outputs._summary import summary_text

    print(summary_text(ranking))
    if seconds is not None:
        print(f"\n({seconds:.2f} s)")
    if out is not None:
        print(f"outputs written to {out}")


def _results_input(args, settings):
    """The results file, and an experiment folder of `multitest run` resolved (DIR/results.csv)."""
    settings["results"] = args.results
    if os.path.isdir(args.results):
        from .inputs._cost_tables import experiment_folder

        settings["results"], settings["costs"], notes = experiment_folder(args.results,
                                                                          settings["costs"])
        for note in notes:
            print(f"multitest: note: {note}", file=sys.stderr)
    return settings["results"]


def _cmd_rank(args):
    settings = _settings(args)
    start = time.perf_counter()
    results = load_results(_results_input(args, settings),
                           **{k: settings[k] for k in ("value", "kind")
                              if settings[k] is not None})
    ranking = _run_rank(settings, results)
    elapsed = time.perf_counter() - start
    if settings["out"]:
        _write(ranking, settings["out"], settings["format"], settings["report"],
               inputs=[args.results] + ([args.config] if args.config else []))
    _print_summary(ranking, settings["out"], elapsed)
    return 0


def _alphas(text):
    try:
        alphas = [float(a) for a in _split(text) or ()]
    except ValueError:
        alphas = None
    if not alphas:
        raise MultitestError("`--alphas` must be numbers separated by commas, got "
                             f"{abbreviate(repr(text))}")
    return alphas


def _cmd_stability(args):
    from .outputs._transaction import transaction
    from .engine._stability import stability, stability_text, stability_to_dict

    settings = _settings(args)
    results = load_results(_results_input(args, settings),
                           **{k: settings[k] for k in ("value", "kind")
                              if settings[k] is not None})
    options = {key: settings[key] for key in ("test", "alpha", "correction", "alternative",
                                                "second_pass", "posthoc_correction",
                                                "friedman_gate", "friedman_ties",
                                                "test_train_ratio", "rope", "threshold")
               if settings[key] is not None}
    start = time.perf_counter()
    result = stability(results, _profile(settings), n_bootstrap=args.bootstrap, seed=args.seed,
                       alphas=_alphas(args.alphas), profiles=_split(args.profiles) or (),
                       datasets=settings["datasets"], algorithms=settings["algorithms"],
                       **options)
    elapsed = time.perf_counter() - start
    if settings["out"]:
        manifest = {"command": "stability", "input": args.results, "bootstrap": args.bootstrap,
                    "seed": args.seed, "alphas": args.alphas, "profiles": args.profiles,
                    "settings": {k: v for k, v in settings.items() if k != "out"}}
        inputs = [args.results, args.config, settings["costs"], settings["secondary_costs"],
                  *(_split(args.profiles) or ())]
        with transaction(settings["out"], settings=manifest,
                         inputs=[p for p in inputs if p]) as staging:
            with open(os.path.join(staging, "stability.json"), "w", encoding="utf-8") as f:
                json.dump(stability_to_dict(result), f, indent=1, allow_nan=False)
            result.position_frame().to_csv(os.path.join(staging, "stability_positions.csv"))
            if settings["report"]:
                from .figures._stability import write_stability_report

                write_stability_report(result, os.path.join(staging, "stability.html"))
    print(stability_text(result))
    print(f"\n({elapsed:.2f} s)")
    if settings["out"]:
        print(f"outputs written to {settings['out']}")
    return 0


def _cmd_demo(args):
    results = load_results(example_path())
    for name in ("training_time", "space_complexity"):
        start = time.perf_counter()
        ranking = rank(results, name)
        elapsed = time.perf_counter() - start
        print(f"=== bundled report data, cost profile: {name} ===")
        out = os.path.join(args.out, name) if args.out else None
        if out:
            _write(ranking, out, _split(args.format), args.report)
        _print_summary(ranking, out, elapsed)
        print()
    return 0


def _cmd_tests(args):
    registry = available_tests()
    width = max(map(len, registry))
    for name, test in registry.items():
        marker = " (default)" if name == DEFAULT_TEST else ""
        print(f"{name:<{width}}  {test.description}{marker}")
    return 0


def _cmd_run(args):
    from .run._runner import run_experiment

    result = run_experiment(args.experiment, args.out, workers=args.workers,
                            scheduler=args.scheduler, timeout=args.timeout,
                            retry_failed=args.retry_failed)
    print(result.summary())
    return 0


def main(argv=None):
    """Entry point of the ``multitest`` command."""
    if argv is None:
        # A real command line: the objects of the imported libraries (numpy, scipy,
        # pandas: several hundred thousand) are moved out of the garbage
        # collector's sight, which spares the collections during the run and at
        # exit their traversal (about 0.15 s).
        gc.freeze()
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:      # bare `multitest`: the help, not an error
        parser.print_help()
        return 0
    if args.quiet:
        from ._progress import set_quiet

        set_quiet()
    command = {"rank": _cmd_rank, "demo": _cmd_demo, "tests": _cmd_tests,
               "stability": _cmd_stability, "run": _cmd_run}[args.command]
    try:
        return command(args)
    except MultitestError as exc:
        print(f"multitest: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"multitest: error: {one_line(where + (exc.strerror or str(exc)))}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("multitest: interrupted; no output was changed", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
