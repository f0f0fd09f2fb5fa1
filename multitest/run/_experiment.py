"""Experiment files of ``multitest run``: data sets, learners, cross-validation, metric.

:func:`load_experiment` reads and validates the YAML file completely before
anything runs (a one-line :class:`~multitest._errors.InputError` naming the file,
line and field).  This module does not import scikit-learn: it runs in the
core; :func:`load_dataset` and :func:`check_estimators` import it when called.

Schema::

    datasets:                         # a list; each entry one of
      - sklearn: breast_cancer        #   a bundled loader (load_<name>), no download
      - csv: data/credit.csv          #   a CSV file (path relative to the YAML file)
        target: default               #   its target column
      - parquet: data/x.parquet       #   a Parquet file (needs pyarrow)
        target: y
      - openml: 31                    #   an OpenML id, fetched once into the cache
        name: credit-g                # optional display name of any entry
    algorithms:                       # name -> import path and parameters
      knn: {estimator: sklearn.neighbors.KNeighborsClassifier, params: {n_neighbors: 5}}
    cv: {replications: 5, folds: 2, seed: 0}   # stratified; the same folds for every algorithm
    metric: error                     # 1 - accuracy, or any scikit-learn scorer name
    repeats: 3                        # fits of the first fold, for the noise of the costs
    timeout: 600                      # seconds per fit (optional)
    isolate: true                     # each fit in a forked child (false: in the worker)
    openml_cache: ~/.cache/multitest/openml    # optional
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field

from .._errors import InputError, MultitestError
from ..inputs._costs import read_yaml

__all__ = ["Experiment", "DatasetSpec", "AlgorithmSpec", "load_experiment", "load_dataset",
           "check_estimators", "SOURCES", "DEFAULT_OPENML_CACHE"]

#: Kinds of data set entries.
SOURCES = ("sklearn", "csv", "parquet", "openml")
_DATASET_KEYS = SOURCES + ("target", "name")
_TOP_KEYS = ("name", "datasets", "algorithms", "cv", "metric", "repeats", "timeout",
             "isolate", "openml_cache")
_CV_KEYS = ("replications", "folds", "seed")
DEFAULT_OPENML_CACHE = os.path.join("~", ".cache", "multitest", "openml")
#: The classification data sets shipped inside scikit-learn (no download).
_BUNDLED = ("breast_cancer", "digits", "iris", "wine")


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of an experiment: where it comes from and its target."""

    name: str
    source: str
    location: str
    target: str | None = None

    def fingerprint(self):
        return {"source": self.source, "location": self.location, "target": self.target}


@dataclass(frozen=True)
class AlgorithmSpec:
    """One learner: a name, an importable estimator class and its parameters."""

    name: str
    estimator: str
    params: dict = field(default_factory=dict)

    def fingerprint(self):
        return {"estimator": self.estimator, "params": self.params}


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file (see the module documentation)."""

    name: str
    datasets: tuple
    algorithms: tuple
    replications: int
    folds: int
    seed: int
    metric: str
    repeats: int
    timeout: float | None
    isolate: bool
    openml_cache: str
    path: str
    _lines: dict = field(default_factory=dict, repr=False)

    def spec_hash(self, dataset, algorithm):
        """What determines a fold's result: a changed hash means recompute it."""
        text = json.dumps([dataset.fingerprint(), algorithm.fingerprint(), self.replications,
                           self.folds, self.seed, self.metric], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def where(self, *key):
        """``(file, line)`` of a key path, for error messages."""
        return self.path, self._lines.get(key)


def load_experiment(path):
    """Read and validate an experiment file.

    Raises
    ------
    InputError
        On malformed YAML, an unknown key, a missing or invalid field; the
        message names the file, line and field.
    """
    path = os.fspath(path)
    data, lines = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("an experiment file must be a YAML mapping", source=path, row=1)

    def fail(message, *key):
        found = key
        while found and found not in lines:   # a missing key: the line of its parent
            found = found[:-1]
        raise InputError(message, source=path, row=lines.get(found),
                         field=".".join(map(str, key)) or None)

    for key in data:
        if key not in _TOP_KEYS:
            fail(f"unknown key; valid keys are {', '.join(_TOP_KEYS)}", key)
    for key in ("datasets", "algorithms"):
        if key not in data:
            raise InputError(f"missing '{key}'", source=path, row=1, field=key)
    base = os.path.dirname(os.path.abspath(path))
    datasets = _datasets(data["datasets"], base, fail)
    algorithms = _algorithms(data["algorithms"], fail)
    cv = data.get("cv", {}) or {}
    if not isinstance(cv, dict):
        fail("must be a mapping {replications, folds, seed}", "cv")
    for key in cv:
        if key not in _CV_KEYS:
            fail(f"unknown key; valid keys are {', '.join(_CV_KEYS)}", "cv", key)
    replications = _integer(cv.get("replications", 5), 1, fail, "cv", "replications")
    folds = _integer(cv.get("folds", 2), 2, fail, "cv", "folds")
    seed = _integer(cv.get("seed", 0), 0, fail, "cv", "seed")
    metric = data.get("metric", "error")
    if not isinstance(metric, str) or not metric.strip():
        fail("must be 'error' or a scikit-learn scorer name", "metric")
    repeats = _integer(data.get("repeats", 3), 1, fail, "repeats")
    timeout = data.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not timeout > 0):
        fail(f"must be a positive number of seconds, got {timeout!r}", "timeout")
    isolate = data.get("isolate", True)
    if not isinstance(isolate, bool):
        fail(f"must be true or false, got {isolate!r}", "isolate")
    if timeout is not None and not isolate:
        fail("a timeout needs each fit in its own process: remove it or set isolate: true",
             "timeout")
    cache = data.get("openml_cache", DEFAULT_OPENML_CACHE)
    if not isinstance(cache, str):
        fail("must be a folder", "openml_cache")
    name = data.get("name") or os.path.splitext(os.path.basename(path))[0]
    return Experiment(name=str(name), datasets=datasets, algorithms=algorithms,
                      replications=replications, folds=folds, seed=seed, metric=metric.strip(),
                      repeats=repeats, timeout=None if timeout is None else float(timeout),
                      isolate=isolate,
                      openml_cache=os.path.join(base, os.path.expanduser(cache)), path=path,
                      _lines=lines)


