"""Writing a :class:`~multitest.engine.Ranking`: every output file of a run, at once.

All files of one run are written through one output-folder transaction
(:mod:`multitest.outputs._transaction`): the folder holds the previous run or the new one,
never a mix, and ``manifest.json`` says which.  ``result.json``
(:mod:`~multitest.outputs._json`), the CSV tables (:mod:`~multitest.outputs._tables`) and,
above :data:`~multitest.outputs.INLINE_PAIRS_LIMIT` pairwise results, the pairwise
file (:mod:`~multitest.outputs._pairwise_file`) instead of ``pairwise.csv``.
"""

from __future__ import annotations

import os

from ..engine._effects import pairwise_columns
from ._csv import write_csv
from ._json import is_large, write_json
from ._pairwise_file import PAIRWISE_FILE, write_pairwise_file
from ._tables import pairwise_frame, stage_tables
from ._transaction import transaction

__all__ = ["write_outputs"]


def write_outputs(ranking, out_dir, *, extra=None, inputs=(), raw_csv=False,
                  all_intervals=False):
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
        (:func:`~multitest.outputs.neutralize_frame`).
    all_intervals : bool
        The Hodges–Lehmann intervals over data sets of every pair in
        ``result.json`` and ``effect_sizes.csv``; by default up to
        :data:`~multitest.engine.INTERVAL_PAIRS_LIMIT` pairs (those the
        second-pass figure shows).

    Returns
    -------
    list of str
        The files written, relative to ``out_dir``.
    """
    source = ranking.results.source
    manifest = {"command": "rank", "input": source, "settings": ranking.settings.to_dict(),
                "costs": ranking.profile.describe()}
    if raw_csv:
        manifest["raw_csv"] = True
    if all_intervals:
        manifest["all_intervals"] = True
    inputs = [source, *_profile_paths(ranking.profile), *inputs]
    with transaction(out_dir, settings=manifest, inputs=inputs) as staging:
        large = is_large(ranking)
        effects = None if large else pairwise_columns(ranking)
        with open(os.path.join(staging, "result.json"), "w", encoding="utf-8") as handle:
            write_json(ranking, handle, effects, all_intervals)
        for name, table in stage_tables(ranking, all_intervals).items():
            write_csv(table, os.path.join(staging, name), raw=raw_csv)
        if ranking.results.has_folds:
            if large:
                write_pairwise_file(ranking, os.path.join(staging, PAIRWISE_FILE))
            else:
                write_csv(pairwise_frame(ranking).assign(**effects),
                          os.path.join(staging, "pairwise.csv"), raw=raw_csv)
        if extra is not None:
            extra(staging)
        written = sorted(os.path.relpath(os.path.join(root, f), staging)
                         for root, _, files in os.walk(staging) for f in files)
    return written


def _profile_paths(profile):
    """The YAML files a cost profile was read from (its tie-breakers and components)."""
    for level in profile.levels:
        if level.path:
            yield level.path
        for component, _ in level.weighted or ():
            yield from _profile_paths(component)
