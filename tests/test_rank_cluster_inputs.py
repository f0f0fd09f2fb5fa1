"""``multitest rank --workers N`` reads, checks and names its inputs as one process does,
and leaves nothing outside ``--out`` (issue 40): a real local Dask cluster on 127.0.0.1,
started by the command itself; the reference is the same command without ``--workers``."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")
from run_cluster import ENV, TESTS  # noqa: E402

sys.path.insert(0, str(Path(TESTS).parent / "benchmarks"))
from synthetic import cost_order, long_frame, make_errors  # noqa: E402

sys.path.pop(0)

S, L = 8, 4
ORDER = ["--order", ",".join(cost_order(L, 0))]


def _cli(argv, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "multitest.cli", *argv], env=env or ENV,
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def _parts(folder):
    """4 Parquet files of 2 data sets each, ``p0.parquet`` ... ``p3.parquet``."""
    frame = long_frame(make_errors(S, L, 0))
    names = frame["dataset"].unique()
    folder.mkdir()
    for k in range(4):
        frame[frame["dataset"].isin(names[2 * k:2 * k + 2])].to_parquet(
            folder / f"p{k}.parquet", index=False)
    return folder


@pytest.mark.parametrize("where", ["page header", "footer"])
def test_a_corrupt_parquet_file_is_named_as_one_process_names_it(tmp_path, where):
    # Its page header overwritten, p3.parquet opens but its rows do not: the cluster said
    # "cannot write the output folder out: out/pairwise.npz/part-00002.npz: Couldn't
    # deserialize thrift..." (the names of the refused part, read for the client's
    # message, raised pyarrow's OSError). Its footer overwritten, it does not open: one
    # process named p0.parquet (the first file's schema).
    folder = _parts(tmp_path / "parts")
    bad = folder / "p3.parquet"
    data = bytearray(bad.read_bytes())
    span = slice(4, 40) if where == "page header" else slice(len(data) - 200, len(data) - 8)
    data[span] = b"\xab" * (span.stop - span.start)
    bad.write_bytes(bytes(data))
    runs = [_cli(["rank", str(folder), *ORDER, "--out", str(tmp_path / out), *extra])
            for out, extra in (("out", []), ("out", ["--workers", "2"]))]
    single, cluster = runs
    assert single.returncode == cluster.returncode == 2, cluster.stdout
    assert single.stderr.startswith(f"multitest: error: {bad}: not a readable Parquet file ("
                                    ), single.stderr
    assert cluster.stderr == single.stderr and single.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def _every_path(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


def test_a_cluster_run_leaves_nothing_outside_out(tmp_path):
    # With TMPDIR set, dask-scratch-space/global.lock and purge.lock stayed there after
    # the run, and the scheduler's and workers' folders were made there (issue 40): now
    # in the staging folder of --out, removed before the commit.
    folder = _parts(tmp_path / "parts")
    before = _every_path(folder)
    (tmp_path / "tmp").mkdir()
    (tmp_path / "cwd").mkdir()
    run = _cli(["rank", str(folder), *ORDER, "--out", str(tmp_path / "out"), "--workers", "2"],
               env=dict(ENV, TMPDIR=str(tmp_path / "tmp")), cwd=tmp_path / "cwd")
    assert run.returncode == 0, run.stderr
    assert os.listdir(tmp_path / "tmp") == [] and os.listdir(tmp_path / "cwd") == []
    assert sorted(os.listdir(tmp_path)) == ["cwd", "out", "parts", "tmp"]
    assert _every_path(folder) == before
    written = _every_path(tmp_path / "out")
    assert "result.json" in written and not [p for p in written if "scratch" in p
                                             or p.startswith(".multitest")]


def test_the_local_cluster_of_multitest_run_keeps_its_files_in_a_folder_it_removes(tmp_path):
    # `multitest run --workers` has no staging folder while it runs: the cluster's files
    # are in a temporary folder of its own, removed when the cluster has closed.
    script = ("import os, sys, tempfile\n"
              "from multitest.run._client import _client\n"
              "with _client(1, None) as client:\n"
              "    folder = client.submit(lambda: __import__('dask').config.get("
              "'temporary-directory'), pure=False).result()\n"
              "    print(folder, os.path.isdir(folder), sorted(os.listdir(tempfile.gettempdir())))\n"
              "print(os.path.exists(folder))\n")
    (tmp_path / "tmp").mkdir()
    run = subprocess.run([sys.executable, "-c", script], env=dict(ENV, TMPDIR=str(
        tmp_path / "tmp")), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    inside, after = run.stdout.splitlines()
    folder, exists, listed = inside.split(" ", 2)
    assert folder.startswith(str(tmp_path / "tmp" / "multitest-dask-")) and exists == "True"
    assert listed == repr([os.path.basename(folder)]) and after == "False"
    assert os.listdir(tmp_path / "tmp") == []


def test_parts_listing_the_algorithms_in_another_order_give_the_single_process_run(
        tmp_path):
    # Every part is ranked at once in its own order of algorithms (the first part was read
    # once more beforehand to learn the order); a part in another order is ranked again
    # in the first part's, the order of one process: the same files.
    folder = _parts(tmp_path / "parts")
    for k in (1, 3):
        import pandas as pd

        frame = pd.read_parquet(folder / f"p{k}.parquet")
        frame.sort_values(["dataset", "algorithm"], ascending=[True, False]).to_parquet(
            folder / f"p{k}.parquet", index=False)
    outs = {}
    for out, extra in (("single", []), ("workers", ["--workers", "2"])):
        run = _cli(["rank", str(folder), *ORDER, "--out", str(tmp_path / out), *extra])
        assert run.returncode == 0, run.stderr
        outs[out] = {name: (tmp_path / out / name).read_bytes() for name in
                     ("final_order.csv", "mean_errors.csv", "pairwise.csv", "orders.csv")}
    assert outs["workers"] == outs["single"]
