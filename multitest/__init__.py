"""multitest: cost-conscious ordering of machine-learning algorithms.

MultiTest orders L algorithms on one data set by a prior preference (a cost)
that a pairwise test overrides only when a costlier algorithm is significantly
more accurate; Multi²Test combines the orders of many data sets with a
Friedman test and a post-hoc test into one final order.

>>> from multitest import rank, example_results
>>> ranking = rank(example_results(), "training_time")
>>> ranking.final_order[0]
'svr'
"""

from importlib import resources

from .costs import CostProfile, load_profile, profile_from_order
from .errors import InputError, MultitestError, UnknownTestError
from .pairwise import available_tests, get_test, register_test
from .ranking import Ranking, rank
from .results import Results, load_results

__version__ = "0.1.0"

__all__ = ["rank", "Ranking", "load_results", "Results", "load_profile", "profile_from_order",
           "CostProfile", "register_test", "get_test", "available_tests", "example_results",
           "example_path", "MultitestError", "InputError", "UnknownTestError"]


def example_path():
    """Path of the bundled report data (``accuracy.csv`` of Ulaş et al. 2008)."""
    return str(resources.files("multitest") / "data" / "ulas2008" / "accuracy.csv")


def example_results():
    """The bundled report data: 8 algorithms, 38 data sets, 5x2 cv accuracies."""
    return load_results(example_path())
