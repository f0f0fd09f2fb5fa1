"""Issue 11 options end to end: Friedman ties, exact Wilcoxon, test/train ratio, Shaffer/BH.

References: R's friedman.test (issue 11's worked example, ties_exact_r.R),
scipy.stats.t for the corrected resampled t by hand, and
multitest.stats._corrections.adjust_all_pairs (tested against brute force in
test_corrections.py) for the second-pass corrections.
"""
import json

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame
from numpy.testing import assert_allclose
from scipy import stats

from multitest import rank
from multitest._errors import MultitestError
from multitest.cli import main
from multitest.engine._stability import _friedman_pvalues
from multitest.stats import adjust_all_pairs, friedman
from multitest.stats._friedman import rank_tie_terms as _rank_tie_terms


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _score_matrix_csv(tmp_path, accuracy, name="scores.csv"):
    accuracy = np.asarray(accuracy, dtype=float)
    path = tmp_path / name
    pd.DataFrame([(f"d{i}", f"a{j}", accuracy[i, j]) for i in range(accuracy.shape[0])
                  for j in range(accuracy.shape[1])],
                 columns=["dataset", "algorithm", "accuracy"]).to_csv(path, index=False)
    return str(path)


ISSUE_ACCURACY = [[90, 85, 80, 75]] * 4 + [[80, 80, 80, 80]] * 4


@pytest.mark.parametrize(("ties", "statistic", "pvalue"), [
    (None, 12.0, 0.0073831605053597711),      # R: friedman.test, chi2 = 12, p = 0.00738
    ("uncorrected", 6.0, 0.11161022509471268),  # Demšar's formula: 6, p = 0.1116
])
def test_friedman_ties_on_the_command_line(tmp_path, capsys, ties, statistic, pvalue):
    path = _score_matrix_csv(tmp_path, ISSUE_ACCURACY)
    out_dir = tmp_path / "out"
    argv = ["rank", path, "--order", "a0,a1,a2,a3", "--out", str(out_dir)]
    if ties:
        argv += ["--friedman-ties", ties]
    status, out, err = run(argv, capsys)
    assert status == 0, err
    doc = json.loads((out_dir / "result.json").read_text())
    block = doc["friedman"]
    assert_allclose([block["statistic"], block["pvalue"]], [statistic, pvalue], rtol=1e-12)
    expected = ties or "corrected"
    assert block["ties"] == expected and doc["settings"]["friedman_ties"] == expected
    assert f"Friedman on positions: chi2 ({expected} for ties)" in out
    assert f"Friedman on error ranks: chi2 ({expected} for ties)" in out
    words = "tie-corrected" if expected == "corrected" else "without tie correction"
    assert words in block["decision"] and any(words in note for note in doc["notes"])


def test_all_algorithms_tied_everywhere_is_a_note(tmp_path, capsys):
    path = _score_matrix_csv(tmp_path, [[80, 80, 80]] * 5)
    status, out, err = run(["rank", path, "--order", "a0,a1,a2"], capsys)
    assert status == 0, err
    assert "all algorithms tied on every data set" in out
    assert "Final order" in out


def test_stability_friedman_gate_uses_the_same_tie_correction():
    # The bootstrap's vectorized Friedman p-values equal posthoc.friedman on
    # every resample, corrected and uncorrected.
    rng = np.random.default_rng(4)
    ranks = stats.rankdata(np.round(rng.uniform(size=(15, 5)), 1), axis=1)
    draws = rng.integers(0, 15, size=(40, 15))
    sums = np.stack([ranks[idx].sum(axis=0) for idx in draws])
    row_ties = _rank_tie_terms(ranks)
    got = _friedman_pvalues(sums, 15, 5, row_ties[draws].sum(axis=1))
    assert_allclose(got, [friedman(ranks[idx]).pvalue for idx in draws], rtol=1e-12)
    got = _friedman_pvalues(sums, 15, 5, np.zeros(40))
    assert_allclose(got, [friedman(ranks[idx], "uncorrected").pvalue for idx in draws],
                    rtol=1e-12)


