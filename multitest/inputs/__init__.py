"""Inputs: per-fold results, cost profiles, cost tables and the fold design.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "as_profile": "._cost_tables",
    "is_cost_table": "._cost_tables",
    "profile_from_mapping": "._cost_tables",
    "profile_from_frame": "._cost_tables",
    "load_cost_table": "._cost_tables",
    "profile_from_column": "._cost_tables",
    "experiment_folder": "._cost_tables",
    "COLUMN_PREFIX": "._cost_tables",
    "CostProfile": "._costs",
    "load_profile": "._costs",
    "profile_from_order": "._costs",
    "bundled_profiles": "._costs",
    "NORMALIZATIONS": "._costs",
    "FoldDesign": "._design",
    "parse_test_train_ratio": "._design",
    "Results": "._results",
    "load_results": "._results",
    "VALUE_KINDS": "._results",
    "PARQUET_SUFFIXES": "._results",
    "MAX_ABS_VALUE": "._results",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
