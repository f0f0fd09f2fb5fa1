"""The distribution: the sdist and the wheel build (python -m build), the wheel installs into
a fresh virtual environment with its dependencies, and ``multitest demo`` runs there on the
bundled data and profiles it carries.  About a minute with the dependencies in pip's cache
(the first time they are downloaded)."""
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import multitest
from multitest import rank

ROOT = Path(__file__).resolve().parent.parent
#: Not part of a source tree: environments, caches, outputs.
IGNORED = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache",
                                 ".hypothesis", "_build", "build", "dist", "*.egg-info",
                                 "demo-output")


def _run(args, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel of a copy of the source tree (the tree itself stays clean)."""
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not a source tree")
    work = tmp_path_factory.mktemp("dist")
    shutil.copytree(ROOT, work / "src", ignore=IGNORED)
    _run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(work / "src")],
         timeout=900)
    return work / "dist"


def test_one_version_string():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert project["name"] == "multitest-rank"
    assert multitest.__version__.count(".") == 2


def test_the_wheel_carries_the_data_and_installs_and_runs_the_demo(dist, tmp_path):
    version = multitest.__version__
    wheel = dist / f"multitest_rank-{version}-py3-none-any.whl"
    assert (dist / f"multitest_rank-{version}.tar.gz").exists() and wheel.exists()
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("multitest/__main__.py", "multitest/data/ulas2008/accuracy.csv",
                   "multitest/data/costs/training_time.yaml",
                   "multitest/data/costs/space_complexity.yaml", "multitest/engine/__init__.pyi"):
        assert needed in names
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], timeout=300)   # no system site packages
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(wheel)], timeout=1800)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = _run([str(python), "-c", "import multitest, importlib.metadata as m; "
                  "print(multitest.__file__); print(m.version('multitest-rank'))"],
                 env=env, cwd=tmp_path, timeout=120).stdout.split()
    assert where[0].startswith(str(venv)) and where[1] == version
    out = tmp_path / "demo"
    done = _run([str(venv / "bin" / "multitest"), "demo", "--out", str(out)], env=env,
                cwd=tmp_path, timeout=600)
    assert "=== bundled report data, cost profile: training_time ===" in done.stdout
    expected = rank(multitest.example_results(), "training_time").to_frame()
    written = pd.read_csv(out / "training_time" / "final_order.csv")
    pd.testing.assert_frame_equal(written, expected[list(written.columns)])
    done = _run([str(python), "-m", "multitest", "--version"], env=env, cwd=tmp_path,
                timeout=120)
    assert done.stdout.strip() == f"multitest {version}"
