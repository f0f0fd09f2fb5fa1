"""Public names of :mod:`multitest.run` (see ``__init__.py``)."""

from ._experiment import AlgorithmSpec as AlgorithmSpec
from ._experiment import DatasetSpec as DatasetSpec
from ._experiment import Experiment as Experiment
from ._experiment import load_experiment as load_experiment
from ._runner import RunResult as RunResult
from ._runner import run_experiment as run_experiment
