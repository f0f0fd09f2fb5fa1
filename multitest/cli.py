"""The ``multitest`` command line.

``multitest rank``, ``multitest stability``, ``multitest explain``, ``multitest demo``,
``multitest tests``, ``multitest run``.  Errors in the input are printed as one line and
give exit status 2.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import sys
import threading
import time

from . import example_path
from ._cli_parser import build_parser, option_of
from ._errors import MultitestError, one_line
from ._format import escape_terminal

__all__ = ["main"]

#: Every key of a settings file that is not an option of the stability analysis itself
#: (those have their own entries in its manifest).
#: Where ``rank`` runs, not what it computes (not among a stability run's settings).
_CLUSTER_KEYS = ("workers", "scheduler")


def _analysis_keys():
    from .engine._options import OPTIONS

    return tuple(dict.fromkeys(o.key for o in OPTIONS if o.role != "stability"
                               and o.key not in _CLUSTER_KEYS))


def _say(text="", *, error=False):
    """Print ``text`` on standard output (standard error with ``error``), control
    characters escaped: names from the inputs reach the terminal only as visible text."""
    print(escape_terminal(text), file=sys.stderr if error else sys.stdout)


def _config(path, command):
    """The settings of a --config file, each key an option of `command`, its value checked
    (:func:`multitest.engine._settings.read_settings_file`), and the file's folder."""
    from .engine._options import read_settings_file

    return read_settings_file(path, command), os.path.dirname(os.path.abspath(path))


def _settings(args, command):
    """Merge command-line options over the --config file; None: not given.

    The input and output options are checked here; the analysis options by
    :func:`multitest.rank` and ``stability()`` (one check per option).
    """
    from .engine._options import options_of

    config, base = _config(args.config, command) if args.config else ({}, None)
    merged = {}
    for option in options_of(command):
        given = getattr(args, option.key, None)
        value = config.get(option.key) if given is None else given
        if given is None and option.path and base is not None and isinstance(value, str):
            candidate = os.path.join(base, value)
            value = candidate if os.path.exists(candidate) or option.key == "out" else value
        merged[option.key] = (option.validate(value) if option.role in ("command", "selection",
                                                                         "reading")
                              else value)
    return merged


def _keywords(merged, command, roles):
    """The given options of `command` with `roles`, as keywords of rank() or stability()
    (of load_results() for the role 'reading')."""
    from .engine._options import options_of

    return {o.name: merged[o.key] for o in options_of(command, roles)
            if merged[o.key] is not None}


def _profile(settings):
    from .inputs._cost_tables import as_profile
    from .inputs._costs import profile_from_order

    costs, order = settings["costs"], settings["order"]
    if (costs is None) == (order is None):
        raise MultitestError("give exactly one prior preference: --costs PROFILE or "
                             "--order A,B,...")
    results = settings.get("results")
    # column:NAME reads the results with their key columns (--dataset-column...)
    keys = {"dataset": settings["dataset_column"] or "dataset",
            "algorithm": settings["algorithm_column"] or "algorithm"}
    profile = (as_profile(costs, results, **keys) if costs is not None else
               profile_from_order(order))
    if settings["secondary_costs"] is not None:
        profile = dataclasses.replace(
            profile, secondary=as_profile(settings["secondary_costs"], results, **keys))
    return profile


def _figure_writer(ranking, settings, notes=None):
    """Callback writing the figures (and the report) into the staging directory, as the
    command's `settings` (``format``, ``report``, ``dpi``, ``latex``, ``captions``,
    ``figures_for``) ask.

    DOT sources are always written.  Without --format or --report, above
    FIGURE_PAIRS_LIMIT pairwise results only the overall figures are written:
    the per-data-set ones grow as S x L^2 (about 0.2 MB per data set at L = 100).
    """
    from .figures._datasets import figures_note
    from .figures._write import FIGURE_PAIRS_LIMIT
    from .outputs._json import is_large

    formats, report, latex = settings["format"], settings["report"], settings["latex"]
    captions, figures_for = _captions(settings), settings["figures_for"]
    note = figures_note(ranking, figures_for)    # checks the names before anything is written

    n_pairs = ranking.table.statistic.size
    per_dataset = bool(formats) or bool(report) or not (
        is_large(ranking) or n_pairs > FIGURE_PAIRS_LIMIT)
    if note and per_dataset and notes is not None:
        notes.append(note)      # said once the command succeeded

    def write(staging):
        from .figures._write import figures, write_figures

        # built once, for the report too
        graphs = figures(ranking, per_dataset=per_dataset, captions=captions,
                         figures_for=figures_for)
        warning = write_figures(ranking, staging, formats=formats or [],
                                per_dataset=per_dataset, dpi=settings["dpi"], graphs=graphs)
        if latex or captions != "inside":
            from .figures._drawn import write_beside_figures

            write_beside_figures(ranking, staging, graphs=graphs, captions=captions,
                                 latex=latex, per_dataset=per_dataset, figures_for=figures_for)
        if warning and formats:
            _say(f"multitest: warning: {warning}", error=True)
        if not per_dataset:
            _say(f"multitest: note: {n_pairs} pairwise results: the per-data-set figures "
                 "(override_*, trace_*) are not written; ask for them with --format",
                 error=True)
        if report:
            from .figures._report import write_report

            write_report(ranking, os.path.join(staging, "report.html"), graphs=graphs,
                         captions=captions, figures_for=figures_for)
    return write


