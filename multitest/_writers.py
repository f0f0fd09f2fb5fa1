"""The writers of :mod:`multitest` from Python, sharing one output folder.

:func:`write_figures` and :func:`write_report` write through an output-folder transaction
that adds (:func:`multitest.outputs.transaction` with ``add=True``): their files are
listed in the folder's ``manifest.json`` beside those of :func:`multitest.write_outputs`
(or of a ``multitest rank --out`` run), so that a later run into the same folder replaces
them as it replaces its own, and no file of theirs is left behind.  The functions of
:mod:`multitest.figures` of the same names write into a folder as it is (the CLI's
staging folder).  This module sits above the outputs and the figures, which do not
import each other.
"""

from __future__ import annotations

import os

from .figures import _report, _write
from .outputs._transaction import transaction
from .outputs._write import run_inputs

__all__ = ["write_figures", "write_report"]


def write_figures(ranking, out_dir, formats=("svg",), **options):
    """Write every figure of ``ranking`` into ``out_dir``, added to the folder's run.

    As :func:`multitest.figures._write.write_figures` (the same options), through a transaction:
    the figures appear at once, listed in ``out_dir/manifest.json``; a later
    ``multitest rank --out out_dir`` replaces them.

    Returns
    -------
    str or None
        A one-line warning when images could not be made, else None.

    Examples
    --------
    >>> import tempfile, multitest
    >>> ranking = multitest.rank(multitest.example_results(), "training_time",
    ...                          datasets=["optdigits", "pendigits"])
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = multitest.write_figures(ranking, out, formats=())
    ...     "cd.dot" in multitest.outputs.read_run(out).files
    True
    """
    with _adding(ranking, out_dir, "write_figures") as staging:
        return _write.write_figures(ranking, staging, formats, **options)


def write_report(ranking, path, **options):
    """Write the HTML report of ``ranking`` to ``path``, added to its folder's run.

    As :func:`multitest.figures._report.write_report`, through a transaction of the folder of
    ``path``: the report (and its data-set pages) is listed in its ``manifest.json``.

    Returns
    -------
    str
        The path written.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    with _adding(ranking, folder, "write_report") as staging:
        _report.write_report(ranking, os.path.join(staging, os.path.basename(path)),
                             **options)
    return path


def _adding(ranking, out, writer):
    return transaction(out, settings={"command": writer}, add=True,
                       inputs=run_inputs(ranking.results.source, ranking.profile))
