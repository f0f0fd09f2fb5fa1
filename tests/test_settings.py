"""Tests of multitest.engine._settings: every option checked once, applicability, the CLI.

Each option is described once (``OPTIONS``); ``Settings.from_options`` checks the values and
refuses an option that does not apply to the chosen test or second pass; ``rank()``,
``stability()``, the command line and ``--config`` files all go through it.
"""
import argparse
import re

import numpy as np
import pytest
from helpers import make_frame
from numpy.testing import assert_allclose

from multitest import MultitestError, example_path, rank
from multitest._cli_parser import build_parser
from multitest.cli import main
from multitest.engine import Settings
from multitest.engine._options import OPTIONS, options_of
from multitest.engine._stability import RANK_OPTIONS, stability
from multitest.stats import correlated_t

EXAMPLE = example_path()

#: The recorded settings of a ranking (result.json, manifest.json): names and order fixed.
RECORDED = ["test", "alpha", "correction", "alternative", "costs", "second_pass",
            "posthoc_correction", "friedman_gate", "control", "control_method", "friedman_ties",
            "test_train_ratio", "rope", "min_probability", "bayes_seed", "cost_tolerance"]


@pytest.fixture(scope="module")
def frame():
    errors = np.random.default_rng(4).uniform(0.1, 0.3, (4, 3, 10))
    errors[:, 2] -= 0.03
    return make_frame(errors)


