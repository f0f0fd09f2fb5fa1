"""multitest.engine._second_pass_methods: the table of second-pass methods."""

import contextlib
import io
import re

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from multitest import MultitestError, rank
from multitest.cli import main
from multitest.engine import second_pass
from multitest.engine._second_pass import second_pass_decisions
from multitest.engine._second_pass_methods import (
    SECOND_PASS_METHODS,
    SecondPassMethod,
    get_second_pass_method,
)
from multitest.stats import nemenyi

FLAGS = {  # name: (takes_correction, bayesian, rank_based, has a fast decision)
    "nemenyi": (False, False, True, True),
    "wilcoxon": (True, False, False, False),
    "wilcoxon-pratt": (True, False, False, False),
    "wilcoxon-scipy": (True, False, False, False),
    "sign": (True, False, False, False),
    "bayesian": (False, True, False, False),
}


def _cli_choices(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([command, "--help"])
    return re.search(r"--second-pass \{([^}]*)\}", out.getvalue()).group(1).split(",")


@pytest.mark.parametrize("command", ["rank", "stability"])
def test_the_table_lists_exactly_what_the_cli_offers(command):
    assert _cli_choices(command) == list(SECOND_PASS_METHODS)


def test_entries_and_flags():
    assert list(SECOND_PASS_METHODS) == list(FLAGS)
    for name, (correction, bayesian, rank_based, decision) in FLAGS.items():
        method = get_second_pass_method(name)
        assert isinstance(method, SecondPassMethod) and method.name == name
        assert (method.takes_correction, method.bayesian, method.rank_based,
                method.decision is not None) == (correction, bayesian, rank_based, decision)
        assert method.description and method.caption and method.title and method.better_words
    with pytest.raises(TypeError):
        SECOND_PASS_METHODS["tukey"] = SECOND_PASS_METHODS["nemenyi"]   # read-only


@pytest.mark.parametrize("name", ["tukey", None, ["nemenyi"]])
def test_unknown_method_is_one_line_listing_the_valid_names(name):
    with pytest.raises(MultitestError) as info:
        get_second_pass_method(name)
    message = str(info.value)
    assert "\n" not in message and "nemenyi, wilcoxon" in message and "bayesian" in message


@pytest.mark.parametrize("name", list(FLAGS))
def test_result_carries_its_entry_and_correction(example, name):
    results = example.subset(datasets=example.datasets[:6])
    entry = get_second_pass_method(name)
    options = {"posthoc_correction": "hommel"} if entry.takes_correction else {}
    if not entry.bayesian:   # the Bayesian second pass is never gated
        options["friedman_gate"] = False
    ranking = rank(results, "training_time", second_pass=name, **options)
    sp = ranking.second_pass
    assert sp.method_entry is get_second_pass_method(name)
    expected = "hommel" if sp.method_entry.takes_correction else "none"
    assert sp.correction == ranking.settings.posthoc_correction == expected


def test_nemenyi_fast_decision_equals_the_test():
    rng = np.random.default_rng(3)
    entry = get_second_pass_method("nemenyi")
    for S, L in ((10, 4), (40, 8), (5, 12)):
        ranks = np.array([rng.permutation(L) + 1.0 for _ in range(S)])
        for alpha in (0.01, 0.05, 0.1):
            fast = entry.decision(ranks, None, alpha=alpha, correction="none")
            assert_array_equal(fast, nemenyi(ranks, alpha=alpha).significant)
            posthoc, significant, _ = second_pass_decisions(
                entry, ranks, None, ranks.mean(axis=0), applied=True, alpha=alpha,
                correction="none", keep=False)
            assert posthoc is None
            assert_array_equal(significant, fast)


def test_bayesian_method_is_not_gated():
    ranks = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]] * 3)
    keys = np.ones((1, 6, 3))
    fr, sp = second_pass(ranks, ranks / 10, keys, "abc", method="bayesian", alpha=0.05)
    assert fr.pvalue > 0.05 and sp.applied and sp.posthoc is not None
    fr, sp = second_pass(ranks, ranks / 10, keys, "abc", method="sign", alpha=0.05)
    assert not sp.applied and sp.posthoc is None