def _integer(value, minimum, fail, *key):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        fail(f"must be an integer >= {minimum}, got {value!r}", *key)
    return value


def _datasets(node, base, fail):
    if not isinstance(node, list) or not node:
        fail("must be a non-empty list of data sets", "datasets")
    out, names = [], set()
    for i, entry in enumerate(node):
        key = ("datasets", i)
        if not isinstance(entry, dict):
            fail(f"must be a mapping with one of {', '.join(SOURCES)}", *key)
        for k in entry:
            if k not in _DATASET_KEYS:
                fail(f"unknown key; valid keys are {', '.join(_DATASET_KEYS)}", *key, k)
        kinds = [k for k in SOURCES if k in entry]
        if len(kinds) != 1:
            fail(f"needs exactly one of {', '.join(SOURCES)}", *key)
        source = kinds[0]
        location = entry[source]
        if source == "openml":
            if isinstance(location, bool) or not isinstance(location, int) or location < 1:
                fail(f"must be an OpenML data set id (a positive integer), got {location!r}",
                     *key, source)
            default_name = f"openml-{location}"
        else:
            if not isinstance(location, str) or not location.strip():
                fail("must be a name" if source == "sklearn" else "must be a file path",
                     *key, source)
            default_name = location if source == "sklearn" else \
                os.path.splitext(os.path.basename(location))[0]
        target = entry.get("target")
        if source in ("csv", "parquet"):
            if not isinstance(target, str) or not target:
                fail("a CSV or Parquet data set needs its target column", *key, "target")
            location = os.path.join(base, os.path.expanduser(location))
            if not os.path.isfile(location):
                fail(f"no such file: {location}", *key, source)
        elif target is not None and not isinstance(target, str):
            fail("must be a column name", *key, "target")
        name = entry.get("name", default_name)
        if not isinstance(name, str) or not name:
            fail("must be a non-empty name", *key, "name")
        if name in names:
            fail(f"data set name {name!r} is used twice (give one a 'name')", *key)
        names.add(name)
        out.append(DatasetSpec(name=name, source=source, location=str(location), target=target))
    return tuple(out)


def _algorithms(node, fail):
    if not isinstance(node, dict) or len(node) < 2:
        fail("must map at least two algorithm names to {estimator, params}", "algorithms")
    out = []
    for name, spec in node.items():
        key = ("algorithms", name)
        if isinstance(spec, str):
            spec = {"estimator": spec}
        if not isinstance(spec, dict):
            fail("must be {estimator: module.Class, params: {...}}", *key)
        for k in spec:
            if k not in ("estimator", "params"):
                fail("unknown key; valid keys are estimator, params", *key, k)
        estimator = spec.get("estimator")
        if not isinstance(estimator, str) or "." not in estimator.replace(":", "."):
            fail("needs an import path such as sklearn.tree.DecisionTreeClassifier", *key,
                 "estimator")
        params = spec.get("params", {}) or {}
        if not isinstance(params, dict):
            fail("must be a mapping of parameter names to values", *key, "params")
        out.append(AlgorithmSpec(name=name, estimator=estimator, params=params))
    return tuple(out)


