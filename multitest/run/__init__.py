"""Experiments: the experiment file, the measured fold task, the SQLite store and the runner.

Needs the ``run`` extra (scikit-learn, Dask) when an experiment is run.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "Experiment": "._experiment",
    "DatasetSpec": "._experiment",
    "AlgorithmSpec": "._experiment",
    "load_experiment": "._experiment",
    "load_dataset": "._experiment",
    "check_estimators": "._experiment",
    "SOURCES": "._experiment",
    "DEFAULT_OPENML_CACHE": "._experiment",
    "Task": "._measure",
    "run_task": "._measure",
    "fold_indices": "._measure",
    "close_fit_processes": "._measure",
    "MEASURES": "._measure",
    "run_experiment": "._runner",
    "RunResult": "._runner",
    "EXTRA_MESSAGE": "._runner",
    "require_extra": "._runner",
    "Store": "._store",
    "STORE_FILE": "._store",
    "KEY": "._store",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
