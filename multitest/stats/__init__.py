"""Statistics: distributions, pairwise tests on folds and their registry, corrections,
Friedman and post-hoc tests over data sets, Bayesian tests and effect sizes.

Nothing here knows of rankings, outputs or figures.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "BayesSettings": "._bayesian",
    "CorrelatedTResult": "._bayesian",
    "correlated_t": "._bayesian",
    "fold_correlation": "._bayesian",
    "bayes_correlated_t": "._bayesian",
    "DEFAULT_THRESHOLD": "._bayesian",
    "DEFAULT_SAMPLES": "._bayesian",
    "POSTERIOR_EVIDENCE": "._bayesian",
    "SignedRankResult": "._bayesian_signed_rank",
    "BayesianPosthoc": "._bayesian_signed_rank",
    "signed_rank": "._bayesian_signed_rank",
    "bayesian_posthoc": "._bayesian_signed_rank",
    "BERGMANN_HOMMEL_MAX": "._corrections",
    "CORRECTIONS": "._corrections",
    "PAIRWISE_CORRECTIONS": "._corrections",
    "adjust_all_pairs": "._corrections",
    "adjust_pvalues": "._corrections",
    "shaffer_multipliers": "._corrections",
    "MeanDifference": "._effect_sizes",
    "WilcoxonInterval": "._effect_sizes",
    "PairEffects": "._effect_sizes",
    "fold_mean_difference": "._effect_sizes",
    "wilcoxon_interval": "._effect_sizes",
    "over_datasets": "._effect_sizes",
    "interval_of": "._effect_sizes",
    "OVER_DATASETS_LIMIT": "._effect_sizes",
    "PairwiseTest": "._entry",
    "TestFailure": "._entry",
    "combined_5x2cv_f": "._fold_tests",
    "combined_5x2cv_t": "._fold_tests",
    "corrected_t": "._fold_tests",
    "kfold_t": "._fold_tests",
    "paired_5x2cv_t": "._fold_tests",
    "sign_test": "._fold_tests",
    "wilcoxon_pratt": "._fold_tests",
    "wilcoxon_scipy": "._fold_tests",
    "wilcoxon_signed_rank": "._fold_tests",
    "CONTROL_METHODS": "._posthoc",
    "PAIRWISE_METHODS": "._posthoc",
    "ControlResult": "._posthoc",
    "FRIEDMAN_TIES": "._posthoc",
    "FriedmanResult": "._posthoc",
    "PosthocResult": "._posthoc",
    "control_comparisons": "._posthoc",
    "critical_difference": "._posthoc",
    "friedman": "._posthoc",
    "nemenyi": "._posthoc",
    "pairwise_over_datasets": "._posthoc",
    "DEFAULT_TEST": "._registry",
    "ENTRY_POINT_GROUP": "._registry",
    "available_tests": "._registry",
    "get_test": "._registry",
    "register_test": "._registry",
    "EXACT_MAX": "._signed_rank",
    "ZERO_METHODS": "._signed_rank",
    "signed_rank_test": "._signed_rank",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
