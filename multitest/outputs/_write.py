"""Writing a :class:`~multitest.engine.Ranking`: every output file of a run, at once.

All files of one run are written through one output-folder transaction
(:mod:`multitest.outputs._transaction`): the folder holds the previous run or the new one,
never a mix, and ``manifest.json`` says which.  ``result.json``
(:mod:`~multitest.outputs._json`), the CSV tables (:mod:`~multitest.outputs._tables`) and,
above :data:`~multitest.outputs._json.INLINE_PAIRS_LIMIT` pairwise results, the pairwise
file (:mod:`~multitest.outputs._pairwise_file`) instead of ``pairwise.csv``.

The files are written one after the other into the transaction's staging folder, which
hashes them all at its commit.
"""

from __future__ import annotations

import os
import shutil

from ..engine._effects import pairwise_columns
from ..engine._frames import pairwise_effects_frame
from ._csv import write_csv, write_csv_parts
from ._json import is_large, write_json
from ._pairwise_file import PAIRWISE_FILE, read_pairwise, write_pairwise_file
from ._tables import stage_table_parts
from ._transaction import transaction

__all__ = ["write_outputs"]

#: The LaTeX tables (``--latex``) and the Markdown summary (``--markdown``).
LATEX_FILE, MARKDOWN_FILE = "tables.tex", "summary.md"

#: Cells per part of the tables with a row per data set: :func:`write_run_files` makes
#: and writes them part by part (at 200,000 x 100, whole, they were 1 GB of Python
#: objects); a table of up to 10,000 data sets x 100 algorithms is one part.
TABLE_CELLS = 1 << 20


def write_outputs(ranking, out_dir, *, extra=None, inputs=(), raw_csv=False,
                  all_intervals=False, latex=False, markdown=False):
    """Write ``result.json``, the CSV tables and (for large runs) the pairwise file.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    out_dir : str or os.PathLike
    extra : callable, optional
        ``extra(staging_dir)`` writes more files (figures, the report) into
        the same atomic batch.
    inputs : iterable of str, optional
        More files the run read (a settings file); with the results file and
        the cost profiles, no output may replace or remove them.
    raw_csv : bool
        Write the text of the CSV tables as it is; by default a name a
        spreadsheet would run as a formula gets a leading ``'``
        (:func:`~multitest.outputs._csv.neutralize_frame`).
    all_intervals : bool
        The Hodges–Lehmann intervals over data sets of every pair in
        ``result.json`` and ``effect_sizes.csv``; by default up to
        :data:`~multitest.engine._effects.INTERVAL_PAIRS_LIMIT` pairs (those the
        second-pass figure shows).
    latex : bool
        Also ``tables.tex`` (:meth:`~multitest.engine.Ranking.to_latex`).
    markdown : bool
        Also ``summary.md`` (:meth:`~multitest.engine.Ranking.to_markdown`).

    Returns
    -------
    list of str
        The files written, relative to ``out_dir``.

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> import os, tempfile
    >>> from multitest.outputs import write_outputs
    >>> out = os.path.join(tempfile.mkdtemp(), "out")
    >>> written = write_outputs(ranking, out)
    >>> sorted(written)[:3]
    ['costs.csv', 'effect_sizes.csv', 'final_order.csv']
    """
    with transaction(out_dir, settings=run_manifest(ranking.results.source, ranking.settings,
                                                    ranking.profile, raw_csv, all_intervals),
                     inputs=run_inputs(ranking.results.source, ranking.profile, inputs)) as staging:
        return write_run_files(ranking, staging, extra=extra, raw_csv=raw_csv,
                               all_intervals=all_intervals, latex=latex, markdown=markdown)


def run_manifest(source, settings, profile, raw_csv=False, all_intervals=False):
    """The ``settings`` of the transaction of a ``rank`` run (:func:`write_outputs`)."""
    manifest = {"command": "rank", "input": source, "settings": settings.to_dict(),
                "costs": profile.describe()}
    if raw_csv:
        manifest["raw_csv"] = True
    if all_intervals:
        manifest["all_intervals"] = True
    return manifest


def run_inputs(source, profile, inputs=()):
    """The files a ``rank`` run read, which no output may replace or remove."""
    return [source, *_profile_paths(profile), *inputs]


def write_run_files(ranking, staging, *, extra=None, raw_csv=False, pairwise_written=False,
                    all_intervals=False, latex=False, markdown=False):
    """The files of :func:`write_outputs`, into the `staging` folder of its transaction.

    `pairwise_written`: the pairwise parts are in ``staging`` already (written by the
    tasks of ``multitest rank --workers``); a small run's are listed in ``pairwise.csv``
    instead, as :func:`write_outputs` lists them.  Returns the files, relative to
    ``staging``.  `all_intervals`, `latex`, `markdown`: as in :func:`write_outputs`.
    """
    large = is_large(ranking)
    effects = None if large else pairwise_columns(ranking)
    per_part = max(1, TABLE_CELLS // (len(ranking.algorithms) + 2))
    tables = stage_table_parts(ranking, all_intervals, per_part)
    if ranking.results.has_folds and large and not pairwise_written:
        _named(write_pairwise_file)(ranking, os.path.join(staging, PAIRWISE_FILE))
    _named(_write_result)(ranking, os.path.join(staging, "result.json"), effects,
                          all_intervals)
    _write_tables(tables, staging, raw_csv)
    if ranking.results.has_folds and not large:
        pairs = (read_pairwise(os.path.join(staging, PAIRWISE_FILE))
                 if pairwise_written else None)
        frame = pairwise_effects_frame(ranking, pairs, effects)
        _named(write_csv)(frame, os.path.join(staging, "pairwise.csv"), raw=raw_csv)
    write_texts(ranking, staging, latex=latex, markdown=markdown)
    if extra is not None:
        extra(staging)
    if pairwise_written and not large:   # a small run's pairs are listed, as in one process
        shutil.rmtree(os.path.join(staging, PAIRWISE_FILE))
    return sorted(os.path.relpath(os.path.join(root, f), staging)
                  for root, _, files in os.walk(staging) for f in files)


def _write_tables(tables, staging, raw_csv):
    for name, parts in tables.items():
        _named(write_csv_parts)(parts, os.path.join(staging, name), raw=raw_csv)


def write_texts(ranking, staging, *, latex=False, markdown=False):
    """``tables.tex`` (`latex`) and ``summary.md`` (`markdown`) into `staging`."""
    for wanted, name, text in ((latex, LATEX_FILE, ranking.to_latex),
                               (markdown, MARKDOWN_FILE, ranking.to_markdown)):
        if wanted:
            _named(_write_text)(text(), os.path.join(staging, name))


def _write_text(text, path):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _write_result(ranking, path, effects, all_intervals):
    with open(path, "w", encoding="utf-8") as handle:
        write_json(ranking, handle, effects, all_intervals)


def _named(writer):
    """`writer` whose OSError names the file it writes (its second argument) when the
    system's error names none (a full disk fails a ``write``): the one-line error says
    which file could not be written."""
    def write(*args, **kwargs):
        try:
            return writer(*args, **kwargs)
        except OSError as exc:
            if exc.filename is None:
                exc.filename = args[1]
            raise
    return write


def _profile_paths(profile):
    """The YAML files a cost profile was read from (its tie-breakers and components)."""
    for level in profile.levels:
        if level.path:
            yield level.path
        for component, _ in level.weighted or ():
            yield from _profile_paths(component)
