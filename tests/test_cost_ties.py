"""Costs within their noise are ties (engine/_cost_ties.py, inputs/_costs.py noise).

References: the tie groups are hand computations of the rule "a gap between sorted
neighbours of at most the tolerance joins them"; the noise of a measured profile is
the standard deviation over the folds (numpy, ddof=0, as scikit-learn's std_fit_time).
"""

import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from multitest import CostProfile, MultitestError, load_profile, rank
from multitest.cli import main
from multitest.engine import CostTolerance


def test_groups_by_hand():
    costs = np.array([[1.0, 1.05, 2.0, 1.08], [3.0, 1.0, 2.0, 2.0]])
    # 10 %: 1 | 1.05 (gap 0.05 <= 0.105) | 1.08 (0.03 <= 0.108) | 2.0 (0.92 > 0.2)
    assert CostTolerance.parse("10%").groups(costs).tolist() == [[0, 0, 1, 0], [2, 0, 1, 1]]
    assert CostTolerance.parse("exact").groups(costs).tolist() == [[0, 1, 3, 2], [2, 0, 1, 1]]
    # absolute 1.0: the chain 1 - 2 - 3 on row 2 is one group (single linkage)
    assert CostTolerance.parse(1).groups(costs).tolist() == [[0, 0, 0, 0], [0, 0, 0, 0]]
    noise = np.array([[0.0, 0.06, 0.0, 0.0], [0.0, 0.0, 0.5, 0.0]])
    noisy = CostTolerance.parse("noise").with_noise(noise)
    # row 1: 1 -> 1.05 is 0.05 <= max(0, 0.06): tie; 1.05 -> 1.08 is 0.03 <= 0.06: tie;
    # 1.08 -> 2 is 0.92 > 0.  Row 2: 1 -> 2 is 1 > 0.5; 2 -> 2 equal; 2 -> 3 is 1 > 0.5.
    assert noisy.groups(costs).tolist() == [[0, 0, 1, 0], [2, 0, 1, 1]]
    # averages: noise (0, 0.03, 0.25, 0): 1 -> 1.02 (0.02 <= 0.03) | 1.2 | 3
    assert noisy.average_groups([1.0, 1.02, 3.0, 1.2]).tolist() == [0, 0, 2, 1]


@pytest.mark.parametrize("value, text", [("noise", "noise"), ("exact", "exact"), (0, "exact"),
                                         (0.5, "0.5"), ("5%", "5%"), (" 2.5% ", "2.5%")])
def test_parse(value, text):
    assert CostTolerance.parse(value).text == text


@pytest.mark.parametrize("value", ["-1", -0.1, "x%", True, float("nan"), [], "%"])
def test_parse_refuses(value):
    with pytest.raises(MultitestError, match="`cost_tolerance` must be 'noise', 'exact'"):
        rank(pd.DataFrame({"dataset": "d", "algorithm": ["a", "b"], "error": [0.1, 0.2]}),
             ["a", "b"], cost_tolerance=value)


def _frame():
    # on every data set b is a little better than a, c much better (2 folds)
    rows = [{"dataset": f"d{s}", "algorithm": a, "fold": f, "error": e + 0.01 * s + 0.001 * f}
            for s in range(4) for a, e in (("a", 0.30), ("b", 0.29), ("c", 0.10))
            for f in (1, 2)]
    return pd.DataFrame(rows)


def test_ties_within_the_noise_are_broken_by_the_secondary_profile_then_by_name():
    costs = {"a": 1.00, "b": 1.02, "c": 5.0}
    noisy = CostProfile(name="fit", costs=costs, noise={"a": 0.05, "b": 0.05, "c": 0.1})
    ranking = rank(_frame(), noisy, test="kfold-t")
    assert ranking.dataset("d0").prior_order == ("a", "b", "c")        # a = b: by name
    assert ranking.dataset("d0").cost_ties == (("a", "b"),)
    assert any(n.startswith("costs that differ by at most the larger of their noise figures "
                            "are ties, broken by the secondary profile, then by name: d0: "
                            "a = b") for n in ranking.notes)
    assert ranking.second_pass.cost_ties == (("a", "b"),)
    secondary = CostProfile(name="mem", costs={"a": 2, "b": 1, "c": 3})
    with_secondary = rank(_frame(), CostProfile(name="fit", costs=costs, noise=noisy.noise,
                                                secondary=secondary), test="kfold-t")
    assert with_secondary.dataset("d0").prior_order == ("b", "a", "c")
    assert with_secondary.second_pass.prior_order == ("b", "a", "c")
    exact = rank(_frame(), noisy, test="kfold-t", cost_tolerance="exact")
    assert exact.dataset("d0").cost_ties == () and exact.settings.cost_tolerance == "exact"


def test_a_profile_without_noise_is_exact_by_default_and_tolerant_when_asked():
    profile = CostProfile(name="fit", costs={"a": 1.02, "b": 1.0, "c": 5.0})
    assert rank(_frame(), profile, test="kfold-t").dataset("d0").prior_order == ("b", "a", "c")
    tolerant = rank(_frame(), profile, test="kfold-t", cost_tolerance="5%")
    assert tolerant.dataset("d0").prior_order == ("a", "b", "c")
    assert any("costs that differ by at most 5% of the larger are ties" in n
               for n in tolerant.notes)


