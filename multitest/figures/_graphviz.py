"""Running Graphviz ``dot``: DOT sources to images, several processes at once, and a cache.

:func:`draw_sources` writes DOT files into a folder and draws each in every
format asked, one ``dot`` process per file (Graphviz keeps state from one
graph to the next in one process: the ``layout=neato`` of the CD diagram would
stay for the graphs after it), several processes at once.
:func:`render_svgs` returns the SVG text of DOT sources.  Both keep the SVG
they make in an :class:`SvgCache`, so that the report reuses the images that
:func:`~multitest.figures._write.write_figures` drew in the same process.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from .._errors import MultitestError
from .._progress import progress
from .._cpus import usable_cpus

__all__ = []

#: Image formats :func:`draw_sources` accepts (those of a standard Graphviz build).
FORMATS = ("svg", "png", "pdf")

_MISSING_DOT = "Graphviz 'dot' not found: wrote DOT sources only"

class SvgCache:
    """SVG text of DOT sources already drawn, so that drawing one again costs nothing.

    Keyed by the SHA-256 of the DOT text.  Bounded by the characters it holds: beyond
    ``max_chars`` the entries stored first are dropped (the newest entry is always kept).

    Parameters
    ----------
    max_chars : int
        Characters of SVG text kept at most.

    Examples
    --------
    >>> cache = SvgCache(max_chars=10)
    >>> cache.remember("digraph {a}", "<svg>a</svg>")
    >>> cache.get("digraph {a}"), cache.get("digraph {b}")
    ('<svg>a</svg>', None)
    >>> cache.remember("digraph {b}", "<svg>b</svg>")   # over the bound: {a} goes
    >>> len(cache), cache.get("digraph {a}")
    (1, None)
    """

    def __init__(self, max_chars=400_000_000):
        self.max_chars = max_chars
        self._svgs = OrderedDict()
        self._chars = 0

    def __len__(self):
        return len(self._svgs)

    def __contains__(self, source):
        """Whether ``source`` was drawn."""
        return _key(source) in self._svgs

    def get(self, source):
        """The SVG text of the DOT text ``source``, or None when it was not drawn."""
        return self._svgs.get(_key(source))

    def remember(self, source, svg):
        """Keep ``svg`` as the drawing of ``source``; drop the oldest entries beyond the bound."""
        key = _key(source)
        old = self._svgs.pop(key, None)
        self._chars += len(svg) - (len(old) if old is not None else 0)
        self._svgs[key] = svg
        while self._chars > self.max_chars and len(self._svgs) > 1:
            self._chars -= len(self._svgs.popitem(last=False)[1])


#: The cache of this process, shared by every function of this module.
_SVG_CACHE = SvgCache()


def _key(source):
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def dot_available():
    """Whether the Graphviz ``dot`` program is on the path."""
    return shutil.which("dot") is not None


def check_formats(formats):
    """``formats`` in lower case without repeats; a :class:`MultitestError` for an unknown one."""
    formats = [f.lower() for f in formats]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise MultitestError(f"`formats`: unknown format {', '.join(bad)}; formats are "
                             f"{', '.join(FORMATS)}")
    return list(dict.fromkeys(formats))


def draw_sources(folder, sources, formats, dpi=None):
    """Write ``<stem>.dot`` of every source into ``folder`` and, with ``dot``, the images
    (``dot`` draws every one, in every format).

    Parameters
    ----------
    folder : str
        An existing folder.
    sources : dict
        ``{file stem: DOT text}``.
    formats : list of str
        Checked formats (:func:`check_formats`), possibly none.
    dpi : int, optional
        Resolution of the PNG images (dots per inch); default: Graphviz's.

    Returns
    -------
    str or None
        A one-line warning when images could not be made, else None.
    """
    _write_dot_files(folder, sources)
    if not formats:
        return None
    if not dot_available():
        return _MISSING_DOT
    _, failures = _draw(folder, sources, formats, dpi)
    if failures:
        f, message = failures[0]
        return (f"Graphviz 'dot' failed on {len(failures)} figure(s), e.g. {f}: {message}")
    return None


def render_svgs(sources):
    """SVG text of DOT sources, rendered in parallel (one ``dot`` process a CPU); those
    in the cache of this process are not drawn again.

    Parameters
    ----------
    sources : dict
        ``{key: DOT text}``.

    Returns
    -------
    dict or None
        ``{key: SVG text or None when dot failed}``; None when ``dot`` is
        not installed.
    """
    if not dot_available():
        return None
    out = {key: _SVG_CACHE.get(source) for key, source in sources.items()}
    missing = [key for key, svg in out.items() if svg is None]
    if missing:
        with tempfile.TemporaryDirectory(prefix="multitest-dot-") as folder:
            stems = {f"g{k}": key for k, key in enumerate(missing)}
            drawn = {stem: sources[key] for stem, key in stems.items()}
            _write_dot_files(folder, drawn)
            svgs, _ = _draw(folder, drawn, ["svg"])
            for stem, key in stems.items():
                out[key] = svgs.get(stem)
    return out


def cached_svg(source):
    """The SVG text of the DOT text ``source`` if drawn already (the :class:`SvgCache` of
    this process), else None; runs no ``dot``."""
    return _SVG_CACHE.get(source)


def to_svg(graph):
    """SVG text of one graph (:mod:`graphviz` object or DOT text), or None without ``dot``."""
    source = graph if isinstance(graph, str) else graph.source
    svgs = render_svgs({"g": source})
    return None if svgs is None else svgs["g"]


_SVG_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_NAMESPACES = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')
_COMMENTS = re.compile(r"<!--.*?-->", re.S)


def inline_svg(svg):
    """SVG text ready to be inlined in HTML: no prolog, comments or namespace URLs.

    Examples
    --------
    >>> inline_svg('<?xml version="1.0"?><!-- dot --><svg xmlns="http://www.w3.org/2000/svg">'
    ...            '<g/></svg>')
    '<svg><g/></svg>'
    """
    svg = _SVG_PROLOG.sub("", svg, count=1)
    if "<!--" in svg:
        svg = _COMMENTS.sub("", svg)
    root = svg.find(">") + 1     # the namespaces are declared on the root element
    if "xmlns" in svg[root:]:
        return _NAMESPACES.sub("", svg).strip()
    return (_NAMESPACES.sub("", svg[:root]) + svg[root:]).strip()


def _run_dot(folder, file, formats, dpi=None):
    """Render one file in ``folder`` with ``dot`` processes of its own; None or an error.

    With ``dpi`` the PNG image is drawn by a process of its own: the resolution
    would scale the SVG and PDF images too.
    """
    dot = shutil.which("dot") or "dot"
    calls = [[f"-T{f}" for f in formats]]
    if dpi is not None and "png" in formats:
        calls = [[f"-T{f}" for f in formats if f != "png"], [f"-Gdpi={int(dpi)}", "-Tpng"]]
    for flags in calls:
        if not flags:
            continue
        done = subprocess.run([dot, *flags, "-O", file], cwd=folder, capture_output=True,
                              text=True)
        if done.returncode != 0:
            return (file, (done.stderr.strip().splitlines() or ["failed"])[-1])
    return None


def _render_folder(folder, stems, formats, dpi=None):
    """Run ``dot`` on ``folder/<stem>.dot``, writing ``<stem>.<format>``; return failures."""
    files = [f"{stem}.dot" for stem in stems]
    # Bigger graphs first so that the workers end together.
    sizes = {f: os.path.getsize(os.path.join(folder, f)) for f in files}
    files.sort(key=lambda f: -sizes[f])
    jobs = max(1, min(usable_cpus(), len(files)))
    failures = []
    with progress(len(files), "drawing figures") as bar, \
            ThreadPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(lambda f: _run_dot(folder, f, formats, dpi), files):
            bar.update(1, failed=result is not None)
            if result is not None:
                failures.append(result)
    failed = {f for f, _ in failures}
    for f in files:
        if f in failed:
            continue
        for fmt in formats:
            os.replace(os.path.join(folder, f"{f}.{fmt}"),
                       os.path.join(folder, f"{f[:-4]}.{fmt}"))
    return failures


def _write_dot_files(folder, sources):
    for stem, source in sources.items():
        with open(os.path.join(folder, f"{stem}.dot"), "w", encoding="utf-8") as handle:
            handle.write(source)


def dot_sources(folder):
    """The DOT source of every figure written into ``folder`` (its ``<stem>.dot``
    files), by file stem.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _write_dot_files(folder, {"trace_a": "digraph a {\\n}\\n"})
    >>> dot_sources(folder)
    {'trace_a': 'digraph a {\\n}\\n'}
    """
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".dot"):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                out[name[:-4]] = handle.read()
    return out


def _draw(folder, sources, formats, dpi=None):
    """Draw every source in ``formats`` by ``dot`` from ``folder/<stem>.dot``:
    ``({stem: SVG text}, failures)``.  Every SVG image is kept in the cache."""
    svgs = {}
    failures = _render_folder(folder, list(sources), formats, dpi)
    failed = {f[:-4] for f, _ in failures}
    for stem, source in sources.items():
        if "svg" in formats and stem not in failed:
            with open(os.path.join(folder, f"{stem}.svg"), encoding="utf-8") as handle:
                svgs[stem] = handle.read()
            _SVG_CACHE.remember(source, svgs[stem])
    return svgs, failures