def _subsampling_frame():
    # 10 random train/test splits (10 x 1), 3 data sets, 3 algorithms
    rng = np.random.default_rng(8)
    errors = rng.uniform(0.1, 0.3, (3, 3, 10))
    errors[:, 2] -= 0.02
    return make_frame(errors, replications=10), errors


def test_corrected_t_with_a_test_train_ratio_accepts_random_subsampling():
    # Reference: Nadeau & Bengio (2003) by hand with scipy.stats.t:
    # t = mean(d) / sqrt((1/J + n_test/n_train) var(d)), J - 1 df.
    frame, errors = _subsampling_frame()
    with pytest.raises(MultitestError, match="test/train ratio"):
        rank(frame, ["a0", "a1", "a2"], test="corrected-t")
    ranking = rank(frame, ["a0", "a1", "a2"], test="corrected-t", test_train_ratio=(100, 900))
    assert ranking.settings.test_train_ratio == 1 / 9
    table = ranking.datasets[0].table
    for s in range(3):
        for pair, (i, j) in enumerate(zip(table.cheaper, table.costlier)):
            d = errors[s, table.prior[s, i]] - errors[s, table.prior[s, j]]  # cheaper - costlier
            t = d.mean() / np.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1))
            assert_allclose(table.statistic[s, pair], t, rtol=1e-12)
            assert_allclose(table.pvalue[s, pair], 2 * stats.t.sf(abs(t), 9), rtol=1e-12)


def test_test_train_ratio_on_the_command_line(tmp_path, capsys):
    frame, _ = _subsampling_frame()
    path = tmp_path / "splits.csv"
    frame.to_csv(path, index=False)
    status, out, err = run(["rank", str(path), "--order", "a0,a1,a2", "--test", "corrected-t",
                            "--test-train-ratio", "1/9"], capsys)
    assert status == 0, err
    for bad, message in ((["--test-train-ratio", "1/0"], "`test_train_ratio` must be"),
                         (["--test-train-ratio", "x"], "`test_train_ratio` must be"),
                         ([], "test/train ratio")):
        status, _, err = run(["rank", str(path), "--order", "a0,a1,a2", "--test",
                              "corrected-t"] + bad, capsys)
        assert status == 2 and message in err and "Traceback" not in err
    status, _, err = run(["rank", str(path), "--order", "a0,a1,a2", "--test", "kfold-t",
                          "--test-train-ratio", "1/9"], capsys)
    assert status == 2 and "corrected-t" in err


@pytest.mark.parametrize("correction", ["shaffer", "bergmann-hommel"])
def test_posthoc_correction_shaffer_and_bergmann_hommel(tmp_path, capsys, correction):
    rng = np.random.default_rng(6)
    accuracy = np.round(rng.uniform(70, 90, (16, 5)) + np.linspace(0, 8, 5), 1)
    path = _score_matrix_csv(tmp_path, accuracy)
    out_dir = tmp_path / "out"
    status, out, err = run(["rank", path, "--order", "a0,a1,a2,a3,a4", "--second-pass",
                            "wilcoxon", "--posthoc-correction", correction,
                            "--no-friedman-gate", "--out", str(out_dir)], capsys)
    assert status == 0, err
    doc = json.loads((out_dir / "result.json").read_text())
    assert doc["second_pass"]["correction"] == correction
    ranking = rank(path, ["a0", "a1", "a2", "a3", "a4"], second_pass="wilcoxon",
                   posthoc_correction=correction, friedman_gate=False)
    posthoc = ranking.second_pass.posthoc
    upper = np.triu_indices(5, 1)
    assert_allclose(posthoc.pvalues[upper],
                    adjust_all_pairs(posthoc.raw_pvalues[upper], 5, correction), rtol=0)


def test_bergmann_hommel_beyond_its_limit_is_a_clear_error(tmp_path, capsys):
    rng = np.random.default_rng(7)
    path = _score_matrix_csv(tmp_path, rng.uniform(70, 90, (6, 11)))
    order = ",".join(f"a{j}" for j in range(11))
    status, _, err = run(["rank", path, "--order", order, "--second-pass", "wilcoxon",
                          "--posthoc-correction", "bergmann-hommel"], capsys)
    assert status == 2 and "at most 10 algorithms" in err and "shaffer" in err
