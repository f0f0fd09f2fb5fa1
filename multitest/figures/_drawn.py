"""What goes beside the figures: the CD diagrams as TikZ and ``captions.md``.

:func:`write_beside_figures` writes the CD diagrams as TikZ
(:mod:`multitest.figures._tikz`) and, with ``captions='none'``, the captions
taken out of every figure (:data:`CAPTIONS_FILE`).
"""

from __future__ import annotations

import os
import re

from .._files import write_atomically
from ._cd_diagrams import check_captions
from ._tikz import write_cd_tikz
from ._write import figures, graph_captions

__all__ = []


def write_beside_figures(ranking, directory, *, graphs=None, captions="inside", latex=False,
                         per_dataset=True, figures_for=None):
    """Write what goes beside the figures: with ``latex`` the CD diagrams as TikZ
    (``cd.tex``, ``cd_errors.tex``); with ``captions='none'`` ``captions.md``, the title
    and caption of every figure drawn without them.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    directory : str
    graphs : dict, optional
        ``figures(ranking, captions=captions)`` when built already (their captions
        go into ``captions.md``).
    captions : {'inside', 'none'}
    latex : bool
    per_dataset : bool
        Also the figures of each data set.
    figures_for : 'all' or sequence of str, optional
        The data sets whose figures are drawn
        (:func:`~multitest.figures._datasets.drawn_datasets`).

    Returns
    -------
    list of str
        The file names written.
    """
    check_captions(captions)
    names = write_cd_tikz(ranking, directory, captions) if latex else []
    if captions == "none":
        beside = graph_captions(graphs if graphs is not None else
                                figures(ranking, per_dataset=per_dataset, captions=captions,
                                        figures_for=figures_for))
        write_atomically(os.path.join(directory, CAPTIONS_FILE), captions_markdown(beside))
        names.append(CAPTIONS_FILE)
    return names


#: The file of the captions written beside the figures (``captions='none'``).
CAPTIONS_FILE = "captions.md"


def captions_markdown(captions):
    """``captions.md``: a section per figure (its file stem), its caption lines as text.

    Examples
    --------
    >>> print(captions_markdown({"cd": ["Average MultiTest positions, Nemenyi test", "a_b"]}))
    # Figure captions
    <BLANKLINE>
    ## cd
    <BLANKLINE>
    Average MultiTest positions, Nemenyi test
    <BLANKLINE>
    a\\_b
    <BLANKLINE>
    """
    parts = ["# Figure captions", ""]
    for stem, lines in captions.items():
        parts += [f"## {stem}", ""]
        for line in lines:
            parts += [_markdown_text(line), ""]
    return "\n".join(parts)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|])")


def _markdown_text(text):
    """``text`` with the characters CommonMark would read as markup escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
