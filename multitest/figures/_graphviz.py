"""Running Graphviz ``dot``: DOT sources to images, several processes at once, and a cache.

:func:`draw_sources` writes DOT files into a folder and draws each in every
format asked, one ``dot`` process per file (Graphviz keeps state from one
graph to the next in one process: the ``layout=neato`` of the CD diagram would
stay for the graphs after it), several processes at once.
:func:`render_svgs` returns the SVG text of DOT sources.  Both keep the SVG
they make in an :class:`SvgCache`, so that the report reuses the images that
:func:`~multitest.figures.write_figures` drew in the same process.
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
from typing import NamedTuple

from .._errors import MultitestError
from .._files import file_stamp, keep_digests, write_atomically, written_digest
from .._progress import progress
from . import _direct_svg
from ._direct_svg import is_table_figure, table_svg
from .._forked import usable_cpus

__all__ = ["FORMATS", "DATASET_DOT", "SvgCache", "dot_available", "render_svgs", "to_svg",
           "inline_svg", "combined_stems", "dot_sources"]

#: Image formats :func:`draw_sources` accepts (those of a standard Graphviz build).
FORMATS = ("svg", "png", "pdf")

_MISSING_DOT = "Graphviz 'dot' not found: wrote DOT sources only"

#: The one file of the DOT sources of the per-data-set table figures of a run with more
#: than :data:`~multitest.figures.DIRECT_SVG_FIGURES` of them (:func:`combined_stems`),
#: one graph after the other (``dot -Tsvg -O`` draws each), instead of a file each.
DATASET_DOT = "dataset_figures.dot"


class SvgCache:
    """SVG text of DOT sources already drawn, so that drawing one again costs nothing.

    Keyed by the SHA-256 of the DOT text.  An entry is the SVG text, or the file it was
    written to (:meth:`remember_file`: the per-data-set images of a large run, not kept
    as text; the report reads them where it inlines them).  A file gone or changed since counts as not drawn.
    Bounded by the characters it holds (a file entry counts as its path): beyond
    ``max_chars`` the entries stored first are dropped (the newest entry is always kept).

    Parameters
    ----------
    max_chars : int
        Characters of SVG text kept at most (the default holds the 2000
        figures of a run of 1000 data sets).

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
        """Whether ``source`` was drawn (a file entry: its file is still the one written;
        it is not read)."""
        key = _key(source)
        entry = self._svgs.get(key)
        if entry is not None and not entry.unchanged():
            self._drop(key)
            return False
        return entry is not None

    def get(self, source):
        """The SVG text of the DOT text ``source``, or None when it was not drawn."""
        key = _key(source)
        entry = self._svgs.get(key)
        if entry is None:
            return None
        svg = entry.text()
        if svg is None:     # its file is gone or changed
            self._drop(key)
        return svg

    def remember(self, source, svg):
        """Keep ``svg`` as the drawing of ``source``; drop the oldest entries beyond the bound."""
        self._keep(source, _SvgText(svg))

    def remember_file(self, source, path, stamp):
        """Keep the file ``path`` (its :func:`~multitest._files.file_stamp` ``stamp`` when
        written) as the drawing of ``source``, to be read when asked for."""
        self._keep(source, _SvgFile(os.path.abspath(path), stamp))

    def _keep(self, source, entry):
        key = _key(source)
        old = self._svgs.pop(key, None)
        self._chars += entry.chars - (old.chars if old is not None else 0)
        self._svgs[key] = entry
        while self._chars > self.max_chars and len(self._svgs) > 1:
            self._chars -= self._svgs.popitem(last=False)[1].chars

    def _drop(self, key):
        self._chars -= self._svgs.pop(key).chars


class _SvgText(NamedTuple):
    """An entry of :class:`SvgCache`: the SVG text."""

    svg: str

    @property
    def chars(self):
        return len(self.svg)

    def text(self):
        return self.svg

    def unchanged(self):
        return True


class _SvgFile(NamedTuple):
    """An entry of :class:`SvgCache`: the SVG file written, and its stamp then."""

    path: str
    stamp: tuple

    @property
    def chars(self):
        return len(self.path)

    def unchanged(self):
        """Whether the file is still the one written (its stamp; not read)."""
        try:
            return file_stamp(self.path) == self.stamp
        except OSError:
            return False

    def text(self):
        """The file's text, or None when it is gone or no longer the file written."""
        try:
            with open(self.path, "rb") as handle:
                if file_stamp(handle.fileno()) != self.stamp:
                    return None
                return handle.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


#: The cache of this process, shared by every function of this module unless told otherwise.
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


