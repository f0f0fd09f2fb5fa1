"""Tests of multitest.cli: the BLAS threads of the analysis commands (_one_blas_thread)."""
import json
import os
import subprocess
import sys

import pytest

# A real command line (main() without arguments) in a fresh interpreter; then what the
# process's environment and NumPy's BLAS say.
_PROGRAM = r"""
import json, os, sys
from multitest import cli
sys.argv = ["multitest", *sys.argv[1:]]
try:
    cli.main()
except SystemExit:
    pass
blas = None
try:
    from threadpoolctl import threadpool_info
    import numpy
    blas = [p["num_threads"] for p in threadpool_info() if p["internal_api"] == "openblas"]
except ImportError:
    pass
print(json.dumps({"env": os.environ.get("OPENBLAS_NUM_THREADS"), "blas": blas}))
"""


def _command_line(argv, env_value=None):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    done = subprocess.run([sys.executable, "-c", _PROGRAM, *argv], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_analysis_commands_start_with_one_openblas_thread():
    # `multitest tests` (an analysis command): NumPy is imported after the setting, so
    # its OpenBLAS (threadpoolctl reads it, where installed) runs one thread.
    got = _command_line(["tests"])
    assert got["env"] == "1"
    if got["blas"] is not None:
        assert got["blas"] and set(got["blas"]) == {1}


def test_the_environment_wins_and_run_is_left_alone():
    assert _command_line(["tests"], env_value="3")["env"] == "3"
    assert _command_line(["run", "--help"])["env"] is None     # the learners' threads


def test_a_call_from_python_changes_no_environment(monkeypatch, capsys):
    # main(argv) from Python (a notebook, the tests): the caller's environment is its own.
    from multitest.cli import main

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert main(["tests"]) == 0
    assert "combined-5x2cv-f" in capsys.readouterr().out
    assert "OPENBLAS_NUM_THREADS" not in os.environ


@pytest.mark.parametrize("argv", [["--version"], ["rank", "--help"]])
def test_other_command_lines_still_parse(argv):
    assert _command_line(argv)["env"] == "1"
