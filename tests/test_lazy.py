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


def test_objects_made_while_the_collector_is_paused_join_the_oldest_generation_unscanned():
    # 10^5 objects made in the block: no collection scans them at its end (none runs
    # at all until the next allocations reach the threshold), they are in generation 2,
    # and a cycle made in the block is still collected by a full collection.
    code = ("import gc, weakref; from multitest._lazy import collector_paused\n"
            "class Node: pass\n"
            "runs = []; gc.callbacks.append(lambda phase, info: runs.append(phase))\n"
            "with collector_paused():\n"
            "    kept = [[i] for i in range(100_000)]\n"
            "    cycle = Node(); cycle.me = cycle; gone = weakref.ref(cycle); del cycle\n"
            "counts, oldest = gc.get_count(), gc.get_objects(generation=2)\n"
            "print(runs, counts[0], any(o is kept[0] for o in oldest), gc.get_freeze_count(),"
            " end=' ')\n"
            "del oldest; gc.collect(); print(gone() is None)")
    assert _run(code) == "[] 0 True 0 True"


def test_objects_made_while_the_collector_is_paused_stay_frozen_where_some_are():
    # The command line freezes its libraries (gc.freeze); what it imports later in a
    # paused block is frozen with them, out of every later collection's sight.
    code = ("import gc; from multitest._lazy import collector_paused\n"
            "gc.freeze(); before = gc.get_freeze_count()\n"
            "with collector_paused():\n"
            "    kept = [[i] for i in range(1000)]\n"
            "print(gc.get_freeze_count() - before >= 1000)")
    assert _run(code) == "True"
