"""Property tests (hypothesis) of the whole pipeline."""
import numpy as np
from helpers import make_frame
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from multitest import load_results, rank

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def experiments(draw):
    """Random 5x2 cv errors with some strong effects, plus a random cost order."""
    S = draw(st.integers(1, 5))
    L = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0, 0.3, size=(1, L, 1)) * draw(st.sampled_from([0, 1]))
    errors = 0.2 + skill + rng.normal(0, 0.02, size=(S, L, 10))
    names = [f"alg{j}" for j in range(L)]
    order = list(rng.permutation(names))
    return make_frame(errors, algorithms=names), order, rng


def _summary(ranking):
    return (ranking.final_order, ranking.average_positions,
            {r.name: (r.order, r.ranks) for r in ranking.datasets})


@SETTINGS
@given(experiments())
def test_shuffling_rows_or_datasets_changes_nothing(case):
    frame, order, rng = case
    reference = _summary(rank(frame, order))
    shuffled = frame.iloc[rng.permutation(len(frame))]
    assert _summary(rank(shuffled, order)) == reference
    datasets = list(frame["dataset"].unique())
    reordered = load_results(frame).subset(datasets=list(rng.permutation(datasets)))
    assert _summary(rank(reordered, order)) == reference


@SETTINGS
@given(experiments())
def test_renaming_algorithms_renames_the_outputs(case):
    frame, order, _ = case
    # A renaming that keeps alphabetical order, so tie-breaks by name are unchanged.
    rename = {a: f"x_{a}" for a in order}
    before = rank(frame, order)
    after = rank(frame.replace({"algorithm": rename}), [rename[a] for a in order])
    assert after.final_order == tuple(rename[a] for a in before.final_order)
    assert after.average_positions == {rename[a]: r for a, r in before.average_positions.items()}


@SETTINGS
@given(experiments(), st.sampled_from(["combined-5x2cv-f", "kfold-t", "wilcoxon", "sign",
                                       "corrected-t", "5x2cv-t"]),
       st.sampled_from(["none", "holm", "bonferroni"]))
def test_the_order_is_always_a_permutation(case, test, correction):
    frame, order, _ = case
    ranking = rank(frame, order, test=test, correction=correction)
    assert sorted(ranking.final_order) == sorted(order)
    for result in ranking.datasets:
        assert sorted(result.order) == sorted(order)
        assert sorted(result.ranks.values()) == list(range(1, len(order) + 1))


@SETTINGS
@given(st.integers(1, 4), st.integers(2, 6), st.integers(0, 10**6))
def test_identical_errors_give_the_cost_order(S, L, seed):
    rng = np.random.default_rng(seed)
    errors = np.tile(rng.uniform(0, 1, size=(S, 1, 10)), (1, L, 1))
    names = [f"a{j}" for j in range(L)]
    order = list(rng.permutation(names))
    ranking = rank(make_frame(errors, algorithms=names), order)
    assert ranking.final_order == tuple(order)
