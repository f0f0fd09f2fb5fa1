"""multitest._lazy: a package's public names, loaded on first use (SPEC 1 stubs)."""

import pytest
from helpers import python_prints as _run


def test_a_statistic_is_loaded_on_first_use_with_scipy_special():
    # The command line's parser loads without SciPy; the first use of a statistic's name
    # imports its module, and with it scipy.special.  Reference (by hand): rank sums
    # 5, 8, 11 over S = 4, L = 3: chi2 = 12 / (4 * 3 * 4) * (25 + 64 + 121) - 3 * 4 * 4
    # = 4.5, and the chi-square tail with 2 degrees of freedom is exp(-4.5 / 2).
    code = ("import math, sys, multitest.cli, multitest.stats as s; "
            "print('scipy.special' in sys.modules, end=' '); "
            "r = s.friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]]); "
            "print('scipy.special' in sys.modules, r.statistic, "
            "math.isclose(r.pvalue, math.exp(-2.25), rel_tol=1e-12))")
    assert _run(code) == "False True 4.5 True"


def test_a_name_looked_up_once_is_then_a_plain_attribute():
    code = ("import multitest.stats as s; before = 'friedman' in vars(s); f = s.friedman; "
            "print(before, vars(s)['friedman'] is f, 'friedman' in dir(s))")
    assert _run(code) == "False True True"


def test_an_unknown_name_is_an_attribute_error():
    import multitest.stats

    with pytest.raises(AttributeError, match="'multitest.stats' has no attribute 'no_such'"):
        multitest.stats.no_such   # noqa: B018


def test_the_stub_lists_the_exports_in_order():
    from multitest._lazy import attach_stub
    import multitest.stats

    *_, names = attach_stub("multitest.stats", multitest.stats.__file__)
    assert names == list(multitest.stats.__all__) and "friedman" in names
