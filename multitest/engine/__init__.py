"""The engine: stage 1 on each data set, the cost-ordered sort, the second pass over data
sets, the ranking, its explanations and its stability.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "BayesianPairwiseTable": "._bayesian_stage1",
    "pair_probabilities": "._bayesian_stage1",
    "run_bayesian_tests": "._bayesian_stage1",
    "dataset_effects": "._effects",
    "pairwise_columns": "._effects",
    "second_pass_columns": "._effects",
    "second_pass_rows": "._effects",
    "Explanation": "._explain",
    "FriedmanPower": "._explain",
    "explain_order": "._explain",
    "explain_sort": "._explain",
    "friedman_power": "._explain",
    "cost_unit_sentence": "._explain",
    "ordinal": "._explain",
    "SortStep": "._ordering",
    "cost_ordered_sort": "._ordering",
    "sort_trace": "._ordering",
    "named_trace": "._ordering",
    "overrides_from_decisions": "._ordering",
    "DataSetResult": "._per_dataset",
    "prior_positions": "._per_dataset",
    "cost_ties": "._per_dataset",
    "multitest_per_dataset": "._per_dataset",
    "rank": "._ranking",
    "Ranking": "._ranking",
    "transitive_reduction": "._reduction",
    "SecondPassResult": "._second_pass",
    "SECOND_PASS_METHODS": "._second_pass",
    "second_pass": "._second_pass",
    "order_by_decisions": "._second_pass",
    "average_cost_prior": "._second_pass",
    "final_order": "._second_pass",
    "better_matrix": "._second_pass",
    "Option": "._settings",
    "OPTIONS": "._settings",
    "Settings": "._settings",
    "ALTERNATIVES": "._settings",
    "SCORE_MATRIX_TEST": "._settings",
    "options_of": "._settings",
    "StabilityResult": "._stability",
    "stability": "._stability",
    "stability_text": "._stability",
    "stability_to_dict": "._stability",
    "DEFAULT_ALPHAS": "._stability",
    "DEFAULT_N_BOOTSTRAP": "._stability",
    "PairwiseTable": "._stage1",
    "LazyRows": "._stage1",
    "run_pairwise_tests": "._stage1",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
