"""The scikit-learn readers (inputs._sklearn, inputs._sklearn_cv): the design of the
splitter kept, the default score named, bad input refused naming the key and the candidate.

References: the splits' numbering and sizes are scikit-learn's own (its splitters asked
in the test); the errors are 1 - the scores of ``search.cv_results_`` read by hand; the
5x2 cv F p-value is Alpaydin's (1999) formula computed here with scipy.stats.f.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from multitest import InputError, MultitestError, from_cross_validate, from_cv_results, rank
from multitest.inputs import FoldDesign, load_results

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_diabetes, load_iris  # noqa: E402
from sklearn.dummy import DummyClassifier  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GridSearchCV,
    KFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_validate,
)
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

IRIS = load_iris(return_X_y=True)
GRID = {"max_depth": [1, 2, 3]}
FIVE_BY_TWO = RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=0)


def _search(cv, data=IRIS, estimator=None):
    estimator = DecisionTreeClassifier(random_state=0) if estimator is None else estimator
    return GridSearchCV(estimator, GRID, cv=cv).fit(*data)


# The design of each splitter: replications x folds and the test/train ratio (None: the
# 1/(k-1) of k folds); ShuffleSplit(test_size=0.2): 0.2 / 0.8.
DESIGNS = [(KFold(5), FoldDesign(1, 5), "KFold"),
           (StratifiedKFold(10), FoldDesign(1, 10), "StratifiedKFold"),
           (FIVE_BY_TWO, FoldDesign(5, 2), "RepeatedStratifiedKFold"),
           (ShuffleSplit(4, test_size=0.2, random_state=0), FoldDesign(4, 1, 0.25),
            "ShuffleSplit"),
           (3, FoldDesign(1, 3), "check_cv")]


def test_repeated_splits_are_numbered_repeat_major_by_sklearn():
    # A scorer returning the sum of the test rows' numbers names each split of the search;
    # scikit-learn's own splitter gives the test rows of split i.
    X = np.column_stack([np.arange(len(IRIS[1])), IRIS[0]])

    def test_rows(estimator, X, y):
        return float(X[:, 0].sum())

    search = GridSearchCV(DummyClassifier(), {"strategy": ["prior", "uniform"]}, cv=FIVE_BY_TWO,
                          scoring=test_rows).fit(X, IRIS[1])
    tests = [test for _, test in FIVE_BY_TWO.split(X, IRIS[1])]
    for r in range(5):   # repeat-major: splits 2r and 2r + 1 are the two halves of repeat r
        assert sorted(np.concatenate(tests[2 * r:2 * r + 2]).tolist()) == list(range(150))
    frame = from_cv_results(search, "iris", metric="test_rows")
    for row in frame.itertuples():
        split = (row.replication - 1) * 2 + (row.fold - 1)
        assert row.score == tests[split].sum()


@pytest.mark.parametrize("cv, design, name", DESIGNS, ids=[d[2] for d in DESIGNS])
def test_a_search_and_cross_validate_keep_the_design_of_their_splitter(cv, design, name):
    results = load_results(from_cv_results(_search(cv), "iris"))
    assert results.design == design
    assert any(name in note and f"design {design}" in note for note in results.notes)
    study = {f"depth {d}": cross_validate(DecisionTreeClassifier(max_depth=d, random_state=0),
                                          *IRIS, cv=cv) for d in (1, 2)}
    frame = from_cross_validate(study, "iris", metric="accuracy", cv=cv)
    assert load_results(frame).design == design


def test_the_default_test_ranks_a_5x2_search_with_alpaydins_f():
    search = _search(FIVE_BY_TWO)
    ranking = rank(from_cv_results(search, "iris"), "column:fit_time")   # default test
    assert ranking.settings.test == "combined-5x2cv-f" and ranking.results.design.is_5x2
    cv = search.cv_results_
    errors = 1 - np.array([[cv[f"split{i}_test_score"][c] for i in range(10)] for c in range(3)])
    names = [f"max_depth={d}" for d in GRID["max_depth"]]
    pairs = ranking.dataset("iris").pairs()
    assert len(pairs) == 3
    for pair in pairs:
        p = (errors[names.index(pair["a"])] - errors[names.index(pair["b"])]).reshape(5, 2)
        s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        f = (p ** 2).sum() / (2 * s2.sum())
        assert pair["pvalue"] == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-9)


def test_a_shufflesplit_ratio_reaches_the_corrected_t_test(tmp_path):
    from multitest.outputs import read_pairwise
    from multitest.outputs._pairwise_file import write_pairwise_file

    search = _search(ShuffleSplit(4, test_size=0.2, random_state=0))
    ranking = rank(from_cv_results(search, "iris"), "column:fit_time", test="corrected-t")
    assert ranking.results.design == FoldDesign(4, 1, 0.25)
    pairs = ranking.dataset("iris").pairs()
    errors = dict(zip(ranking.results.algorithms, ranking.results.errors[0]))
    for pair in pairs:   # Nadeau and Bengio (2003) with the ratio 0.2 / 0.8, by hand
        d = errors[pair["a"]] - errors[pair["b"]]
        t = d.mean() / np.sqrt((1 / 4 + 0.25) * d.var(ddof=1))
        assert pair["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), 3), rel=1e-9)
    write_pairwise_file(ranking, tmp_path / "pairwise.npz")   # its file reruns the tests
    np.testing.assert_allclose(read_pairwise(tmp_path / "pairwise.npz")["pvalue"],
                               [pair["pvalue"] for pair in pairs])


def test_the_default_score_is_accuracy_or_r2_as_an_error():
    search = _search(KFold(5))
    results = load_results(from_cv_results(search, "iris"))
    cv = search.cv_results_
    by_hand = [[1 - cv[f"split{i}_test_score"][c] for i in range(5)] for c in range(3)]
    np.testing.assert_allclose(results.errors[0], by_hand)   # 1 - accuracy
    assert "accuracy: higher is better, error = 1 - accuracy" in results.notes[0]

    diabetes = load_diabetes(return_X_y=True)
    search = _search(KFold(5), diabetes, DecisionTreeRegressor(random_state=0))
    results = load_results(from_cv_results(search, "diabetes"))
    cv = search.cv_results_
    by_hand = [[1 - cv[f"split{i}_test_score"][c] for i in range(5)] for c in range(3)]
    np.testing.assert_allclose(results.errors[0], by_hand)   # 1 - R², never negative
    assert (results.errors > 0).all() and "error = 1 - r2" in results.notes[0]

    study = {f"depth {d}": cross_validate(DecisionTreeClassifier(max_depth=d, random_state=0),
                                          *IRIS, cv=5, return_estimator=True) for d in (1, 2)}
    errors = load_results(from_cross_validate(study, cv=5)).errors[0]
    np.testing.assert_allclose(errors, [1 - study[a]["test_score"] for a in study])


def test_an_unnamed_score_without_an_estimator_is_refused_in_one_line():
    study = {"nb": {"test_score": [0.9, 0.8]}, "svm": {"test_score": [0.7, 0.6]}}
    with pytest.raises(MultitestError, match=r"^`metric`: the results of 'nb' hold unnamed "
                                             r"scores .*metric='accuracy'[^\n]*$"):
        from_cross_validate(study, cv=2)
    cv_results = {"params": [{"C": 1}, {"C": 2}], "split0_test_score": [0.9, 0.8]}
    with pytest.raises(MultitestError, match="unnamed scores"):
        from_cv_results(cv_results)


def test_a_dict_without_its_splitter_says_so_and_takes_one_replication():
    cv = _search(FIVE_BY_TWO).cv_results_
    results = load_results(from_cv_results(cv, "iris", metric="accuracy"))
    assert results.design == FoldDesign(1, 10)
    assert any("splitter of the results is not known" in note for note in results.notes)
    results = load_results(from_cv_results(cv, "iris", metric="accuracy", cv=FIVE_BY_TWO))
    assert results.design == FoldDesign(5, 2)
    study = {"nb": {"test_score": [0.9, 0.8, 0.7, 0.9]}, "svm": {"test_score": [0.8] * 4}}
    results = load_results(from_cross_validate(study, metric="accuracy"))
    assert results.design == FoldDesign(1, 4)
    assert any("splitter of the results is not known" in note for note in results.notes)


def test_failed_fits_stay_missing_results():
    # scikit-learn's error_score=np.nan: a failed fold is NaN, a missing result to multitest.
    cv_results = {"params": [{"C": 1}, {"C": 2}], "split0_test_score": [0.9, np.nan],
                  "split1_test_score": [0.8, None]}
    frame = from_cv_results(cv_results, "d", metric="accuracy", cv=2)
    with pytest.raises(InputError, match="missing"):
        load_results(frame)
    assert load_results(frame, allow_missing=True).n_missing == 2


def _cv_results(**changes):
    base = {"params": [{"C": 1}, {"C": 10}, {"C": 100}],
            **{f"split{i}_test_score": [0.8, 0.85, 0.9] for i in range(3)},
            "mean_fit_time": [0.1, 0.2, 0.3]}
    return {key: value for key, value in {**base, **changes}.items() if value is not None}


BAD_SEARCHES = [
    (_cv_results(split0_test_score=[0.8, 0.85]),
     r"cv_results_\['split0_test_score'\] has 2 value\(s\) for 3 candidates: none for candidate "
     r"'C=100'"),
    (_cv_results(params="C=1"), r"cv_results_\['params'\] must be a list .* got a str"),
    (_cv_results(params=[{"C": 1}, "C=10", {"C": 100}]),
     r"cv_results_\['params'\], candidate 2: a str, not a dict"),
    (_cv_results(split1_test_score=[0.8, "high", 0.9]),
     r"cv_results_\['split1_test_score'\], candidate 'C=10': 'high' is not a number"),
    (_cv_results(split1_test_score=0.8),
     r"cv_results_\['split1_test_score'\] must hold one number per candidate, got a float"),
    (_cv_results(split1_test_score=[[0.8, 0.7], [0.85, 0.8], [0.9, 0.9]]),
     r"cv_results_\['split1_test_score'\], candidate 'C=1': \[0.8, 0.7\] is not a number"),
    (_cv_results(split1_test_score=None),
     r"cv_results_ has split2_test_score but no split1_test_score"),
    (_cv_results(mean_fit_time=[0.1, 0.2]),
     r"cv_results_\['mean_fit_time'\] has 2 value\(s\) for 3 candidates"),
]


@pytest.mark.parametrize("cv_results, message", BAD_SEARCHES)
def test_a_bad_cv_results_names_the_key_and_the_candidate(cv_results, message):
    with pytest.raises(InputError, match=message):
        from_cv_results(cv_results, metric="accuracy", cv=3)


BAD_STUDIES = [
    ({"nb": {"test_score": 0.9}, "svm": {"test_score": [0.8, 0.7]}},
     r"the results of 'nb'\['test_score'\] must hold one number per fold, got a float"),
    ({"nb": {"test_score": [0.9, "0.8"]}, "svm": {"test_score": [0.8, 0.7]}},
     r"the results of 'nb'\['test_score'\], fold '2': '0.8' is not a number"),
    ({"nb": {"test_score": [0.9, 0.8]}, "svm": {"test_score": [0.8, 0.7, 0.6]}},
     r"the results of 'nb' have 2 folds, those of 'svm' 3"),
    ({"nb": {"test_score": [0.9, 0.8], "fit_time": [0.1]}, "svm": {"test_score": [0.8, 0.7]}},
     r"the results of 'nb'\['fit_time'\] has 1 value\(s\) for 2 folds"),
]


@pytest.mark.parametrize("study, message", BAD_STUDIES)
def test_a_bad_cross_validate_names_the_key_and_the_algorithm(study, message):
    with pytest.raises(InputError, match=message):
        from_cross_validate(study, metric="accuracy")


def test_a_splitter_at_odds_with_the_results_is_refused():
    with pytest.raises(MultitestError, match="cv = 5 makes 5 splits, the results hold 3"):
        from_cv_results(_cv_results(), metric="accuracy", cv=5)
    with pytest.raises(MultitestError, match="the search has its own splitter"):
        from_cv_results(_search(3), cv=3)
    with pytest.raises(MultitestError, match="data sets 'a' .* and 'b' .* differ"):
        from_cv_results({"a": _search(3), "b": _search(FIVE_BY_TWO)})
    pd.testing.assert_frame_equal(   # the same design: read as one table
        from_cv_results({"a": _search(3), "b": _search(KFold(3))})[["replication", "fold"]],
        pd.DataFrame({"replication": [1] * 18, "fold": [1, 2, 3] * 6}))


def test_the_ratio_survives_to_frame_and_back():
    results = load_results(from_cv_results(_search(ShuffleSplit(4, test_size=0.2,
                                                                random_state=0)), "iris"))
    assert load_results(results.to_frame()).design == results.design == FoldDesign(4, 1, 0.25)


def test_a_shufflesplit_ratio_survives_a_csv(tmp_path):
    # ShuffleSplit(test_size=0.25): ratio 0.25 / 0.75 = 1/3, in a test_train_ratio column
    search = _search(ShuffleSplit(4, test_size=0.25, random_state=0))
    frame = from_cv_results(search, "iris")
    assert frame["test_train_ratio"].tolist() == [0.25 / 0.75] * 12
    frame.to_csv(tmp_path / "cv.csv", index=False)   # attrs are lost, the column is not
    in_memory = rank(frame, "column:fit_time", test="corrected-t")
    from_csv = rank(tmp_path / "cv.csv", "column:fit_time", test="corrected-t")
    assert from_csv.results.test_train_ratio == in_memory.results.test_train_ratio == 1 / 3
    pairs = from_csv.dataset("iris").pairs()
    np.testing.assert_array_equal([pair["pvalue"] for pair in pairs],
                                  [pair["pvalue"] for pair in in_memory.dataset("iris").pairs()])
    errors = dict(zip(from_csv.results.algorithms, from_csv.results.errors[0]))
    for pair in pairs:   # Nadeau and Bengio (2003) with the ratio 1/3, by hand
        d = errors[pair["a"]] - errors[pair["b"]]
        t = d.mean() / np.sqrt((1 / 4 + 1 / 3) * d.var(ddof=1))
        assert pair["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), 3), rel=1e-9)
    # multitest's own long table (Results.to_frame, read by the fast paths) keeps it too
    in_memory.results.to_frame().to_csv(tmp_path / "own.csv", index=False)
    assert load_results(tmp_path / "own.csv").design == FoldDesign(4, 1, 1 / 3)
    # without the column the ratio is not known: that of k folds (None)
    frame.drop(columns="test_train_ratio").to_csv(tmp_path / "bare.csv", index=False)
    assert load_results(tmp_path / "bare.csv").test_train_ratio is None


@pytest.mark.parametrize("ratios, message", [
    (["0.25", "0.25", "0.5", "0.25"], "row 4, field 'test_train_ratio': test/train ratio 0.5 "
                                      "differs from 0.25 of row 2: one fold design"),
    (["0.25", "0", "0.25", "0.25"], "row 3, field 'test_train_ratio': test/train ratio '0' is "
                                    "not a number in (0, inf)"),
    (["0.25", "0.25", "", "0.25"], "row 4, field 'test_train_ratio': test/train ratio '' is "
                                   "not a number in (0, inf)"),
    (["x", "0.25", "0.25", "0.25"], "row 2, field 'test_train_ratio': test/train ratio 'x' is "
                                    "not a number in (0, inf)"),
])
def test_a_test_train_ratio_column_is_one_positive_number(tmp_path, ratios, message):
    path = tmp_path / "r.csv"
    path.write_text("dataset,algorithm,replication,fold,error,test_train_ratio\n" + "".join(
        f"d,{a},{r},1,0.{k + 1},{ratio}\n"
        for k, ((a, r), ratio) in enumerate(zip([("a", 1), ("a", 2), ("b", 1), ("b", 2)],
                                                ratios))))
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(caught.value).startswith(f"{path}, {message}")
    assert "\n" not in str(caught.value)


def test_a_frame_whose_attrs_and_column_disagree_is_refused():
    frame = from_cv_results(_search(ShuffleSplit(4, test_size=0.25, random_state=0)), "iris")
    frame["test_train_ratio"] = 0.5
    with pytest.raises(MultitestError, match=r"test/train ratio 0.5 \(column "
                                             r"'test_train_ratio'\) and 0.333333 \(its attrs\)"):
        load_results(frame)


def test_r2_is_at_most_one():
    from multitest.inputs._metrics import metric_errors

    errors, notes = metric_errors(np.array([0.75, -0.5]), np.array(["r2", "r2"]))
    np.testing.assert_allclose(errors, [0.25, 1.5])   # 1 - R²: never negative
    assert notes == ("r2: higher is better, error = 1 - r2 (values at most 1)",)
    with pytest.raises(InputError, match="row 2: r2 1.2 is outside its domain: at most 1"):
        metric_errors(np.array([0.5, 1.2]), np.array(["r2", "r2"]), row_offset=1)
