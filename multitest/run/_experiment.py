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
    timeout: 600                      # seconds per fit, or none (optional)
    isolate: true                     # each fit in a forked child (false: in the worker)
    openml_cache: ~/.cache/multitest/openml    # optional
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
from dataclasses import dataclass, field

from .._errors import InputError, MultitestError
from ..inputs._yaml import read_yaml

__all__ = ["Experiment", "DatasetSpec", "AlgorithmSpec", "load_experiment"]

#: Kinds of data set entries.
SOURCES = ("sklearn", "csv", "parquet", "openml")
_DATASET_KEYS = SOURCES + ("target", "name")
_TOP_KEYS = ("name", "datasets", "algorithms", "cv", "metric", "repeats", "timeout",
             "isolate", "openml_cache")
_CV_KEYS = ("replications", "folds", "seed")
DEFAULT_OPENML_CACHE = os.path.join("~", ".cache", "multitest", "openml")
#: Most folds of one experiment (data sets x algorithms x replications x folds): each is a
#: task held in memory and a row of the store.  A run of 100 data sets x 50 algorithms
#: under 10x10 cross-validation has 500,000.
MAX_FOLDS = 1_000_000
#: Most fits of the first fold of each (data set, algorithm), for the noise of the costs.
MAX_REPEATS = 100
#: The classification data sets shipped inside scikit-learn (no download).
_BUNDLED = ("breast_cancer", "digits", "iris", "wine")


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of an experiment: where it comes from and its target.

    Examples
    --------
    >>> from multitest.run import DatasetSpec
    >>> spec = DatasetSpec("iris", "sklearn", "iris")
    >>> spec.source, spec.target is None
    ('sklearn', True)
    """

    name: str
    source: str
    location: str
    target: str | None = None

    def fingerprint(self):
        return {"source": self.source, "location": self.location, "target": self.target}


@dataclass(frozen=True)
class AlgorithmSpec:
    """One learner: a name, an importable estimator class and its parameters.

    Examples
    --------
    >>> from multitest.run import AlgorithmSpec
    >>> spec = AlgorithmSpec("nb", "sklearn.naive_bayes.GaussianNB")
    >>> spec.name, spec.params
    ('nb', {})
    """

    name: str
    estimator: str
    params: dict = field(default_factory=dict)

    def fingerprint(self):
        return {"estimator": self.estimator, "params": self.params}


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file (see the module documentation).

    Examples
    --------
    >>> import os, tempfile, yaml
    >>> from multitest.run import load_experiment
    >>> spec = {"datasets": [{"sklearn": "iris"}],
    ...         "algorithms": {"nb": {"estimator": "sklearn.naive_bayes.GaussianNB"},
    ...                        "tree": {"estimator": "sklearn.tree.DecisionTreeClassifier"}}}
    >>> path = os.path.join(tempfile.mkdtemp(), "experiment.yaml")
    >>> with open(path, "w", encoding="utf-8") as handle:
    ...     yaml.safe_dump(spec, handle)
    >>> experiment = load_experiment(path)
    >>> experiment.replications, experiment.folds, experiment.metric
    (5, 2, 'error')
    """

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

    def spec_hash(self, dataset, algorithm, data_sha256, repeats):
        """The store key's content part: what determines a fold's result and its costs.

        The data set's source and its content (`data_sha256`, see
        :func:`data_digest`), the learner and its parameters, the
        cross-validation, the metric, and the measurement (``isolate`` and the
        fold's number of fits, `repeats`).  A changed hash means recompute.
        """
        text = json.dumps([dataset.fingerprint(), data_sha256, algorithm.fingerprint(),
                           self.replications, self.folds, self.seed, self.metric,
                           self.isolate, repeats], sort_keys=True, default=str)
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

    Examples
    --------
    >>> import os, tempfile
    >>> from multitest.run import load_experiment
    >>> path = os.path.join(tempfile.mkdtemp(), "experiment.yaml")
    >>> with open(path, "w", encoding="utf-8") as handle:
    ...     _ = handle.write("datasets:\\n  - sklearn: iris\\nalgorithms:\\n"
    ...                      "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\\n"
    ...                      "  tree: {estimator: sklearn.tree.DecisionTreeClassifier}\\n")
    >>> experiment = load_experiment(path)
    >>> experiment.datasets[0].name, experiment.algorithms[0].estimator
    ('iris', 'sklearn.naive_bayes.GaussianNB')
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
    if (total := len(datasets) * len(algorithms) * replications * folds) > MAX_FOLDS:
        fail(f"{total:,} folds in all ({len(datasets)} data set(s) x {len(algorithms)} "
             f"algorithms x {replications:,} replications x {folds:,} folds); one "
             f"experiment runs at most {MAX_FOLDS:,}", "cv")
    seed = _integer(cv.get("seed", 0), 0, fail, "cv", "seed")
    metric = data.get("metric", "error")
    if not isinstance(metric, str) or not metric.strip():
        fail("must be 'error' or a scikit-learn scorer name", "metric")
    repeats = _integer(data.get("repeats", 3), 1, fail, "repeats")
    if repeats > MAX_REPEATS:
        fail(f"must be at most {MAX_REPEATS} (fits of each first fold, for the noise of the "
             f"costs), got {repeats:,}", "repeats")
    timeout = data.get("timeout")
    if isinstance(timeout, str) and timeout.strip().lower() == "none":
        timeout = None
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not (math.isfinite(timeout) and timeout > 0)):
        fail(f"must be a positive finite number of seconds or none, got {timeout!r}", "timeout")
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
    """The estimator class named by ``module.Class`` or ``module:Class``, checked by type.

    Importing the module is the one thing done (the experiment names it, see
    ``docs/run.md``); nothing it holds is called: the attribute must be a
    class that is a scikit-learn ``BaseEstimator`` or has ``fit`` and
    ``get_params`` (looked up statically, no descriptor or metaclass runs).

    Raises
    ------
    ImportError, AttributeError
        If the module or the attribute does not exist.
    TypeError
        If the attribute is not an estimator class (a function, a module,
        any other callable or object).

    Examples
    --------
    >>> import_estimator("sklearn.naive_bayes:GaussianNB").__name__
    'GaussianNB'
    >>> import_estimator("os.system")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: os.system is a builtin_function_or_method, not an estimator class ...
    """
    import importlib

    module, _, attribute = path.replace(":", ".").rpartition(".")
    value = getattr(importlib.import_module(module), attribute)
    if not _is_estimator_class(value):
        kind = "class without fit and get_params" if isinstance(value, type) else \
            type(value).__name__
        raise TypeError(f"{path} is a {kind}, not an estimator class (a subclass of "
                        "sklearn.base.BaseEstimator, or a class with fit and get_params); "
                        "nothing was called")
    return value


