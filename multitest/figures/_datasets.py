"""Which data sets get figures of their own, and the file names of their figures.

:func:`drawn_datasets` (``--figures-for``), :func:`figures_note` (the data sets
not drawn) and :func:`dataset_stems` (safe, unique file-name stems).
"""

from __future__ import annotations

import re

__all__ = []


def safe_filename(name):
    """A data set name usable as part of a file name on every file system."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._")
    return (text or "dataset")[:80]


def dataset_stems(ranking):
    """File-name stem of every data set (safe and unique), in data set order."""
    stems, seen = [], set()
    for r in ranking.datasets:
        stem = base = safe_filename(r.name)
        k = 2
        while stem.lower() in seen:
            stem, k = f"{base}_{k}", k + 1
        seen.add(stem.lower())
        stems.append(stem)
    return stems


def drawn_datasets(ranking, figures_for=None):
    """``[(data set result, stem)]`` of the data sets whose per-data-set figures are drawn
    (``--figures-for``, :func:`~multitest.engine._settings.figure_datasets`), in input
    order."""
    from ..engine._options import figure_datasets

    chosen = figure_datasets([r.name for r in ranking.datasets],
                             [r.has_overrides for r in ranking.datasets],
                             figures_for)
    stems = dataset_stems(ranking)
    return [(ranking.datasets[k], stems[k]) for k in chosen]


def figures_note(ranking, figures_for=None):
    """The note naming the data sets whose per-data-set figures are not drawn, or None.

    ``"per-data-set figures drawn for 50 of 60 data sets; not drawn: a, b, ...
    (--figures-for NAMES or all)"``.
    """
    drawn = {r.name for r, _ in drawn_datasets(ranking, figures_for)}
    rest = [r.name for r in ranking.datasets if r.name not in drawn]
    if not rest:
        return None
    return (f"per-data-set figures drawn for {len(drawn)} of {len(ranking.datasets)} data "
            f"sets; not drawn: {', '.join(rest)} (--figures-for NAMES or all)")