# -- needing scikit-learn (the 'run' extra) ---------------------------------------------

def import_estimator(path):
    """The class named by ``module.Class`` or ``module:Class``."""
    import importlib

    module, _, attribute = path.replace(":", ".").rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def check_estimators(experiment):
    """Import and build every estimator once, before any fold runs.

    Raises
    ------
    InputError
        If an import path does not resolve or the parameters are refused,
        naming the file, line and field.
    """
    for spec in experiment.algorithms:
        source, row = experiment.where("algorithms", spec.name, "estimator")
        try:
            cls = import_estimator(spec.estimator)
        except (ImportError, AttributeError, ValueError) as exc:
            raise InputError(f"cannot import {spec.estimator!r} ({exc})", source=source, row=row,
                             field=f"algorithms.{spec.name}.estimator") from None
        try:
            estimator = cls(**spec.params)
            estimator.get_params()
        except Exception as exc:   # any refusal of the parameters is the user's input
            source, row = experiment.where("algorithms", spec.name, "params")
            raise InputError(f"{spec.estimator} refuses the parameters: {exc}", source=source,
                             row=row, field=f"algorithms.{spec.name}.params") from None
        if not hasattr(estimator, "fit"):
            raise InputError(f"{spec.estimator} has no fit method", source=source, row=row,
                             field=f"algorithms.{spec.name}.estimator")


def load_dataset(experiment, index):
    """``(X, y)`` of data set number `index` as NumPy arrays, validated for the folds.

    Raises
    ------
    InputError
        If the data set cannot be loaded (an unknown bundled name, a missing
        target column, an OpenML id that is neither cached nor reachable) or
        a class has fewer members than there are folds.
    """
    import numpy as np

    spec = experiment.datasets[index]
    source, row = experiment.where("datasets", index, spec.source)
    field = f"datasets.{index}.{spec.source}"
    if spec.source == "sklearn":
        X, y = _bundled(spec, source, row, field)
    elif spec.source == "openml":
        X, y = _openml(spec, experiment.openml_cache, source, row, field)
    else:
        X, y = _table(spec, source, row, field)
    X = np.ascontiguousarray(X, dtype=float)
    y = np.asarray(y)
    if len(X) != len(y) or len(y) < experiment.folds:
        raise InputError(f"data set {spec.name!r} has {len(y)} examples, fewer than the "
                         f"{experiment.folds} folds", source=source, row=row, field=field)
    values, counts = np.unique(y, return_counts=True)
    if counts.min() < experiment.folds:
        raise InputError(f"data set {spec.name!r}: class {values[counts.argmin()]} has "
                         f"{counts.min()} example(s), fewer than the {experiment.folds} folds "
                         "of stratified cross-validation", source=source, row=row, field=field)
    return X, y


def _bundled(spec, source, row, field):
    import sklearn.datasets

    if spec.location not in _BUNDLED:
        raise InputError(f"no bundled scikit-learn data set {spec.location!r}; bundled "
                         f"classification sets are {', '.join(_BUNDLED)}", source=source,
                         row=row, field=field)
    return getattr(sklearn.datasets, f"load_{spec.location}")(return_X_y=True)


def _openml(spec, cache, source, row, field):
    from sklearn.datasets import fetch_openml

    try:
        bunch = fetch_openml(data_id=int(spec.location), data_home=cache, as_frame=True,
                             parser="auto", n_retries=1, delay=0.1,
                             target_column=spec.target or "default-target")
    except (OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot fetch OpenML data set {spec.location} and it is not in the "
                         f"local cache {cache} (offline? {reason})", source=source, row=row,
                         field=field) from None
    return _features(bunch.data), bunch.target


def _table(spec, source, row, field):
    import pandas as pd

    try:
        if spec.source == "csv":
            frame = pd.read_csv(spec.location)
        else:
            frame = pd.read_parquet(spec.location)
    except ImportError:
        raise MultitestError("reading Parquet needs pyarrow: pip install 'multitest[run]' "
                             "pyarrow") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {spec.location} ({type(exc).__name__}: {exc})",
                         source=source, row=row, field=field) from None
    if spec.target not in frame.columns:
        raise InputError(f"no target column {spec.target!r} in {spec.location}; columns are "
                         f"{', '.join(map(str, frame.columns))}", source=source, row=row,
                         field=field.rsplit(".", 1)[0] + ".target")
    return _features(frame.drop(columns=[spec.target])), frame[spec.target].to_numpy()


def _features(frame):
    """Numeric features; text and categorical columns one-hot encoded."""
    import pandas as pd

    return pd.get_dummies(frame, dummy_na=False).astype(float).to_numpy()
