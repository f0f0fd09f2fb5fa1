"""multitest._lazy: names and modules loaded on first use."""

from helpers import python_prints as _run

from multitest._lazy import LazyModule


def test_scipy_special_is_imported_on_first_use_only():
    # The CLI and the statistics load without SciPy; the first call of a statistic
    # imports scipy.special.  Reference (by hand): rank sums 5, 8, 11 over S = 4,
    # L = 3: chi2 = 12 / (4 * 3 * 4) * (25 + 64 + 121) - 3 * 4 * 4 = 4.5, and the
    # chi-square tail with 2 degrees of freedom is exp(-4.5 / 2).
    code = ("import math, sys, multitest.cli, multitest.stats._friedman as f; "
            "print('scipy.special' in sys.modules, end=' '); "
            "r = f.friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]]); "
            "print('scipy.special' in sys.modules, r.statistic, "
            "math.isclose(r.pvalue, math.exp(-2.25), rel_tol=1e-12))")
    assert _run(code) == "False True 4.5 True"


def test_a_lazy_module_keeps_the_names_it_looked_up():
    json_ = LazyModule("json")
    assert "dumps" not in vars(json_)
    assert json_.dumps([1]) == "[1]"
    import json

    assert vars(json_)["dumps"] is json.dumps and repr(json_) == "<LazyModule 'json'>"


def test_import_in_background_imports_and_never_raises():
    code = ("import sys; from multitest._lazy import import_in_background; "
            "import_in_background('no_such_module_xyz', 'colorsys').join(); "
            "print('colorsys' in sys.modules)")
    # The import after a failing one is not tried: the thread stops at the first failure.
    assert _run(code) == "False"
    code = ("import sys; from multitest._lazy import import_in_background; "
            "import_in_background('colorsys').join(); print('colorsys' in sys.modules)")
    assert _run(code) == "True"
