"""The CPUs this process may use, and the most worker processes a command starts."""

from __future__ import annotations

import os

__all__ = ["usable_cpus", "max_workers"]


def usable_cpus():
    """CPUs this process may run on (its affinity where the system tells it).

    Examples
    --------
    >>> usable_cpus() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def max_workers():
    """The most worker processes a command starts: 4 per usable CPU (at least 8).

    Each is a Python process with the data it works on (100-200 MB); ``--workers 1000``
    would start a thousand of them on any machine.

    Examples
    --------
    >>> max_workers() >= 8
    True
    """
    return max(8, 4 * usable_cpus())
