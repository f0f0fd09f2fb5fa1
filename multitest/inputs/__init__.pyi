"""Public names of :mod:`multitest.inputs` (see ``__init__.py``)."""

from ._automl import read_automl as read_automl
from ._cost_tables import as_profile as as_profile
from ._cost_tables import load_cost_table as load_cost_table
from ._costs import CostProfile as CostProfile
from ._costs import bundled_profiles as bundled_profiles
from ._costs import load_profile as load_profile
from ._costs import profile_from_order as profile_from_order
from ._design import FoldDesign as FoldDesign
from ._metrics import metric_direction as metric_direction
from ._results import Results as Results
from ._results import load_results as load_results
from ._missing import missing_costs as missing_costs
from ._sklearn import from_cross_validate as from_cross_validate
from ._sklearn import from_cv_results as from_cv_results
