"""Tests of multitest._progress: the progress bars on standard error."""
import io

from multitest import _progress as progress_module
from multitest._progress import Progress, progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_bar_drawn_on_a_terminal_with_count_share_and_eta():
    stream = _Terminal()
    with progress(4, "figures", stream=stream, delay=0, min_interval=0) as bar:
        bar.update(1)
        assert "1/4" in stream.getvalue() and "25%" in stream.getvalue()
        assert "ETA" in stream.getvalue()
        bar.update(3, failed=1)
    text = stream.getvalue()
    assert "4/4" in text and "100%" in text and "(1 failed)" in text
    assert text.endswith("\n")


def test_nothing_drawn_when_not_a_terminal():
    stream = io.StringIO()
    with progress(10, "stage 1", stream=stream, delay=0) as bar:
        bar.update(10)
    assert stream.getvalue() == ""


def test_quiet_switches_every_bar_off(monkeypatch):
    stream = _Terminal()
    progress_module.set_quiet(True)
    try:
        with progress(2, "reading", stream=stream, delay=0) as bar:
            bar.update(2)
    finally:
        progress_module.set_quiet(False)
    assert stream.getvalue() == ""
    monkeypatch.setenv("MULTITEST_QUIET", "1")
    assert progress_module.is_quiet()


def test_short_work_draws_nothing_before_the_delay():
    stream = _Terminal()
    with progress(2, "orders", stream=stream, delay=60) as bar:
        bar.update(2)
    assert stream.getvalue() == ""


def test_unknown_total_counts_only():
    bar = Progress(0, "tasks", stream=io.StringIO(), enabled=False)
    bar.update(5)
    assert bar.line().startswith("tasks  5 done")