def _is_estimator_class(value):
    """Whether `value` is a class with ``fit`` and ``get_params``, without calling anything."""
    import inspect

    from sklearn.base import BaseEstimator

    if not isinstance(value, type):
        return False
    if issubclass(value, BaseEstimator):
        return True
    missing = object()
    return all(inspect.getattr_static(value, name, missing) is not missing
               for name in ("fit", "get_params"))


def check_estimators(experiment):
    """Resolve every estimator class by type, then build each once, before any fold runs.

    Every import path is checked (a class, see :func:`import_estimator`)
    before any instance is made.

    Raises
    ------
    InputError
        If an import path does not resolve to an estimator class or the
        parameters are refused, naming the file, line and field.
    """
    classes = []
    for spec in experiment.algorithms:
        source, row = experiment.where("algorithms", spec.name, "estimator")
        try:
            classes.append(import_estimator(spec.estimator))
        except (ImportError, AttributeError, ValueError) as exc:
            raise InputError(f"cannot import {spec.estimator!r} ({exc})", source=source, row=row,
                             field=f"algorithms.{spec.name}.estimator") from None
        except TypeError as exc:
            raise InputError(str(exc), source=source, row=row,
                             field=f"algorithms.{spec.name}.estimator") from None
    for spec, cls in zip(experiment.algorithms, classes):
        try:
            _check_params(cls(**spec.params))
        except Exception as exc:   # any refusal of the parameters is the user's input
            source, row = experiment.where("algorithms", spec.name, "params")
            raise InputError(f"{spec.estimator} refuses the parameters: {exc}", source=source,
                             row=row, field=f"algorithms.{spec.name}.params") from None


