"""The public API: each subpackage's ``__all__`` is what its reference page lists, small
enough to hold in mind, every name with an example and used by a test."""

import importlib
import inspect
import re
from pathlib import Path

import pytest

import multitest

ROOT = Path(__file__).resolve().parents[1]
API_PAGES = ROOT / "docs" / "reference" / "api"
SUBPACKAGES = ("inputs", "stats", "engine", "outputs", "figures", "run")
MAX_PUBLIC_NAMES = 120
DIRECTIVE = re.compile(r"^\.\. auto(?:function|class|exception|data)::\s+(\S+)", re.M)


def _public(name):
    return importlib.import_module(f"multitest.{name}").__all__


def _page_names(name):
    page = (API_PAGES / f"{name}.rst").read_text(encoding="utf-8")
    assert f".. currentmodule:: multitest.{name}" in page
    return DIRECTIVE.findall(page)


def _other_tests_text():
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("tests/test_*.py"))
                     if p.name != Path(__file__).name)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_the_reference_page_lists_exactly_the_public_names(name):
    listed = _page_names(name)
    assert len(listed) == len(set(listed)), "a name listed twice"
    assert set(listed) == set(_public(name))


def test_the_public_names_are_few_enough_to_hold_in_mind():
    assert sum(len(_public(name)) for name in SUBPACKAGES) <= MAX_PUBLIC_NAMES


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_public_name_has_an_examples_section(name):
    package = importlib.import_module(f"multitest.{name}")
    without = [public for public in package.__all__
               if "\nExamples\n--------\n" not in (inspect.getdoc(getattr(package, public)) or "")]
    assert without == []


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_public_name_is_used_by_a_test(name):
    text = _other_tests_text()
    assert [public for public in _public(name) if not re.search(rf"\b{public}\b", text)] == []


def test_a_private_name_is_not_in_the_namespace_but_its_module_still_has_it():
    from multitest.engine._explain import ordinal

    assert ordinal(2) == "2nd"
    with pytest.raises(AttributeError, match="has no attribute 'ordinal'"):
        multitest.engine.ordinal   # noqa: B018


def test_top_level_names_load_from_private_modules():
    # Not through a subpackage's namespace: what a subpackage exports may shrink.
    assert [where for where in multitest._LAZY.values()
            if not where.rsplit(".", 1)[-1].startswith("_")] == []