def draw_sources(folder, sources, formats, jobs=None, cache=None, dpi=None):
    """Write ``<stem>.dot`` of every source into ``folder`` and, with ``dot``, the images.

    The sources of the per-data-set table figures of a run with more than
    :data:`~multitest.figures.DIRECT_SVG_FIGURES` of them (:func:`combined_stems`) go
    into one file, :data:`DATASET_DOT`, instead of a file each; their SVG images are
    written directly (:func:`~multitest.figures.table_svg`), their PNG and PDF
    images by ``dot`` from a temporary folder inside ``folder``.

    Parameters
    ----------
    folder : str
        An existing folder.
    sources : dict
        ``{file stem: DOT text}``.
    formats : list of str
        Checked formats (:func:`check_formats`), possibly none.
    jobs : int, optional
        Parallel ``dot`` processes; default: the number of CPUs.
    cache : SvgCache, optional
        Where the SVG drawn are kept; default: the cache of this process.
    dpi : int, optional
        Resolution of the PNG images (dots per inch); default: Graphviz's.

    Returns
    -------
    str or None
        A one-line warning when images could not be made, else None.
    """
    combined = combined_stems(sources)
    _write_dot_files(folder, {s: text for s, text in sources.items() if s not in combined})
    if combined:
        _write_combined(folder, {s: text for s, text in sources.items() if s in combined})
    if not formats:
        return None
    if not dot_available():
        return _MISSING_DOT
    _, failures = _draw(folder, sources, formats, jobs, cache, dpi, direct=combined)
    if failures:
        f, message = failures[0]
        return (f"Graphviz 'dot' failed on {len(failures)} figure(s), e.g. {f}: {message}")
    return None


def render_svgs(sources, jobs=None, cache=None):
    """SVG text of DOT sources, rendered in parallel.

    Parameters
    ----------
    sources : dict
        ``{key: DOT text}``.
    jobs : int, optional
        Parallel ``dot`` processes; default: the number of CPUs.
    cache : SvgCache, optional
        Sources found there are not drawn again; default: the cache of this process.

    Returns
    -------
    dict or None
        ``{key: SVG text or None when dot failed}``; None when ``dot`` is
        not installed.
    """
    if not dot_available():
        return None
    cache = _SVG_CACHE if cache is None else cache
    out = {key: cache.get(source) for key, source in sources.items()}
    missing = [key for key, svg in out.items() if svg is None]
    if missing:
        with tempfile.TemporaryDirectory(prefix="multitest-dot-") as folder:
            stems = {f"g{k}": key for k, key in enumerate(missing)}
            drawn = {stem: sources[key] for stem, key in stems.items()}
            direct = combined_stems({key: sources[key] for key in missing})
            direct = {stem for stem, key in stems.items() if key in direct}
            _write_dot_files(folder, {s: text for s, text in drawn.items() if s not in direct})
            svgs, _ = _draw(folder, drawn, ["svg"], jobs, cache, direct=direct,
                            write_direct=False)
            for stem, key in stems.items():
                out[key] = svgs.get(stem)
    return out


def cached_svg(source, cache=None):
    """The SVG text of the DOT text ``source`` if drawn already (:class:`SvgCache`; default:
    the cache of this process), else None; runs no ``dot``."""
    return (_SVG_CACHE if cache is None else cache).get(source)


def undrawn(sources, cache=None):
    """The items of ``{key: DOT text}`` not drawn yet (:func:`cached_svg`)."""
    cache = _SVG_CACHE if cache is None else cache
    return {key: source for key, source in sources.items() if source not in cache}


def to_svg(graph, cache=None):
    """SVG text of one graph (:mod:`graphviz` object or DOT text), or None without ``dot``."""
    source = graph if isinstance(graph, str) else graph.source
    svgs = render_svgs({"g": source}, jobs=1, cache=cache)
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


def _render_folder(folder, stems, formats, jobs, dpi=None):
    """Run ``dot`` on ``folder/<stem>.dot``, writing ``<stem>.<format>``; return failures."""
    files = [f"{stem}.dot" for stem in stems]
    # Bigger graphs first so that the workers end together.
    sizes = {f: os.path.getsize(os.path.join(folder, f)) for f in files}
    files.sort(key=lambda f: -sizes[f])
    jobs = max(1, min(jobs or usable_cpus(), len(files)))
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


def _write_combined(folder, sources):
    """:data:`DATASET_DOT`: a comment naming what it holds, then every source in order,
    each after a line ``// figure <stem>``."""
    head = (f"// multitest: the {len(sources)} per-data-set table figures "
            "(override_<data set>, trace_<data set>),\n// one digraph each, in data set "
            f"order. Draw them all: dot -Tsvg -O {DATASET_DOT}\n")
    with open(os.path.join(folder, DATASET_DOT), "w", encoding="utf-8") as handle:
        handle.write(head + "".join(f"{_FIGURE}{stem}\n{source}" for stem, source in
                                    sources.items()))


