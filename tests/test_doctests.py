"""Every example in the package's docstrings runs and prints what it says (numpydoc
``Examples`` sections feed the API reference)."""

import doctest
import importlib
import pkgutil

import pytest

import multitest

MODULES = ["multitest"] + sorted(m.name for m in pkgutil.walk_packages(multitest.__path__,
                                                                  "multitest."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