def test_noise_in_a_yaml_profile_and_its_normalization(tmp_path):
    path = tmp_path / "fit.yaml"
    path.write_text(textwrap.dedent("""\
        name: fit
        normalization: max
        per_dataset:
          d0: {a: 1.0, b: 2.0}
        noise:
          d0: {a: 0.1, b: 0.4}
        """))
    profile = load_profile(path)
    np.testing.assert_allclose(profile.noise_matrix(["d0"], ["a", "b"]), [[0.05, 0.2]])
    path.write_text("costs: {a: 1, b: 2}\nnoise: {a: 0.1, b: -1}\n")
    with pytest.raises(MultitestError, match="fit.yaml, row 2, field 'noise.b': cost must not "
                                             "be negative"):
        load_profile(path)
    path.write_text("order: [a, b]\nnoise: {a: 0.1, b: 0.1}\n")
    with pytest.raises(MultitestError, match="noise goes with costs or per_dataset"):
        load_profile(path)


def test_outputs_name_the_ties(tmp_path, capsys):
    frame = _frame()
    frame["fit_time"] = np.where(frame["algorithm"] == "c", 5.0, 1.0) \
        + np.tile([0.0, 0.04], len(frame) // 2)
    frame.to_csv(tmp_path / "r.csv", index=False)
    out = tmp_path / "out"
    assert main(["rank", str(tmp_path / "r.csv"), "--costs", "column:fit_time", "--test",
                 "kfold-t", "--out", str(out)]) == 0
    assert "noise figures are ties" in capsys.readouterr().out
    result = json.loads((out / "result.json").read_text())
    assert result["settings"]["cost_tolerance"] == "noise"
    assert any("d0: a = b" in n for n in result["notes"])


def test_two_repeated_runs_of_the_same_experiment_give_the_same_order(tmp_path):
    """The issue's test: fit times within their noise no longer decide the order."""
    pytest.importorskip("sklearn")
    pytest.importorskip("distributed")
    from multitest.run import run_experiment

    # Two trees of the same cost (random_state only) and a clearly costlier forest.
    experiment = tmp_path / "experiment.yaml"
    tree = "{estimator: sklearn.tree.DecisionTreeClassifier, params: {max_depth: 2, " \
           "random_state: %d}}"
    experiment.write_text(textwrap.dedent(f"""\
        datasets:
          - sklearn: iris
          - sklearn: wine
          - sklearn: breast_cancer
        algorithms:
          tree_a: {tree % 0}
          tree_b: {tree % 1}
          forest: {{estimator: sklearn.ensemble.RandomForestClassifier,
                    params: {{n_estimators: 60, random_state: 0}}}}
        cv: {{replications: 5, folds: 2, seed: 3}}
        repeats: 1
        """))
    orders = []
    for run in ("first", "second"):
        run_experiment(str(experiment), tmp_path / run, workers=2, show_progress=False)
        ranking = rank(str(tmp_path / run / "results.csv"),
                       load_profile(tmp_path / run / "costs" / "fit_time.yaml"))
        assert ranking.profile.noise is not None
        assert ranking.second_pass.cost_ties == (("tree_a", "tree_b"),)
        orders.append(ranking.final_order)
    assert orders[0] == orders[1]


def test_the_report_says_tied_not_equal(tmp_path):
    from multitest.figures._report import write_report

    noisy = CostProfile(name="fit", costs={"a": 1.00, "b": 1.02, "c": 5.0},
                        noise={"a": 0.05, "b": 0.05, "c": 0.1})
    ranking = rank(_frame(), noisy, test="kfold-t")
    assert not ranking.tolerance.exact
    write_report(ranking, str(tmp_path / "report.html"))
    html = (tmp_path / "report.html").read_text()
    assert "Tied costs (within the cost tolerance, see the notes): a = b." in html
    assert "Prior (cheapest first): a = b &lt; c." in html
    assert "Equal costs" not in html
    from multitest.outputs._summary import summary_text

    assert "prior (average cost) a = b < c;" in summary_text(ranking)


def test_stability_takes_the_tolerance():
    from multitest import stability

    # Equal errors: every order is the prior; a and b are tied within their noise.
    frame = _frame().assign(error=0.2)
    noisy = CostProfile(name="fit", costs={"a": 1.02, "b": 1.00, "c": 5.0},
                        noise={"a": 0.05, "b": 0.05, "c": 0.1})
    tied = stability(frame, noisy, bootstrap=20, test="kfold-t")
    assert tied.reference_order == rank(frame, noisy, test="kfold-t").final_order == (
        "a", "b", "c")
    assert tied.first_probability["a"] == 1.0   # the resamples see the tie too
    exact = stability(frame, noisy, bootstrap=20, test="kfold-t", cost_tolerance="exact")
    assert exact.reference_order == ("b", "a", "c") and exact.first_probability["b"] == 1.0
    assert exact.settings["cost_tolerance"] == "exact"
