"""Cost profiles: the prior preference of MultiTest.

A profile gives every algorithm a cost (lower is preferred), either one value
per algorithm, a table with one row per data set, or an explicit order
(cheapest first).  Profiles are YAML files (see ``costs/`` and the README for
the schema); they can break ties with a secondary profile and be combined
lexicographically or by a weighted sum of normalized costs.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field, replace
from importlib import resources

import numpy as np

from .._errors import InputError, MultitestError, abbreviate
from ._yaml import read_yaml

__all__ = ["CostProfile", "load_profile", "profile_from_order", "bundled_profiles"]

#: Per-data-set normalizations of a profile's costs.
NORMALIZATIONS = ("none", "max", "sum", "rank")

_KINDS = ("costs", "per_dataset", "order", "weighted", "lexicographic")
_KEYS = ("name", "description", "source", "unit", "normalization", "secondary",
         "noise") + _KINDS


@dataclass(frozen=True, eq=False)
class CostProfile:
    """A prior preference over algorithms (lower cost = preferred).

    Exactly one of ``costs``, ``per_dataset``, ``order`` and ``weighted`` is
    set.  Build profiles with :func:`load_profile` or :func:`profile_from_order`.

    Attributes
    ----------
    name, description, source, unit : str
        Documentation fields, carried into every output.
    normalization : {'none', 'max', 'sum', 'rank'}
        Applied per data set to the algorithms being compared: as is, divided
        by the maximum, divided by the sum, or replaced by cost ranks.
    costs : dict, optional
        One cost per algorithm, the same on every data set.
    per_dataset : dict of dict, optional
        ``{data set: {algorithm: cost}}``.
    order : tuple of str, optional
        Algorithms cheapest first (cost = position).
    weighted : tuple of (CostProfile, float), optional
        Weighted sum of the components' normalized costs.
    secondary : CostProfile, optional
        Breaks ties of this profile.
    noise : dict, optional
        A noise figure per cost (for instance the standard deviation of a
        measured time over the folds), shaped as ``costs`` or ``per_dataset``:
        costs closer than their noise are ties (``cost_tolerance``).
    path : str, optional
        The YAML file the profile came from.

    Examples
    --------
    >>> from multitest.inputs import CostProfile
    >>> profile = CostProfile(name="fit time", unit="s", costs={"nb": 0.1, "svm": 2.5})
    >>> profile.name, profile.costs["svm"]
    ('fit time', 2.5)
    """

    name: str
    description: str = ""
    source: str = ""
    unit: str = ""
    normalization: str = "none"
    costs: dict | None = None
    per_dataset: dict | None = None
    order: tuple | None = None
    weighted: tuple | None = None
    secondary: "CostProfile | None" = None
    noise: dict | None = None
    path: str | None = None
    _lines: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.normalization not in NORMALIZATIONS:
            raise MultitestError(f"`normalization` must be one of {', '.join(NORMALIZATIONS)}, "
                                 f"got {self.normalization!r}")
        given = [k for k in ("costs", "per_dataset", "order", "weighted")
                 if getattr(self, k) is not None]
        if len(given) != 1:
            raise MultitestError(f"cost profile {self.name!r} needs exactly one of costs, "
                                 f"per_dataset, order, weighted; got {given or 'none'}")
        if self.noise is not None and self.costs is None and self.per_dataset is None:
            raise MultitestError(f"cost profile {self.name!r}: noise goes with costs or "
                                 "per_dataset (one figure per cost)")

    @property
    def levels(self):
        """This profile followed by its chain of tie-breaking profiles."""
        chain, profile = [], self
        while profile is not None:
            chain.append(profile)
            profile = profile.secondary
        return tuple(chain)

    def cost_matrix(self, datasets, algorithms):
        """Normalized costs, shape ``(len(datasets), len(algorithms))``.

        Raises
        ------
        InputError
            If an algorithm or data set has no cost (names on both sides are
            listed), or a cost is negative or not a number.
        """
        datasets, algorithms = list(datasets), list(algorithms)
        raw = self._raw_matrix(datasets, algorithms)
        return _normalize(raw, self.normalization)

    def noise_matrix(self, datasets, algorithms):
        """Noise of the normalized costs, shape ``(len(datasets), len(algorithms))``, or None.

        None when the profile carries no noise or is normalized by rank (ranks
        have no noise figure); divided by the same maximum or sum as the costs.

        Examples
        --------
        >>> from multitest import CostProfile
        >>> p = CostProfile(name="t", costs={"a": 2.0, "b": 4.0}, noise={"a": 0.5, "b": 1.0},
        ...                 normalization="max")
        >>> p.noise_matrix(["d"], ["a", "b"])
        array([[0.125, 0.25 ]])
        """
        if self.noise is None or self.normalization == "rank":
            return None
        datasets, algorithms = list(datasets), list(algorithms)
        shaped = replace(self, normalization="none", noise=None, secondary=None,
                         **({"costs": self.noise} if self.costs is not None
                            else {"per_dataset": self.noise}))
        noise = shaped._raw_matrix(datasets, algorithms)
        if self.normalization == "none":
            return noise
        raw = self._raw_matrix(datasets, algorithms)
        scale = raw.max(axis=1, keepdims=True) if self.normalization == "max" else \
            raw.sum(axis=1, keepdims=True)
        return np.divide(noise, scale, out=np.zeros_like(noise), where=scale > 0)

    def keys(self, datasets, algorithms):
        """Sort keys, shape ``(levels, data sets, algorithms)``: primary cost first."""
        return np.stack([p.cost_matrix(datasets, algorithms) for p in self.levels])

    def describe(self):
        """Dictionary of the documentation fields (for reports)."""
        out = {"name": self.name, "description": self.description, "source": self.source,
               "unit": self.unit, "normalization": self.normalization, "path": self.path}
        if self.secondary is not None:
            out["secondary"] = self.secondary.describe()
        return out

    # -- internals ---------------------------------------------------------

    def _raw_matrix(self, datasets, algorithms):
        if self.order is not None:
            _check_names(algorithms, self.order, self, "order")
            position = {a: i for i, a in enumerate(self.order)}
            return np.tile([float(position[a]) for a in algorithms], (len(datasets), 1))
        if self.costs is not None:
            _check_names(algorithms, self.costs, self, "costs")
            return np.tile([self.costs[a] for a in algorithms], (len(datasets), 1)).astype(float)
        if self.per_dataset is not None:
            return self._table_matrix(datasets, algorithms)
        return sum(weight * component.cost_matrix(datasets, algorithms)
                   for component, weight in self.weighted)

    def _table_matrix(self, datasets, algorithms):
        absent = [d for d in datasets if d not in self.per_dataset]
        if absent:
            raise InputError(f"no costs for data set(s) {', '.join(absent)} "
                             f"(the profile has {', '.join(self.per_dataset)})",
                             source=self._where(), field="per_dataset")
        rows = []
        for d in datasets:
            row = self.per_dataset[d]
            _check_names(algorithms, row, self, ("per_dataset", d))
            rows.append([row[a] for a in algorithms])
        matrix = np.asarray(rows, dtype=float)
        if np.isnan(matrix).any():   # no fold had a cost (inputs.missing_costs gives one)
            s, j = np.argwhere(np.isnan(matrix))[0]
            raise InputError(f"no cost measured for algorithm '{algorithms[j]}' on data set "
                             f"'{datasets[s]}' (no fold of it has one)", source=self._where(),
                             field=f"per_dataset.{datasets[s]}")
        return matrix

    def _where(self):
        return self.path or f"cost profile '{self.name}'"


def _check_names(algorithms, available, profile, path):
    missing = [a for a in algorithms if a not in available]
    if not missing:
        return
    extra = [a for a in available if a not in algorithms]
    # A name with spaces, tabs or line ends at either end is quoted (with its escapes):
    # "no cost for b; the profile has b" said nothing of the tab after one of them.
    quoted = any(str(a) != str(a).strip() for a in missing + extra)
    show = repr if quoted else str
    hint = f"; the profile has {', '.join(map(show, extra))} instead" if extra else ""
    path = path if isinstance(path, tuple) else (path,)
    raise InputError(f"no cost for algorithm(s) {', '.join(map(show, missing))}{hint}",
                     source=profile._where(), row=profile._lines.get(path),
                     field=".".join(map(str, path)))


def _normalize(raw, method):
    if method == "none":
        return raw
    if method == "rank":
        from scipy.stats import rankdata

        return rankdata(raw, axis=1)
    scale = raw.max(axis=1, keepdims=True) if method == "max" else raw.sum(axis=1, keepdims=True)
    # A data set whose costs are all zero keeps them: every algorithm is equally cheap.
    return np.divide(raw, scale, out=np.zeros_like(raw), where=scale > 0)


# -- construction ----------------------------------------------------------

def profile_from_order(order, name="order"):
    """A profile from an explicit order, cheapest first.

    Parameters
    ----------
    order : str or sequence of str
        Algorithm names, cheapest first; a string is split on commas.

    Examples
    --------
    >>> from multitest import profile_from_order
    >>> profile_from_order("b,a,c").cost_matrix(["d1"], ["a", "b", "c"])
    array([[1., 0., 2.]])
    """
    if isinstance(order, str):
        order = [name.strip() for name in order.split(",") if name.strip()]
    order = tuple(order)
    if len(order) < 2:
        raise MultitestError(f"`order` needs at least 2 algorithms, got {len(order)}")
    duplicated = sorted({a for a in order if order.count(a) > 1})
    if duplicated:
        raise MultitestError(f"`order` names an algorithm twice: {', '.join(duplicated)}")
    return CostProfile(name=name, description="explicit order, cheapest first",
                       unit="position", order=order)


def bundled_profiles():
    """Names and paths of the profiles shipped with multitest (``costs/``).

    Examples
    --------
    >>> from multitest.inputs import bundled_profiles
    >>> sorted(bundled_profiles())
    ['space_complexity', 'time_and_space', 'time_then_space', 'training_time']
    """
    folder = resources.files("multitest") / "data" / "costs"
    return {p.name[:-5]: str(p) for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".yaml")}


def load_profile(path):
    """Read a cost profile from a YAML file.

    Parameters
    ----------
    path : str or os.PathLike
        A YAML file, or the name of a bundled profile (``training_time``,
        ``space_complexity``, ...).

    Returns
    -------
    CostProfile

    Raises
    ------
    InputError
        Malformed YAML or an invalid profile; the message names the file and
        line.

    Examples
    --------
    >>> from multitest import load_profile
    >>> profile = load_profile("training_time")
    >>> profile.cost_matrix(["optdigits"], ["5nn", "c45"]).round(2)
    array([[0.02, 0.46]])
    """
    return _load(_locate(path, base=None), seen=())


def _locate(path, base):
    text = os.fspath(path)
    candidates = [text] if base is None else [os.path.join(base, text), text]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    bundled = bundled_profiles()
    name = os.path.basename(text)
    name = name[:-5] if name.endswith(".yaml") else name
    if name in bundled and os.sep not in text.rstrip(os.sep):
        return bundled[name]
    raise InputError(f"no such cost profile (bundled profiles: {', '.join(bundled)})",
                     source=text)


def _referred(value, base, path, lines, key):
    """The file of a profile that the profile `path` refers to at `key` (a name or a path).

    Only a bundled name or a file named ``*.yaml`` / ``*.yml``: a profile (perhaps
    someone else's) cannot make the command read any other file, whose first line an
    error would quote.
    """
    bundled = bundled_profiles()
    if isinstance(value, str) and os.sep not in value and value in bundled:
        return bundled[value]   # not a file of that name beside the profile
    if not isinstance(value, str) or not value.lower().endswith((".yaml", ".yml")):
        field = key[0] + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in key[1:])
        raise InputError(f"must name a cost profile (a file ending in .yaml or .yml, or a "
                         f"bundled name: {', '.join(bundled)}), got {value!r}",
                         source=path, row=lines.get(key) or lines.get(key[:1]), field=field)
    return _locate(value, base)


def _load(path, seen):
    if path in seen:
        raise InputError("cost profiles refer to each other in a cycle", source=path)
    data, lines = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("a cost profile must be a YAML mapping", source=path, row=1)
    unknown = [k for k in data if k not in _KEYS]
    if unknown:
        raise InputError(f"unknown key '{unknown[0]}'; valid keys are {', '.join(_KEYS)}",
                         source=path, row=lines.get((unknown[0],)), field=unknown[0])
    kinds = [k for k in _KINDS if k in data]
    if len(kinds) != 1:
        raise InputError(f"needs exactly one of {', '.join(_KINDS)}, found "
                         f"{', '.join(kinds) or 'none'}", source=path, row=1)
    base = os.path.dirname(path)
    seen = seen + (path,)
    kind = kinds[0]
    fields = {key: _text(data, key, lines, path) for key in ("description", "source", "unit")}
    fields["name"] = _text(data, "name", lines, path) or os.path.basename(path)[:-5]
    fields["normalization"] = _text(data, "normalization", lines, path) or "none"
    if fields["normalization"] not in NORMALIZATIONS:
        raise InputError(f"normalization must be one of {', '.join(NORMALIZATIONS)}, got "
                         f"{fields['normalization']!r}", source=path,
                         row=lines.get(("normalization",)), field="normalization")
    secondary = (_load(_referred(data["secondary"], base, path, lines, ("secondary",)), seen)
                 if "secondary" in data else None)
    if kind == "lexicographic":
        return _lexicographic(data, lines, path, base, seen, fields, secondary)
    content = {"costs": _costs, "per_dataset": _per_dataset, "order": _order,
               "weighted": _weighted}[kind](data[kind], lines, path, base, seen)
    noise = _noise(data, kind, lines, path, base, seen)
    return CostProfile(**fields, **{kind: content}, secondary=secondary, noise=noise,
                       path=path, _lines=lines)


def _noise(data, kind, lines, path, base, seen):
    """The ``noise`` of a profile: the shape of its ``costs`` or ``per_dataset``."""
    if "noise" not in data:
        return None
    if kind == "costs":
        return _costs(data["noise"], lines, path, base, seen, ("noise",))
    if kind == "per_dataset":
        node = data["noise"]
        if not isinstance(node, dict) or not node:
            raise InputError("must map each data set to a table of noise figures", source=path,
                             row=lines.get(("noise",)), field="noise")
        return {d: _costs(row, lines, path, base, seen, ("noise", d)) for d, row in node.items()}
    raise InputError(f"noise goes with costs or per_dataset, not {kind}", source=path,
                     row=lines.get(("noise",)), field="noise")


def _text(data, key, lines, path):
    value = data.get(key, "")
    if not isinstance(value, str):
        raise InputError("must be text", source=path, row=lines.get((key,)), field=key)
    return value.strip()


def _costs(node, lines, path, base, seen, prefix=("costs",)):
    if not isinstance(node, dict) or not node:
        raise InputError("must map each algorithm to its cost", source=path,
                         row=lines.get(prefix), field=".".join(prefix))
    out = {}
    for algorithm, value in node.items():
        key = prefix + (algorithm,)
        if value is None:
            raise InputError("missing cost", source=path, row=lines.get(key), field=".".join(key))
        out[algorithm] = _number(value, "cost", path, lines.get(key), ".".join(key),
                                 positive=False)
    return out


#: Largest cost (or weight) accepted: costs are summed over data sets and algorithms (means,
#: normalizations), which overflow to infinity from about 1.8e308.
MAX_COST = 1e100


def too_large(what, shown):
    """The message of a cost (or weight) above :data:`MAX_COST`."""
    return (f"{what} {shown} is too large (at most {MAX_COST:g}: costs are summed over data "
            "sets and algorithms, which would overflow)")


def _number(value, what, path, row, field, *, positive):
    """``value`` (a real number, NumPy's too) as a finite float ``>= 0`` (``> 0`` if
    ``positive``) and at most :data:`MAX_COST`, else InputError: every reader of costs."""
    number = None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:   # an integer of hundreds of digits
            pass
    if number is None or not math.isfinite(number):
        raise InputError(f"{what} must be a finite number, got {_show(value)}", source=path,
                         row=row, field=field)
    if number < 0 or (positive and number == 0):
        rule = "be positive" if positive else "not be negative"
        raise InputError(f"{what} must {rule}, got {_show(value)}", source=path, row=row,
                         field=field)
    if number > MAX_COST:
        raise InputError(too_large(what, _show(value)), source=path, row=row, field=field)
    return number


def _show(value):
    """`value` as a message writes it: a NumPy number as the Python one (``-1.0``, not
    ``np.float64(-1.0)``), a very long integer by its number of digits."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10 ** 20:
        return f"an integer of {len(str(abs(value)))} digits"
    return abbreviate(repr(value))


def _per_dataset(node, lines, path, base, seen):
    if not isinstance(node, dict) or not node:
        raise InputError("must map each data set to a table of costs", source=path,
                         row=lines.get(("per_dataset",)), field="per_dataset")
    return {d: _costs(row, lines, path, base, seen, ("per_dataset", d)) for d, row in node.items()}


def _order(node, lines, path, base, seen):
    if not isinstance(node, list) or not all(isinstance(a, str) for a in node):
        raise InputError("must be a list of algorithm names, cheapest first", source=path,
                         row=lines.get(("order",)), field="order")
    try:
        return profile_from_order(node).order
    except MultitestError as exc:
        raise InputError(str(exc), source=path, row=lines.get(("order",)), field="order") from None


def _weighted(node, lines, path, base, seen):
    if not isinstance(node, list) or len(node) < 2:
        raise InputError("must list at least two {profile, weight} entries", source=path,
                         row=lines.get(("weighted",)), field="weighted")
    components = []
    for i, item in enumerate(node):
        key = ("weighted", i)
        if not isinstance(item, dict) or "profile" not in item:
            raise InputError("each entry needs a profile (and optionally a weight)", source=path,
                             row=lines.get(key), field=f"weighted[{i}]")
        weight = _number(item.get("weight", 1.0), "weight", path,
                         lines.get(key + ("weight",)), f"weighted[{i}].weight", positive=True)
        component = _load(_referred(item["profile"], base, path, lines, key + ("profile",)),
                          seen)
        if component.normalization == "none" and component.order is None:
            # Summing raw costs in different units is meaningless: scale each to [0, 1].
            component = replace(component, normalization="max")
        components.append((component, float(weight)))
    return tuple(components)


def _lexicographic(data, lines, path, base, seen, fields, secondary):
    node = data["lexicographic"]
    if not isinstance(node, list) or len(node) < 2:
        raise InputError("must list at least two profiles, most important first", source=path,
                         row=lines.get(("lexicographic",)), field="lexicographic")
    chain = [_load(_referred(p, base, path, lines, ("lexicographic", i)), seen)
             for i, p in enumerate(node)]
    tail = secondary
    for profile in reversed(chain):
        tail = replace(profile, secondary=_append(profile.secondary, tail))
    return replace(tail, **{k: v for k, v in fields.items() if v}, path=path)


def _append(chain, tail):
    if chain is None:
        return tail
    return replace(chain, secondary=_append(chain.secondary, tail))