def _captions(settings):
    """--captions, or its default."""
    return settings["captions"] or option_of("rank", "captions").default


#: The output options of ``multitest rank`` that ``demo`` also takes, and their defaults.
_OUTPUT_DEFAULTS = {"format": None, "report": False, "dpi": None, "raw_csv": False,
                    "all_intervals": False, "latex": False, "markdown": False,
                    "captions": None, "figures_for": None}


def _write(ranking, settings, inputs=(), notes=None):
    """Every output of `ranking` into ``settings["out"]``, as the command's `settings` ask."""
    from .outputs._write import write_outputs

    return write_outputs(ranking, settings["out"], extra=_figure_writer(ranking, settings, notes),
                         inputs=inputs, raw_csv=bool(settings["raw_csv"]),
                         all_intervals=bool(settings["all_intervals"]),
                         latex=bool(settings["latex"]), markdown=bool(settings["markdown"]))


def _cluster_writer(ranking, settings, notes=None):
    """The figures, the report and the texts of ``rank --workers`` (written after the
    tables, into the staging folder)."""
    figures = _figure_writer(ranking, settings, notes)

    def write(staging):
        from .outputs._write import write_texts

        figures(staging)
        write_texts(ranking, staging, latex=bool(settings["latex"]),
                    markdown=bool(settings["markdown"]))
    return write


def _print_summary(ranking, out=None, seconds=None, positions=None):
    """The summary; `positions`: explain this many top positions (None: the default)."""
    from .outputs._summary import WHY_POSITIONS, summary_text

    _say(summary_text(ranking, out=out, positions=positions or WHY_POSITIONS))
    if seconds is not None:
        _say(f"\n(ranked in {seconds:.2f} s)")
    if out is not None:
        _say(f"outputs written to {out}")


def _needs_out(settings, command):
    """--format and --report write into --out: without it they are an error, not a no-op."""
    given = [flag for key, flag in (("format", "--format"), ("report", "--report"),
                                    ("latex", "--latex"), ("markdown", "--markdown"))
             if settings.get(key)]
    if given and not settings.get("out"):
        verb = "needs" if len(given) == 1 else "need"
        raise MultitestError(f"{' and '.join(given)} {verb} --out DIR: figures and reports are "
                             f"written into the output folder (multitest {command} ... "
                             f"--out DIR {given[0]})")


def _results_input(args, settings, notes):
    """The results file, and an experiment folder of `multitest run` resolved (DIR/results.csv);
    what the reading found to say is added to `notes` (printed once the command succeeds)."""
    from .inputs._results import input_parts

    settings["results"] = args.results
    if os.path.isdir(args.results) and not input_parts(args.results):   # else partitioned
        from .inputs._cost_tables import experiment_folder

        settings["results"], settings["costs"], found = experiment_folder(args.results,
                                                                          settings["costs"])
        if settings.get("profiles"):   # stability: the same names as --costs
            from .inputs._cost_tables import experiment_costs

            settings["profiles"] = [experiment_costs(args.results, p) for p in
                                    option_of("stability", "profiles").validate(
                                        settings["profiles"])]
        notes.extend(found)
    return settings["results"]


def _say_notes(notes):
    """The notes of the reading, on standard error: after the command succeeded, so that a
    failure is one line."""
    for note in notes:
        _say(f"multitest: note: {note}", error=True)


def _load(args, settings, notes):
    from .inputs._automl import is_automl_file
    from .inputs._results import load_results

    path = _results_input(args, settings, notes)
    results = load_results(path, **_keywords(settings, args.command, ("reading",)),
                           allow_missing=settings.get("missing") not in (None, "error"))
    if settings["costs"] is None and settings["order"] is None and is_automl_file(path):
        settings["costs"] = "column:duration"
        notes.append("the AutoML benchmark layout: costs are the durations "
                     "(--costs column:duration)")
    return results