def _check_params(estimator):
    """Ask `estimator` for its parameters and, if its class declares their constraints as
    scikit-learn's do (``_parameter_constraints``, checked first by their ``fit``), check
    them: ``max_depth: -2`` is refused before the run, not by every fold."""
    estimator.get_params()
    if isinstance(getattr(type(estimator), "_parameter_constraints", None), dict):
        estimator._validate_params()


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
    _check_data(spec, X, y, experiment.folds, source, row, field)
    return X, y


def _check_data(spec, X, y, folds, source, row, field):
    """Refuse, before any fit, data no fold could use: missing values, one class, tiny classes."""
    import numpy as np

    def refuse(message):
        raise InputError(f"data set {spec.name!r}: {message}", source=source, row=row,
                         field=field)

    if len(X) != len(y) or len(y) < folds:
        refuse(f"has {len(y)} examples, fewer than the {folds} folds")
    bad = ~np.isfinite(X)
    if bad.any():
        example, column = np.argwhere(bad)[0]
        refuse(f"{int(bad.any(axis=1).sum())} example(s) have missing or infinite features "
               f"(the first: example {example + 1}, feature {column + 1}); remove or impute "
               "them before the run")
    values, counts = np.unique(y.astype(str) if y.dtype == object else y, return_counts=True)
    if len(values) < 2:
        refuse(f"the target has one class ({values[0]}); classification needs two or more")
    if counts.min() < folds:
        refuse(f"class {values[counts.argmin()]} has {counts.min()} example(s), fewer than "
               f"the {folds} folds of stratified cross-validation")


def data_digest(experiment, index, data):
    """SHA-256 of what data set number `index` holds: its file's bytes, or its arrays.

    A CSV or Parquet file is hashed as it is on disk (without parsing it);
    a bundled or OpenML data set by its loaded ``(X, y)``, given as `data`.
    """
    spec = experiment.datasets[index]
    digest = hashlib.sha256()
    if spec.source in ("csv", "parquet"):
        with open(spec.location, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    else:
        X, y = data
        digest.update(X.tobytes())
        digest.update(json.dumps(y.tolist(), default=str).encode())
    return digest.hexdigest()


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
        with warnings.catch_warnings():   # its retry is not the user's to see: one line
            warnings.filterwarnings("ignore", "A network error occurred", UserWarning)
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
    import numpy as np
    import pandas as pd

    try:
        if spec.source == "csv":
            frame = pd.read_csv(spec.location)
        else:
            frame = pd.read_parquet(spec.location)
    except ImportError:
        raise MultitestError("reading Parquet needs pyarrow: pip install 'multitest-rank[run]' "
                             "pyarrow") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {spec.location} ({type(exc).__name__}: {exc})",
                         source=source, row=row, field=field) from None
    if spec.target not in frame.columns:
        raise InputError(f"no target column {spec.target!r} in {spec.location}; columns are "
                         f"{', '.join(map(str, frame.columns))}", source=source, row=row,
                         field=field.rsplit(".", 1)[0] + ".target")
    missing = frame.isna().to_numpy()
    if missing.any():
        index, column = np.argwhere(missing)[0]
        line = f"line {index + 2}" if spec.source == "csv" else f"row {index + 1}"
        raise InputError(f"data set {spec.name!r}: {int(missing.any(axis=1).sum())} row(s) of "
                         f"{spec.location} have missing values (the first: {line}, column "
                         f"{frame.columns[column]!r}); remove or impute them before the run",
                         source=source, row=row, field=field)
    return _features(frame.drop(columns=[spec.target])), frame[spec.target].to_numpy()


def _features(frame):
    """Numeric features; text and categorical columns one-hot encoded."""
    import pandas as pd

    return pd.get_dummies(frame, dummy_na=False).astype(float).to_numpy()
