"""Sphinx configuration: the user documentation and the API reference of multitest.

Built by ``make docs`` (``sphinx-build -W``: every warning is an error). No network: no
intersphinx, a theme that ships with Sphinx.
"""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

import multitest  # noqa: E402

project = "multitest"
author = "the multitest maintainers"
copyright = "the multitest maintainers, BSD-3-Clause"
release = multitest.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Markdown pages: anchors for the headings (links like page.md#section), $...$ left alone.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# The API reference documents the public names only: each subpackage's ``__all__``.
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
autodoc_mock_imports = []
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_title = f"multitest {release}"
html_static_path = []
html_theme_options = {"description": "Cost-conscious ordering of ML algorithms",
                      "fixed_sidebar": True, "page_width": "1100px"}