def _cli(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


# -- applicability: an option that does not apply is refused, in one line naming it --------

REFUSED = [
    # (options of rank(), the option the message names, the same on the command line)
    ({"rope": 0.01}, "`rope`", ["--rope", "0.01"]),
    ({"rope": 0.0, "test": "kfold-t"}, "`rope`", ["--rope", "0", "--test", "kfold-t"]),
    ({"min_probability": 0.9, "second_pass": "wilcoxon"}, "`min_probability`",
     ["--min-probability", "0.9", "--second-pass", "wilcoxon"]),
    ({"bayes_seed": 3, "test": "bayes-correlated-t"}, "`bayes_seed`",
     ["--bayes-seed", "3", "--test", "bayes-correlated-t"]),
    ({"test_train_ratio": "1/9", "test": "kfold-t"}, "`test_train_ratio`",
     ["--test-train-ratio", "1/9", "--test", "kfold-t"]),
    ({"posthoc_correction": "holm"}, "`posthoc_correction`", ["--posthoc-correction", "holm"]),
    ({"posthoc_correction": "shaffer", "second_pass": "bayesian"}, "`posthoc_correction`",
     ["--posthoc-correction", "shaffer", "--second-pass", "bayesian"]),
    ({"control_method": "holm"}, "`control_method`", ["--control-method", "holm"]),
    ({"correction": "holm", "test": "bayes-correlated-t"}, "`correction`",
     ["--correction", "holm", "--test", "bayes-correlated-t"]),
    ({"alternative": "greater"}, "`alternative`", ["--alternative", "greater"]),
    ({"friedman_gate": False, "second_pass": "bayesian"}, "`friedman_gate`",
     ["--no-friedman-gate", "--second-pass", "bayesian"]),
]


@pytest.mark.parametrize("options, name, argv", REFUSED)
def test_an_option_that_does_not_apply_is_refused(frame, options, name, argv):
    with pytest.raises(MultitestError) as info:
        rank(frame, ["a0", "a1", "a2"], **options)
    message = str(info.value)
    assert message.startswith(name) and "\n" not in message
    with pytest.raises(MultitestError, match=f"^{re.escape(message)}$"):
        Settings.from_options(**options)


@pytest.mark.parametrize("options, name, argv", REFUSED)
def test_the_command_line_refuses_it_with_the_same_line(frame, tmp_path, capsys, options, name,
                                                        argv):
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    status, _, err = _cli(["rank", str(path), "--order", "a0,a1,a2"] + argv, capsys)
    with pytest.raises(MultitestError) as info:
        Settings.from_options(**options)
    assert status == 2 and err == f"multitest: error: {info.value}\n"


@pytest.mark.parametrize("options, recorded", [
    ({"rope": 0.01, "second_pass": "bayesian"}, {"rope": 0.01, "posthoc_correction": "none"}),
    ({"min_probability": 0.9, "test": "bayes-correlated-t"}, {"min_probability": 0.9}),
    ({"bayes_seed": 3, "second_pass": "bayesian"}, {"bayes_seed": 3}),
    ({"posthoc_correction": "none"}, {"posthoc_correction": "none"}),
    ({"second_pass": "sign"}, {"posthoc_correction": "holm"}),
    ({"second_pass": "wilcoxon", "posthoc_correction": "shaffer"},
     {"posthoc_correction": "shaffer"}),
    ({"control": "a1", "control_method": "bonferroni-dunn"},
     {"control": "a1", "control_method": "bonferroni-dunn"}),
    ({"test": "corrected-t", "test_train_ratio": (100, 900)}, {"test_train_ratio": 1 / 9}),
])
def test_an_option_that_applies_is_recorded(frame, options, recorded):
    settings = rank(frame, ["a0", "a1", "a2"], **options).settings.to_dict()
    assert list(settings) == RECORDED
    assert {k: settings[k] for k in recorded} == recorded


def test_the_default_record_is_unchanged(frame):
    assert rank(frame, ["a0", "a1", "a2"]).settings.to_dict() == {
        "test": "combined-5x2cv-f", "alpha": 0.05, "correction": "none",
        "alternative": "two-sided", "costs": "order", "second_pass": "nemenyi",
        "posthoc_correction": "none", "friedman_gate": True, "control": None,
        "control_method": "holm", "friedman_ties": "corrected", "test_train_ratio": None,
        "rope": 0.0, "min_probability": 0.95, "bayes_seed": 0,
        "cost_tolerance": "noise"}


def test_settings_can_be_given_whole(frame):
    first = rank(frame, ["a0", "a1", "a2"], test="kfold-t", second_pass="sign", alpha=0.1)
    again = rank(frame, ["a0", "a1", "a2"], settings=first.settings)
    assert again.settings == first.settings and again.final_order == first.final_order
    built = Settings.from_options(test="kfold-t", second_pass="sign", alpha=0.1)
    assert rank(frame, ["a0", "a1", "a2"], settings=built).settings == first.settings
    with pytest.raises(MultitestError, match="^`alpha`: give the options or `settings`"):
        rank(frame, ["a0", "a1", "a2"], settings=built, alpha=0.05)
    with pytest.raises(MultitestError, match="^`settings` must be a Settings"):
        rank(frame, ["a0", "a1", "a2"], settings={"alpha": 0.1})
    with pytest.raises(MultitestError, match="^unknown option `bogus`"):
        Settings.from_options(bogus=1)


# -- the Bayesian correlated t-test takes its correlation from a test/train ratio -----------

def test_test_train_ratio_sets_rho_of_the_bayesian_correlated_t():
    errors = np.random.default_rng(8).normal(0.2, 0.02, (3, 3, 10))
    errors[:, 2] -= 0.01
    frame = make_frame(errors, replications=10)    # 10 random splits, one fold each
    order = ["a0", "a1", "a2"]
    with pytest.raises(MultitestError, match="at least 2 folds"):
        rank(frame, order, test="bayes-correlated-t")
    r = 1 / 4
    ranking = rank(frame, order, test="bayes-correlated-t", test_train_ratio="1/4", rope=0.005)
    table = ranking.datasets[0].table
    assert table.rho == pytest.approx(r / (1 + r)) and ranking.settings.test_train_ratio == r
    assert any(f"rho = n_test/n_total = {r / (1 + r):g}" in note for note in ranking.notes)
    for s in range(3):
        cheaper = errors[s, table.prior[s, table.cheaper]]
        costlier = errors[s, table.prior[s, table.costlier]]
        posterior = correlated_t(cheaper, costlier, rope=0.005, rho=r / (1 + r))
        assert_allclose(table.pvalue[s], 1 - posterior.costlier_better, rtol=1e-12)


def test_the_k_fold_ratio_gives_the_k_fold_rho(frame):
    plain = rank(frame, ["a0", "a1", "a2"], test="bayes-correlated-t")
    ratio = rank(frame, ["a0", "a1", "a2"], test="bayes-correlated-t", test_train_ratio=1.0)
    assert ratio.datasets[0].table.rho == plain.datasets[0].table.rho == 0.5
    assert_allclose(ratio.datasets[0].table.pvalue, plain.datasets[0].table.pvalue, rtol=1e-15)


# -- one check per value ---------------------------------------------------------------------

def test_alpha_is_checked_in_one_place(frame, tmp_path, capsys):
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(MultitestError) as info:
        rank(frame, ["a0", "a1", "a2"], alpha=1.5)
    expected = f"multitest: error: {info.value}\n"
    assert str(info.value) == "`alpha` must be a number strictly between 0 and 1, got 1.5"
    status, _, err = _cli(["rank", str(path), "--order", "a0,a1,a2", "--alpha", "1.5"], capsys)
    assert status == 2 and err == expected
    config = tmp_path / "run.yaml"
    config.write_text("order: [a0, a1, a2]\nalpha: 1.5\n")
    status, _, err = _cli(["rank", str(path), "--config", str(config)], capsys)
    # The same check, its message naming the file, the line and the key (issue 40, item 8)
    assert status == 2 and err == (f"multitest: error: {config}, row 2, field 'alpha': must be "
                                   "a number strictly between 0 and 1, got 1.5\n")
    status, _, err = _cli(["stability", str(path), "--order", "a0,a1,a2", "--alpha", "1.5"],
                          capsys)
    assert status == 2 and err == expected
    with pytest.raises(MultitestError, match="^`alpha` must be a number strictly"):
        stability(frame, ["a0", "a1", "a2"], alpha=1.5, bootstrap=10)


@pytest.mark.parametrize("argv, name", [
    (["--alpha", "x"], "`alpha`"), (["--correction", "holmes"], "`correction`"),
    (["--second-pass", "x"], "`second_pass`"), (["--rope", "x", "--second-pass", "bayesian"],
                                                "`rope`"),
    (["--bayes-seed", "-1", "--second-pass", "bayesian"], "`bayes_seed`"),
])
def test_bad_values_on_the_command_line_name_the_option(frame, tmp_path, capsys, argv, name):
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    status, _, err = _cli(["rank", str(path), "--order", "a0,a1,a2"] + argv, capsys)
    assert status == 2 and err.startswith(f"multitest: error: {name}") and err.count("\n") == 1


# -- the command line and the settings files come from the definition ----------------------

def _subparser(command):
    actions = build_parser()._subparsers._group_actions[0]
    return actions.choices[command]


@pytest.mark.parametrize("command", ["rank", "stability"])
def test_every_flag_is_one_option_and_every_option_one_flag(command):
    parser = _subparser(command)
    flags = {}
    for action in parser._actions:
        if action.option_strings and action.dest not in ("help", "quiet", "config"):
            flags[action.dest] = tuple(action.option_strings)
    options = options_of(command)
    assert list(flags) == [o.key for o in options]
    assert flags == {o.key: o.cli_flags for o in options}
    for action in parser._actions:
        option = {o.key: o for o in options}.get(action.dest)
        if option is not None:
            assert action.default is None and action.help == option.help_text
            assert isinstance(action, argparse._StoreAction) == (option.switch is None)


def test_help_is_grouped(capsys):
    with pytest.raises(SystemExit):
        main(["rank", "--help"])
    out = capsys.readouterr().out
    groups = ["prior preference (one of):", "tests:", "Bayesian tests", "input:", "output:"]
    assert all(group in out for group in groups)
    assert [out.index(group) for group in groups] == sorted(out.index(g) for g in groups)
    assert "--alpha ALPHA         significance level (default 0.05)" in out


@pytest.mark.parametrize("command", ["rank", "stability"])
def test_the_keys_of_a_settings_file_are_the_options(tmp_path, capsys, command):
    config = tmp_path / "run.yaml"
    config.write_text("bogus: 1\n")
    status, _, err = _cli([command, EXAMPLE, "--config", str(config)], capsys)
    listed = err.split("valid settings are ")[1].split(" (")[0].split("\n")[0]
    assert status == 2 and listed.split(", ") == [o.key for o in options_of(command)]


def test_a_setting_of_the_other_command_is_refused(tmp_path, capsys):
    config = tmp_path / "run.yaml"
    config.write_text("costs: training_time\ncontrol: svr\n")
    status, _, err = _cli(["stability", EXAMPLE, "--config", str(config)], capsys)
    assert status == 2 and "'control' does not apply to multitest stability" in err
    assert err.count("\n") == 1


def test_settings_file_types_come_from_the_definition(tmp_path, capsys):
    config = tmp_path / "run.yaml"
    config.write_text("costs: training_time\ndatasets: [optdigits, zoo]\nrope: 0.01\n"
                      "second_pass: bayesian\nbayes_seed: 2\ntest_train_ratio: 1\n"
                      "test: bayes-correlated-t\n")
    status, _, err = _cli(["rank", EXAMPLE, "--config", str(config), "--out",
                           str(tmp_path / "out")], capsys)
    assert status == 0, err
    config.write_text("costs: training_time\nrope: fine\n")
    status, _, err = _cli(["rank", EXAMPLE, "--config", str(config)], capsys)
    assert status == 2 and "field 'rope': must be a number" in err


@pytest.mark.parametrize("command, line, message", [
    ("rank", "alpha: 1.5", "must be a number strictly between 0 and 1, got 1.5"),
    ("rank", "kind: percent", "must be one of auto, error, accuracy, accuracy-percent, got "
                              "'percent'"),
    ("rank", "correction: holmes", "must be one of none, bonferroni, holm, hochberg, hommel, "
                                   "got 'holmes'"),
    ("rank", "missing: sometimes", "must be one of error, drop, worst, baseline:NAME, partial, "
                                   "got 'sometimes'"),
    ("rank", "dpi: 5000", "must be at most 1,200, got 5000"),
    ("rank", "test: no-such-test", "unknown pairwise test 'no-such-test'; valid names: "),
    ("stability", "alpha: 1.5", "must be a number strictly between 0 and 1, got 1.5"),
    ("stability", "missing: sometimes", "must be one of error, drop, worst, baseline:NAME, "
                                        "partial, got 'sometimes'"),
])
def test_a_wrong_value_in_a_settings_file_names_the_file_line_and_key(tmp_path, capsys,
                                                                      command, line, message):
    # Issue 40, item 8: the right type, a wrong value; the message was the option's alone
    # ("`alpha` must be ..."), without the file, the line or the key.
    config = tmp_path / "run.yaml"
    config.write_text(f"costs: training_time\n# the tests\n{line}\n")
    out = tmp_path / "out"
    status, stdout, err = _cli([command, EXAMPLE, "--config", str(config), "--out", str(out)],
                               capsys)
    key = line.split(":")[0]
    assert status == 2 and stdout == "" and err.count("\n") == 1
    assert err.startswith(f"multitest: error: {config}, row 3, field '{key}': {message}")
    assert not out.exists()


def test_every_key_is_one_option_per_command():
    for command in ("rank", "stability"):
        keys = [o.key for o in options_of(command)]
        assert len(keys) == len(set(keys))
    settings = [o.name for o in OPTIONS if o.role == "setting" and "rank" in o.commands]
    # `missing` is recorded by the ranking's report (result.json key "missing"), when a
    # policy other than the default was given.
    assert sorted(settings) == sorted([name for name in RECORDED if name != "costs"]
                                      + ["missing"])


# -- stability takes the options of rank() through the same definition ----------------------

def test_stability_options_come_from_the_definition(frame):
    assert RANK_OPTIONS == tuple(o.name for o in options_of("stability", ("setting",
                                                                          "selection")))
    for name, value in (("control", "a1"), ("control_method", "holm")):
        with pytest.raises(MultitestError, match=f"^`{name}` does not apply to the stability"):
            stability(frame, ["a0", "a1", "a2"], bootstrap=10, **{name: value})
    with pytest.raises(MultitestError, match="^`second_pass`: the stability bootstrap"):
        stability(frame, ["a0", "a1", "a2"], bootstrap=10, second_pass="bayesian")
    with pytest.raises(MultitestError, match="^`rope` applies to the Bayesian tests only"):
        stability(frame, ["a0", "a1", "a2"], bootstrap=10, rope=0.01)


# -- the words of the settings: each rule named with the stage it decides ---------------------

@pytest.mark.parametrize("options, says, never", [
    ({}, "test combined-5x2cv-f, alpha 0.05, correction none; second pass nemenyi", "rope"),
    # a Bayesian stage 1 decides by probability: alpha is the second pass's, no correction
    ({"test": "bayes-correlated-t", "min_probability": 0.9},
     "test bayes-correlated-t (override when P(costlier practically better) >= 0.9, rope 0); "
     "second pass nemenyi at alpha 0.05", "correction"),
    ({"second_pass": "bayesian", "alpha": 0.1},
     "test combined-5x2cv-f, alpha 0.1, correction none; second pass bayesian (override when "
     "P(costlier practically better) >= 0.95, rope 0)", "not the order"),
    # neither stage uses alpha: said so, not printed as if it had decided anything
    ({"test": "bayes-correlated-t", "second_pass": "bayesian", "alpha": 0.01},
     "second pass bayesian (the same rule); alpha 0.01 only for the intervals and tests "
     "reported, not the order", "correction"),
])
def test_the_summary_report_and_notebook_name_what_decided_each_stage(frame, options, says,
                                                                        never):
    from multitest.figures._jupyter import ranking_html
    from multitest.figures._report import report_html
    from multitest.outputs._summary import summary_text

    ranking = rank(frame, ["a0", "a1", "a2"], **options)
    header = summary_text(ranking).splitlines()[0]
    assert header == "Final order (best first); costs order; " + \
        ranking.settings.decision_rules()
    assert says in header and never not in header
    escaped = says.replace(">=", "&gt;=")
    assert escaped in report_html(ranking) and escaped in ranking_html(ranking)


def test_one_data_set_has_no_second_pass_in_the_words():
    from multitest.outputs._summary import summary_text

    ranking = rank(make_frame(np.random.default_rng(1).uniform(0.1, 0.3, (1, 3, 10))),
                   ["a0", "a1", "a2"], test="bayes-correlated-t")
    assert summary_text(ranking).splitlines()[0].endswith(
        "; no second pass (one data set); alpha 0.05 only for the intervals and tests "
        "reported, not the order")
