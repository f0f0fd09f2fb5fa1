"""Behaviour lives on registry entries: no name comparison or attribute probing elsewhere."""

import re
from pathlib import Path

import multitest

PACKAGE = Path(multitest.__file__).resolve().parent

#: Where a name or an attribute check is the point: the registries themselves.
REGISTRIES = {"stats/_registry.py", "stats/_entry.py", "engine/_second_pass_methods.py"}

#: ``hasattr`` on objects a user hands in (duck typing, as scikit-learn checks).
USER_OBJECTS = {"run/_experiment.py"}

FORBIDDEN = [
    r'==\s*"nemenyi"', r'!=\s*"nemenyi"', r'==\s*"bayesian"', r'!=\s*"bayesian"',
    r'in \("nemenyi"', r'"bayes-correlated-t"', r'getattr\(table, "', r'hasattr\(table',
    r'hasattr\(test', r'\bis_bayesian\b', r'\bwith_settings\b', r'\bsettings_of\b',
    r'INTERVAL_OF_TEST',
    r'_DIFFERENCE_ONLY', r'_FOLD_MAJOR', r'_DECISIONS', r'_THREAD_SAFE',
]


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8")


def test_no_name_comparison_outside_the_registries():
    found = [f"{name}: {pattern}" for name, text in _sources() if name not in REGISTRIES
             for pattern in FORBIDDEN if re.search(pattern, text)]
    assert found == []


def test_no_hasattr_probing():
    found = [name for name, text in _sources()
             if "hasattr(" in text and name not in REGISTRIES | USER_OBJECTS]
    assert found == []