_FIGURE = "// figure "
_FIGURE_LINE = re.compile(rf"^{_FIGURE}(\S+)\n", re.M)


def dot_sources(folder):
    """The DOT source of every figure written into ``folder``, by file stem: the
    ``<stem>.dot`` files and the graphs of :data:`DATASET_DOT`.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _write_combined(folder, {"trace_a": "digraph a {\\n}\\n", "trace_b": "digraph b {\\n}\\n"})
    >>> dot_sources(folder)
    {'trace_a': 'digraph a {\\n}\\n', 'trace_b': 'digraph b {\\n}\\n'}
    """
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".dot") and name != DATASET_DOT:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                out[name[:-4]] = handle.read()
    path = os.path.join(folder, DATASET_DOT)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        marks = list(_FIGURE_LINE.finditer(text))
        for mark, end in zip(marks, [m.start() for m in marks[1:]] + [len(text)]):
            out[mark.group(1)] = text[mark.end():end]
    return out


def _draw(folder, sources, formats, jobs, cache, dpi=None, direct=(), write_direct=True):
    """Draw every source in ``formats``: ``({stem: SVG text}, failures)``, the SVG text of
    every image drawn but those written directly into ``folder``.

    ``direct``: the stems whose SVG is written directly
    (:func:`~multitest.figures._direct_svg.table_svg`; :func:`combined_stems`), their
    other formats drawn by ``dot`` from a temporary folder; every other stem is drawn
    by ``dot`` from ``folder/<stem>.dot``.  Every SVG image is kept in the cache.
    ``write_direct``: the direct SVG images are written into ``folder`` and kept in the
    cache as their files (their text is not kept: 54 MB for S = 1000 x L = 20), else
    kept and returned as text.
    """
    cache = _SVG_CACHE if cache is None else cache
    svgs = {}
    if "svg" in formats and direct:
        stems = sorted(direct)
        if write_direct:
            def draw(stem):
                path = write_atomically(os.path.join(folder, f"{stem}.svg"),
                                        table_svg(sources[stem]))
                # stamped and hashed where written (the manifest's digest, which holds
                # the stamp when it is taken)
                digest = written_digest(path)
                return path, digest[path][0] if digest else file_stamp(path), digest

            for stem, (path, stamp, digest) in zip(stems, map(draw, stems)):
                cache.remember_file(sources[stem], path, stamp)
                keep_digests(digest)
        else:
            for stem in stems:
                svg = table_svg(sources[stem])
                svgs[stem] = svg
                cache.remember(sources[stem], svg)
    others = [f for f in formats if f != "svg"]
    failures = _render_folder(folder, [s for s in sources if s not in direct], formats, jobs, dpi)
    if others and direct:
        failures += _render_elsewhere(folder, {s: sources[s] for s in direct}, others, jobs,
                                      dpi)
    failed = {f[:-4] for f, _ in failures}
    for stem, source in sources.items():
        if "svg" in formats and stem not in failed and stem not in direct:
            with open(os.path.join(folder, f"{stem}.svg"), encoding="utf-8") as handle:
                svgs[stem] = handle.read()
            cache.remember(source, svgs[stem])
    return svgs, failures


def _render_elsewhere(folder, sources, formats, jobs, dpi):
    """Images of sources whose DOT file is not in ``folder``: drawn by ``dot`` in a
    temporary folder inside it, then moved to ``folder/<stem>.<format>``."""
    with tempfile.TemporaryDirectory(prefix=".multitest-dot-", dir=folder) as scratch:
        _write_dot_files(scratch, sources)
        failures = _render_folder(scratch, sorted(sources), formats, jobs, dpi)
        failed = {f[:-4] for f, _ in failures}
        for stem in sources:
            if stem not in failed:
                for fmt in formats:
                    os.replace(os.path.join(scratch, f"{stem}.{fmt}"),
                               os.path.join(folder, f"{stem}.{fmt}"))
    return failures


def combined_stems(sources):
    """The per-data-set table figures of a run with more than
    :data:`~multitest.figures.DIRECT_SVG_FIGURES` of them: SVG written directly, DOT
    sources in one file (:data:`DATASET_DOT`).

    Examples
    --------
    >>> combined_stems({"final": "digraph final {\\n}"})
    set()
    """
    stems = {stem for stem, source in sources.items()
             if stem.startswith(_PER_DATASET) and is_table_figure(source)}
    return stems if len(stems) > _direct_svg.DIRECT_SVG_FIGURES else set()


_PER_DATASET = ("override_", "trace_")