def _cmd_rank(args):
    from .engine._ranking import rank

    settings = _settings(args, "rank")
    _needs_out(settings, "rank")
    if settings["workers"] is not None or settings["scheduler"] is not None:
        return _rank_on_cluster(args, settings)
    start = time.perf_counter()
    notes = []
    results = _load(args, settings, notes)
    ranking = rank(results, _profile(settings),
                   **_keywords(settings, "rank", ("setting", "selection")))
    elapsed = time.perf_counter() - start
    if settings["out"]:
        _write(ranking, settings, inputs=[args.results] + ([args.config] if args.config else []),
               notes=notes)
    _say_notes(notes)
    _print_summary(ranking, settings["out"], elapsed)
    return 0


def _rank_on_cluster(args, settings):
    """``multitest rank --workers N`` / ``--scheduler ADDRESS`` (:mod:`multitest.run`)."""
    from .engine._options import options_of
    from .engine._settings import Settings
    from .run._rank_cluster import rank_on_cluster

    if settings["workers"] is not None and settings["scheduler"] is not None:
        raise MultitestError("give --workers or --scheduler, not both")
    if not settings["out"]:
        raise MultitestError("--workers and --scheduler write the run into a folder: give --out")
    selection = [o.cli_flags[-1] for o in options_of("rank", ("selection",)) if settings[o.key]]
    if selection:
        raise MultitestError(f"{selection[0]}: not with --workers/--scheduler (rank a folder "
                             "holding only the data sets and algorithms to rank)")
    start = time.perf_counter()
    notes = []
    _results_input(args, settings, notes)
    load_options = _keywords(settings, "rank", ("reading",))
    ranking = rank_on_cluster(
        settings["results"], _profile(settings), settings["out"],
        settings=Settings.from_options(**_keywords(settings, "rank", ("setting",))),
        workers=settings["workers"], scheduler=settings["scheduler"], load_options=load_options,
        extra=lambda r: _cluster_writer(r, settings, notes),
        inputs=[args.config] if args.config else [], raw_csv=settings["raw_csv"],
        all_intervals=settings["all_intervals"])
    _say_notes(notes)
    _print_summary(ranking, settings["out"], time.perf_counter() - start)
    return 0


def _cmd_stability(args):
    from .engine._stability import stability, stability_text, stability_to_dict
    from .outputs._csv import neutralize_frame
    from .outputs._transaction import transaction
    from .outputs._write import _profile_paths

    settings = _settings(args, "stability")
    _needs_out(settings, "stability")
    notes = []
    results = _load(args, settings, notes)
    start = time.perf_counter()
    profile = _profile(settings)
    result = stability(results, profile,
                       **_keywords(settings, "stability", ("stability", "setting", "selection")))
    elapsed = time.perf_counter() - start
    if settings["out"]:
        alphas = settings["alphas"]
        manifest = {"command": "stability", "input": args.results,
                    "bootstrap": result.bootstrap, "seed": result.seed,
                    "alphas": (option_of("stability", "alphas").default_text if alphas is None
                               else alphas),
                    "profiles": settings["profiles"],
                    "settings": dict({k: settings.get(k) for k in _analysis_keys()
                                      if k not in ("out", "raw_csv", "all_intervals")},
                                     results=settings["results"])}
        if settings["raw_csv"]:
            manifest["raw_csv"] = True
        inputs = [args.results, settings["results"], args.config, *_profile_paths(profile),
                  *(option_of("stability", "profiles").validate(settings["profiles"]) or ())]
        with transaction(settings["out"], settings=manifest,
                         inputs=[p for p in inputs if p]) as staging:
            with open(os.path.join(staging, "stability.json"), "w", encoding="utf-8") as f:
                json.dump(stability_to_dict(result), f, indent=1, allow_nan=False)
            positions = result.position_frame()
            if not settings["raw_csv"]:
                positions = neutralize_frame(positions)
            positions.to_csv(os.path.join(staging, "stability_positions.csv"))
            if settings["report"]:
                from .figures._stability import write_stability_report

                write_stability_report(result, os.path.join(staging, "stability.html"))
    _say_notes(notes)
    _say(stability_text(result))
    _say(f"\n(analysed in {elapsed:.2f} s)")
    if settings["out"]:
        _say(f"outputs written to {settings['out']}")
    return 0


def _cmd_demo(args):
    from .engine._ranking import rank
    from .inputs._results import load_results

    _needs_out(vars(args), "demo")
    results = load_results(example_path())
    for name in ("training_time", "space_complexity"):
        start = time.perf_counter()
        ranking = rank(results, name)
        elapsed = time.perf_counter() - start
        _say(f"=== bundled report data, cost profile: {name} ===")
        out = os.path.join(args.out, name) if args.out else None
        if out and os.path.islink(out):   # DIR is the user's; its entries are ours
            from .outputs._lock import link_error

            raise link_error(out)
        if out:
            _write(ranking, dict(_OUTPUT_DEFAULTS, out=out, report=args.report,
                                 raw_csv=args.raw_csv,
                                 format=option_of("rank", "format").validate(args.format),
                                 dpi=option_of("rank", "dpi").validate(args.dpi)))
        _print_summary(ranking, out, elapsed, positions=len(ranking.final_order))
        _say()
    return 0


