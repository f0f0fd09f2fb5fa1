"""The package layout: subpackages that are the pipeline, private modules re-exported.

The import direction itself is checked by import-linter (``lint-imports``, contracts in
pyproject.toml), run by the test command before pytest.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import python_prints

import multitest

PACKAGE = Path(multitest.__file__).resolve().parent
SUBPACKAGES = ("inputs", "stats", "engine", "outputs", "figures", "run")
MAX_LINES = 600   # issue 39: a module a reader can hold in mind


def _module_all(path):
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__"
                                                for t in node.targets):
            return [element.value for element in node.value.elts]
    return []


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_exports_every_public_name_of_its_private_modules(name):
    import importlib

    folder = PACKAGE / name
    modules = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    assert modules and all(p.name.startswith("_") for p in modules), "modules are private"
    expected = [n for p in modules for n in _module_all(p)]
    package = importlib.import_module(f"multitest.{name}")
    assert sorted(package.__all__) == sorted(expected)   # each name once
    for public in expected:
        assert getattr(package, public) is not None


def test_no_module_is_over_600_lines():
    sizes = {str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines())
             for p in PACKAGE.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_top_level_exports_resolve():
    for name in multitest.__all__:
        assert getattr(multitest, name) is not None, name


def test_import_loads_no_figures_statistics_module_or_extra():
    code = ("import sys, multitest; from multitest import rank, example_results; "
            "rank(example_results(), 'training_time', datasets=['iris', 'wine']); "
            "heavy = ['multitest.figures', 'multitest.outputs', 'graphviz', 'scipy.stats', "
            "'sklearn', 'dask']; print([m for m in heavy if m in sys.modules])")
    assert python_prints(code) == "[]"


def test_import_multitest_loads_nothing_but_its_errors():
    code = ("import sys, multitest; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('multitest', 'numpy', 'scipy', 'pandas', 'yaml')))")
    assert python_prints(code) == "['multitest', 'multitest._errors', 'multitest._lazy']"


def test_multitest_run_loads_no_engine(tmp_path):
    # A run refused for its estimator (after the experiment and the estimators are read):
    # exit status 2, nothing written, and none of the engine, statistics or figures loaded
    # (SciPy is scikit-learn's to load).
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text("datasets:\n  - sklearn: iris\nalgorithms:\n"
                          "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\n"
                          "  bad: {estimator: os.system}\n")
    code = ("import sys, multitest.cli; "
            f"status = multitest.cli.main(['run', {str(experiment)!r}, '--out', "
            f"{str(tmp_path / 'out')!r}]); "
            "print(status, [m for m in sys.modules if m.startswith(('multitest.engine', "
            "'multitest.stats', 'multitest.figures'))])")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.strip() == "2 []" and "not an estimator class" in run.stderr
    assert not (tmp_path / "out").exists()
