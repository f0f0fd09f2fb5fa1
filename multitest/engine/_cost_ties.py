"""Costs within their noise are ties: the cost tolerance of the prior.

Measured costs are noisy: two fit times closer than their own spread should not
decide an order.  With a tolerance, costs are sorted and a gap between
neighbours of at most the tolerance joins them into one tie group (single
linkage: a chain of close costs is one group); the groups are ordered by cost,
and the algorithms within a group by the secondary profile, then by name.

The tolerance (``cost_tolerance``, ``--cost-tolerance``) is

``'noise'`` (the default)
    the larger noise figure of the two neighbours, where the profile has one
    (:meth:`multitest.inputs.CostProfile.noise_matrix`); exact otherwise;
``'exact'``
    only equal costs are ties;
a number ``t >= 0``
    in the units of the compared (normalized) costs;
``'P%'``
    ``P`` percent of the larger of the two costs.

The second pass applies the same rule to the costs averaged over the data sets,
with the noise averaged likewise.

Examples
--------
>>> import numpy as np
>>> from multitest.engine import CostTolerance
>>> CostTolerance.parse("10%").groups(np.array([[1.0, 1.05, 2.0, 1.08]]))
array([[0, 0, 1, 0]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError

__all__ = ["CostTolerance"]

#: The default tolerance: the profile's noise where it has one, else exact.
COST_TOLERANCE_DEFAULT = "noise"
_WORDS = ("noise", "exact")


def check_cost_tolerance(value, label="`cost_tolerance`"):
    """The canonical text of a tolerance (``'noise'``, ``'exact'``, ``'0.5'``, ``'5%'``).

    Raises
    ------
    MultitestError
        Anything else, naming `label`.
    """
    return CostTolerance.parse(value, label).text


def prior_text(prior_order, cost_ties, limit=None):
    """The prior, cheapest first: ``' < '`` between costs, ``' = '`` within a tie group.

    Parameters
    ----------
    prior_order : sequence of str
    cost_ties : sequence of sequence of str
        The tie groups (:attr:`multitest.engine.DataSetResult.cost_ties`).
    limit : int, optional
        Show only the first `limit` names, then how many there are.

    Examples
    --------
    >>> from multitest.engine._cost_ties import prior_text
    >>> prior_text(["a", "b", "c", "d"], [("b", "c")])
    'a < b = c < d'
    >>> prior_text(["a", "b", "c", "d"], [("b", "c")], limit=2)
    'a < b = ... (4 in all)'
    """
    group = {a: i for i, g in enumerate(cost_ties) for a in g}
    names = list(prior_order)
    shown = names if limit is None else names[:limit]
    separators = [" = " if a in group and group.get(b) == group[a] else " < "
                  for a, b in zip(names, names[1:])]
    text = "".join(a + s for a, s in zip(shown, separators)) + \
        (shown[-1] if len(shown) == len(names) else "")
    return text if len(shown) == len(names) else f"{text}... ({len(names)} in all)"


@dataclass(frozen=True)
class CostTolerance:
    """How close two costs must be to be a tie.

    Attributes
    ----------
    kind : {'noise', 'exact', 'absolute', 'relative'}
    value : float
        The absolute tolerance, or the fraction of the larger cost.
    noise : ndarray, shape (S, L), optional
        The profile's noise of the normalized costs (kind ``'noise'``).

    Examples
    --------
    >>> from multitest.engine import CostTolerance
    >>> tolerance = CostTolerance("relative", 0.05)
    >>> tolerance.kind, tolerance.value
    ('relative', 0.05)
    """

    kind: str
    value: float = 0.0
    noise: np.ndarray | None = None

    @classmethod
    def parse(cls, value, label="`cost_tolerance`"):
        """A tolerance from its text or number (see the module documentation)."""
        if isinstance(value, str) and value.strip().lower() in _WORDS:
            return cls(kind=value.strip().lower())
        text = value.strip() if isinstance(value, str) else None
        relative = text is not None and text.endswith("%")
        try:
            number = float(text[:-1] if relative else (value if text is None else text))
        except (TypeError, ValueError):
            number = None
        if isinstance(value, bool) or number is None or not np.isfinite(number) or number < 0:
            raise MultitestError(f"{label} must be 'noise', 'exact', a number >= 0 or a "
                                 f"percentage such as '5%', got {value!r}")
        if relative:
            return cls(kind="relative", value=number / 100)
        return cls(kind="absolute", value=number) if number > 0 else cls(kind="exact")

    @property
    def text(self):
        """The canonical text, as recorded in the settings."""
        if self.kind == "relative":
            return f"{self.value * 100:g}%"
        return f"{self.value:g}" if self.kind == "absolute" else self.kind

    @property
    def exact(self):
        """Whether only equal costs are ties (no tolerance, or noise without a figure)."""
        return self.kind == "exact" or (self.kind == "noise" and self.noise is None)

    def with_noise(self, noise):
        """This tolerance with the profile's noise (kept only for kind ``'noise'``)."""
        return CostTolerance(kind=self.kind, value=self.value,
                             noise=None if self.kind != "noise" or noise is None
                             else np.asarray(noise, dtype=float))

    def rows(self, index, columns=None):
        """This tolerance on the data sets ``index`` (a resample), and on the algorithms
        ``columns`` when given (those that ran, ``missing='partial'``)."""
        if self.noise is None:
            return self
        noise = self.noise[index] if columns is None else self.noise[np.ix_(index, columns)]
        return CostTolerance(kind=self.kind, value=self.value, noise=noise)

    def describe(self):
        """What is a tie, as words."""
        if self.exact:
            return "equal costs"
        if self.kind == "noise":
            return "costs that differ by at most the larger of their noise figures"
        if self.kind == "relative":
            return f"costs that differ by at most {self.text} of the larger"
        return f"costs that differ by at most {self.text}"

    def ties_sentence(self, average=False):
        """The note's words before the ties: the rule and how ties are broken.

        Examples
        --------
        >>> from multitest.engine import CostTolerance
        >>> CostTolerance.parse("5%").ties_sentence(average=True)
        'average costs that differ by at most 5% of the larger are ties, broken by the \
secondary profile, then by name'
        """
        if self.exact:   # the words of 0.2.0
            return ("equal average costs, broken by name" if average else
                    "equal costs, broken by the secondary profile or by name")
        return (f"{'average ' if average else ''}{self.describe()} are ties, broken by the "
                "secondary profile, then by name")

    def groups(self, costs, noise=None):
        """Tie group of every cost, ``0`` the cheapest group of each row.

        Parameters
        ----------
        costs : ndarray, shape (S, L)
        noise : ndarray, shape (S, L), optional
            Default: this tolerance's noise.

        Returns
        -------
        ndarray of int, shape (S, L)
        """
        costs = np.asarray(costs, dtype=float)
        order = np.argsort(costs, axis=1, kind="stable")
        ordered = np.take_along_axis(costs, order, axis=1)
        gap = np.diff(ordered, axis=1)
        if self.exact:
            tolerance = np.zeros_like(gap)
        elif self.kind == "noise":
            spread = np.take_along_axis(self.noise if noise is None else noise, order, axis=1)
            tolerance = np.maximum(spread[:, 1:], spread[:, :-1])
        elif self.kind == "relative":
            tolerance = self.value * np.maximum(np.abs(ordered[:, 1:]), np.abs(ordered[:, :-1]))
        else:
            tolerance = np.full_like(gap, self.value)
        sorted_groups = np.concatenate([np.zeros((costs.shape[0], 1), dtype=np.int64),
                                        np.cumsum(gap > tolerance, axis=1)], axis=1)
        out = np.empty_like(sorted_groups)
        np.put_along_axis(out, order, sorted_groups, axis=1)
        return out

    def average_groups(self, average_costs):
        """:meth:`groups` of the costs averaged over the data sets, shape (L,)."""
        noise = None if self.exact or self.kind != "noise" else self.noise.mean(axis=0)[None]
        return self.groups(np.asarray(average_costs, dtype=float)[None], noise)[0]