def _cmd_explain(args):
    from .outputs._json import read_explanations

    _say("\n".join(read_explanations(args.out)))
    return 0


def _cmd_tests(args):
    from .stats._registry import DEFAULT_TEST, available_tests

    registry = available_tests()
    width = max(map(len, registry))
    for name, test in registry.items():
        marker = " (default)" if name == DEFAULT_TEST else ""
        _say(f"{name:<{width}}  {test.description}{marker}")
    return 0


def _cmd_run(args):
    from .run._runner import run_experiment

    try:
        result = run_experiment(args.experiment, args.out, workers=args.workers,
                                scheduler=args.scheduler, timeout=args.timeout,
                                retry_failed=args.retry_failed, raw_csv=args.raw_csv)
    except KeyboardInterrupt as stop:
        word, status = _stopped(stop)
        with contextlib.suppress(OSError):    # a terminal that hung up takes no line
            _say(f"multitest: {word}; the folds finished so far are kept in the store: run "
                 "the same command again to resume", error=True)
        return status
    _say(result.summary())
    return 0


#: Whether :func:`main` runs a real command line (not a call from Python).
_COMMAND_LINE = False


#: Signals that stop a command as Ctrl-C does, with the word of its line: SIGTERM (what
#: ``timeout``, ``kill`` and service managers send) and SIGHUP (its terminal closed).
_STOP_SIGNALS = {signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}


class _Terminated(KeyboardInterrupt):
    """A stop signal received by the process of a command line
    (:func:`_terminate_as_interrupt`); ``signum``: which."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _stopped(stop):
    """The word of a stopped command's line and its exit status: 128 + the signal's number,
    as a shell reports a process that signal ended."""
    if isinstance(stop, _Terminated):
        return _STOP_SIGNALS[stop.signum], 128 + stop.signum
    return "interrupted", 128 + signal.SIGINT


def _terminate(signum, frame):
    for number in _STOP_SIGNALS:    # a second one ends the process at once
        signal.signal(number, signal.SIG_DFL)
    raise _Terminated(signal.Signals(signum))


def _default_termination_in_child():
    """A process forked from the command's (a fit process, a local worker)
    ends on a stop signal at once, as a process does by default."""
    for number in _STOP_SIGNALS:
        if signal.getsignal(number) is _terminate:
            with contextlib.suppress(ValueError):
                signal.signal(number, signal.SIG_DFL)


@contextlib.contextmanager
def _terminate_as_interrupt():
    """On a real command line, SIGTERM and SIGHUP stop the command as Ctrl-C does: its
    outputs as they were (a folder it created removed again, a run's stored folds kept),
    one line, exit status 128 + the signal's number (143, 129), instead of an end where it
    stands with a staging folder left for the next writer to remove.  A signal ignored when
    the command started (``nohup``) stays ignored."""
    if not _COMMAND_LINE or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in _STOP_SIGNALS}
    for number, handler in previous.items():
        if handler is signal.SIG_DFL:
            signal.signal(number, _terminate)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


os.register_at_fork(after_in_child=_default_termination_in_child)


def main(argv=None):
    """Entry point of the ``multitest`` command."""
    global _COMMAND_LINE
    _COMMAND_LINE = argv is None
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(run_only=argv[:1] == ["run"])
    args = parser.parse_args(argv)
    if args.command is None:      # bare `multitest`: the help, not an error
        parser.print_help()
        return 0
    from ._progress import is_quiet, set_quiet

    was_quiet = set_quiet(args.quiet or is_quiet())   # --quiet for this call only
    command = {"rank": _cmd_rank, "demo": _cmd_demo, "tests": _cmd_tests,
               "explain": _cmd_explain,
               "stability": _cmd_stability, "run": _cmd_run}[args.command]
    try:
        with _terminate_as_interrupt():
            return command(args)
    except MultitestError as exc:
        _say(f"multitest: error: {one_line(exc)}", error=True)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"multitest: error: {one_line(where + (exc.strerror or str(exc)))}", error=True)
        return 2
    except KeyboardInterrupt as stop:
        word, status = _stopped(stop)
        with contextlib.suppress(OSError):    # a terminal that hung up takes no line
            _say(f"multitest: {word}; no output was changed", error=True)
        return status
    finally:
        set_quiet(was_quiet)


if __name__ == "__main__":
    sys.exit(main())
