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
