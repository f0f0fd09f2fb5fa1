"""Writing the figures drawn without a layout engine, the TikZ diagrams and ``captions.md``.

:func:`write_drawn_figures` writes the error–cost pictures
(:mod:`multitest.figures._pareto`) and the effect-size figures
(:mod:`multitest.figures._bayes`) in every format, the CD diagrams as TikZ
(:mod:`multitest.figures._tikz`) and, with ``captions='none'``, the captions
taken out of every figure (:data:`CAPTIONS_FILE`).
"""

from __future__ import annotations

import os
import re

from .._files import write_atomically
from ._bayes import bayes_figures
from ._cd_diagrams import check_captions
from ._pareto import pareto_figures
from ._tikz import write_cd_tikz
from ._write import figures, graph_captions, write_svg_files

__all__ = ["write_drawn_figures", "captions_markdown", "CAPTIONS_FILE"]


def write_drawn_figures(ranking, directory, formats=("svg",), *, graphs=None, dpi=None,
                        captions="inside", latex=False, per_dataset=True,
                        figures_for=None):
    """Write the figures drawn without a layout engine, and what goes beside the figures.

    The error–cost pictures (``pareto.svg``, ``pareto_<data set>.svg``) and the
    effect-size figures (:func:`~multitest.figures.bayes_figures`) in every
    format; with ``latex`` the CD diagrams as TikZ (``cd.tex``,
    ``cd_errors.tex``); with ``captions='none'`` ``captions.md``, the title and
    caption of every figure drawn without them.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    directory : str
    formats : sequence of {'svg', 'png', 'pdf'}
    graphs : dict, optional
        ``figures(ranking, captions=captions)`` when built already (their captions
        go into ``captions.md``).
    dpi : int, optional
    captions : {'inside', 'none'}
    latex : bool
    per_dataset : bool
        Also the pictures of each data set.
    figures_for : 'all' or sequence of str, optional
        The data sets whose pictures are drawn
        (:func:`~multitest.figures._write.drawn_datasets`).

    Returns
    -------
    list of str
        The file names written.
    """
    check_captions(captions)
    pareto = pareto_figures(ranking, captions, per_dataset=per_dataset,
                            figures_for=figures_for)
    bayes = bayes_figures(ranking, captions, figures_for)
    svgs = {stem: figure[0] for stem, figure in {**pareto, **bayes}.items()}
    names = write_svg_files(directory, svgs, formats, dpi=dpi)
    if latex:
        names += write_cd_tikz(ranking, directory, captions)
    if captions == "none":
        beside = graph_captions(graphs if graphs is not None else
                                figures(ranking, per_dataset=per_dataset, captions=captions,
                                        figures_for=figures_for))
        beside.update({stem: [title, *caption] for stem, (_, title, caption) in
                       {**pareto, **bayes}.items()})
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
