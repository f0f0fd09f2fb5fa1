"""Progress bars on standard error, for work that takes long enough to wonder.

One small mechanism for every long step (reading a big file, stage 1 on big
inputs, drawing figures, running an experiment): a bar is drawn only when the
stream is a terminal, only after the work has lasted :data:`DELAY` seconds, and
never when progress is switched off (``multitest --quiet``, :func:`set_quiet`,
or the environment variable ``MULTITEST_QUIET=1``).

Examples
--------
>>> import io
>>> stream = io.StringIO()
>>> with progress(3, "figures", stream=stream, enabled=True, delay=0) as bar:
...     for _ in range(3):
...         bar.update()
>>> "3/3" in stream.getvalue()
True
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["Progress", "progress", "set_quiet", "is_quiet", "DELAY"]

#: A bar appears only once the work has lasted this many seconds.
DELAY = 0.5
_WIDTH = 24
_quiet = False


def set_quiet(quiet=True):
    """Switch every progress bar of this process off (or back on); returns the setting
    it replaces."""
    global _quiet
    previous, _quiet = _quiet, bool(quiet)
    return previous


def is_quiet():
    """Whether progress bars are switched off for this process."""
    return _quiet or os.environ.get("MULTITEST_QUIET", "") not in ("", "0")


def _duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """A progress bar: ``label  [#####-----]  45/100  45%  12 s, ETA 15 s``.

    Parameters
    ----------
    total : int
        Number of units of work (0 or ``None``: unknown, no bar, only a count).
    label : str
        What is being done ("reading", "stage 1", "figures", ...).
    stream : file-like, optional
        Where to draw; standard error by default.
    enabled : bool, optional
        Force the bar on or off; by default on when `stream` is a terminal and
        progress is not switched off (:func:`is_quiet`).
    delay : float, optional
        Seconds before the first drawing (:data:`DELAY`).
    """

    def __init__(self, total, label, *, stream=None, enabled=None, delay=DELAY,
                 min_interval=0.1):
        self.total = int(total) if total else 0
        self.label = label
        self.done = 0
        self.failed = 0
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = not is_quiet() and _isatty(self.stream)
        self.enabled = bool(enabled)
        self._start = time.monotonic()
        self._delay = delay
        self._min_interval = min_interval
        self._last_draw = None
        self._drawn = False

    def update(self, n=1, *, failed=0):
        """Count `n` more units done, `failed` of which failed."""
        self.done += n
        self.failed += failed
        if self.enabled:
            now = time.monotonic()
            if now - self._start >= self._delay and (
                    self._last_draw is None or now - self._last_draw >= self._min_interval
                    or (self.total and self.done >= self.total)):
                self._draw(now)

    def line(self, now=None):
        """The text of the bar as it would be drawn now."""
        elapsed = (time.monotonic() if now is None else now) - self._start
        parts = [self.label]
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(round(share * _WIDTH))
            parts.append("[" + "#" * filled + "-" * (_WIDTH - filled) + "]")
            parts.append(f"{self.done}/{self.total}")
            parts.append(f"{share:4.0%}")
            timing = _duration(elapsed)
            if 0 < self.done < self.total:
                timing += f", ETA {_duration(elapsed * (self.total - self.done) / self.done)}"
            parts.append(timing)
        else:
            parts.append(f"{self.done} done, {_duration(elapsed)}")
        if self.failed:
            parts.append(f"({self.failed} failed)")
        return "  ".join(parts)

    def _draw(self, now):
        self._last_draw = now
        self._drawn = True
        try:
            self.stream.write("\r\x1b[2K" + self.line(now))
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal must not stop the work
            self.enabled = False

    def close(self):
        """Finish the bar: draw its final state on its own line if it was shown."""
        if self.enabled and self._drawn:
            self._draw(time.monotonic())
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
        self.enabled = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def progress(total, label, **options):
    """A :class:`Progress` bar, for use in a ``with`` block."""
    return Progress(total, label, **options)
