"""The R scripts beside the fixtures (tests/fixtures/*_r.R): each one, run again, writes its
fixture byte for byte.  The tests compare multitest with these fixtures; here the fixtures
are shown to be what R computes (R 4.2.2 with coin and exactRankTests, Debian's packages,
which ``make test`` installs)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"

#: Each script, where it runs (as its header says) and the files it writes.
SCRIPTS = {
    "benavoli2016_r.R": ("fixtures", ["benavoli2016_r.csv"]),
    "corrections_r.R": ("fixtures", ["corrections_r.csv"]),
    "effect_sizes_r.R": ("fixtures", ["effect_sizes_r.csv"]),
    "inverted_intervals_r.R": ("fixtures", ["inverted_intervals_r.csv"]),
    "friedman_errors_r.R": ("fixtures", ["friedman_errors_r.csv"]),
    "posthoc_r.R": ("fixtures", ["posthoc_r.csv"]),
    "ties_exact_r.R": ("fixtures", ["ties_exact_r.csv"]),
    "pairwise_r.R": ("root", ["pairwise_r.csv"]),
    "skillings_mack_r.R": ("root", ["skillings_mack_r.csv", "skillings_mack_r_data.csv"]),
}
#: The R packages beyond base R a script loads (Debian: r-cran-coin, r-cran-exactranktests).
PACKAGES = {"ties_exact_r.R": ("coin", "exactRankTests"),
            "inverted_intervals_r.R": ("exactRankTests",)}
#: Sourced by the scripts, writes nothing itself.
HELPERS = {"long_format.R"}


def test_every_r_script_is_run_again():
    assert {p.name for p in FIXTURES.glob("*.R")} == set(SCRIPTS) | HELPERS


@pytest.mark.skipif(shutil.which("Rscript") is None,
                    reason="Rscript not installed (make test installs it when root)")
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_the_r_script_writes_its_fixture_again(tmp_path, script):
    # A copy of the repository's layout that the scripts read: the fixtures and the
    # bundled data (friedman_errors_r.R reads ../../multitest/data/ulas2008).
    fixtures = tmp_path / "tests" / "fixtures"
    shutil.copytree(FIXTURES, fixtures)
    shutil.copytree(ROOT / "multitest" / "data", tmp_path / "multitest" / "data")
    missing = [p for p in PACKAGES.get(script, ()) if subprocess.run(
        ["Rscript", "-e", f"library({p})"], capture_output=True).returncode != 0]
    if missing:
        pytest.skip(f"R package(s) {', '.join(missing)} not installed (make test installs "
                    "them when root)")
    where, outputs = SCRIPTS[script]
    for name in outputs:     # a script that writes nothing fails
        (fixtures / name).unlink()
    command = ["Rscript", str(fixtures / script)] if where == "root" else ["Rscript", script]
    done = subprocess.run(command, cwd=tmp_path if where == "root" else fixtures,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for name in outputs:
        assert (fixtures / name).read_bytes() == (FIXTURES / name).read_bytes(), name
