"""``multitest rank --workers N`` / ``--scheduler``: a partitioned Parquet input ranked on a
real Dask cluster on 127.0.0.1 gives the run of a single process, file for file.

Every output file is compared after the normalisation of ``tests/golden_runs.py`` (run id,
time, paths); the pairwise file, written in parts by the tasks, is compared as the table
``read_pairwise`` reads from it (every p-value bit for bit).
"""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")
from run_cluster import ENV, TESTS, dask_cluster, end_group  # noqa: E402

from multitest.inputs._split import load_part, part_names, split_input  # noqa: E402
from multitest.outputs import read_pairwise  # noqa: E402

sys.path.insert(0, str(Path(TESTS).parent / "benchmarks"))
from synthetic import cost_order, long_frame, make_errors  # noqa: E402

sys.path.pop(0)

#: 60 data sets x 30 algorithms: 26,100 tests, above INLINE_PAIRS_LIMIT (a pairwise file).
S, L, PARTS = 60, 30, 3


@pytest.fixture(scope="module")
def partitioned(tmp_path_factory):
    """A Parquet folder of 3 files, 20 data sets each, and the single-process run of it."""
    folder = tmp_path_factory.mktemp("cluster")
    frame = long_frame(make_errors(S, L, 0))
    names = frame["dataset"].unique()
    (folder / "in").mkdir()
    for k in range(PARTS):
        chunk = names[k * S // PARTS:(k + 1) * S // PARTS]
        frame[frame["dataset"].isin(chunk)].to_parquet(folder / "in" / f"part-{k}.parquet",
                                                       index=False)
    order = ",".join(cost_order(L, 0))
    argv = ["rank", str(folder / "in"), "--order", order, "--correction", "holm"]
    single = _cli(argv + ["--out", str(folder / "single")])
    assert single.returncode == 0, single.stderr
    return folder, argv, single


def _cli(argv, script=()):
    return subprocess.run([sys.executable, *script, *(("-m", "multitest.cli") if not script
                                                      else ()), *argv],
                          env=ENV, capture_output=True, text=True, timeout=300)


def _hashes(out):
    """Every file's normalised hash; the pairwise parts as one table."""
    out = Path(out)
    hashes = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name = path.relative_to(out).as_posix()
        if name.startswith("pairwise.npz"):
            continue
        data = path.read_bytes().replace(str(out).encode(), b"<out>")
        if name == "manifest.json":
            manifest = json.loads(data)
            for key in ("run_id", "created"):
                manifest.pop(key)
            manifest["files"] = [f["name"] for f in manifest["files"]
                                 if not f["name"].startswith("pairwise.npz")]
            data = json.dumps(manifest, sort_keys=True).encode()
        hashes[name] = hashlib.sha256(data).hexdigest()
    return hashes


def _same_run(cluster_out, single_out, parts=range(PARTS)):
    assert _hashes(cluster_out) == _hashes(single_out)
    written = sorted(os.listdir(Path(cluster_out) / "pairwise.npz"))
    assert written == [f"part-{k:05d}.npz" for k in parts]     # nothing left over
    cluster, single = (read_pairwise(Path(o) / "pairwise.npz") for o in (cluster_out,
                                                                        single_out))
    assert len(single) == S * L * (L - 1) // 2
    pd.testing.assert_frame_equal(cluster, single, check_exact=True)


def _printed(result, out):
    """Standard output without the seconds and the folder."""
    return [line for line in result.stdout.replace(str(out), "<out>").splitlines()
            if not line.startswith("(ranked in")]


def test_rank_with_two_local_workers_is_the_single_process_run(partitioned):
    folder, argv, single = partitioned
    out = folder / "workers"
    run = _cli(argv + ["--out", str(out), "--workers", "2"])
    assert run.returncode == 0, run.stderr
    _same_run(out, folder / "single")
    assert _printed(run, out) == _printed(single, folder / "single")
    # Read back a few data sets of the parts, in the order asked: the same rows.
    names = ["ds0045", "ds0003", "ds0021"]
    pd.testing.assert_frame_equal(read_pairwise(out / "pairwise.npz", names),
                                  read_pairwise(folder / "single" / "pairwise.npz", names),
                                  check_exact=True)


def test_rank_on_a_scheduler_is_the_single_process_run(partitioned, tmp_path):
    folder, argv, _ = partitioned
    with dask_cluster(str(tmp_path)) as (address, _workers):
        run = _cli(argv + ["--out", str(tmp_path / "out"), "--scheduler", address])
    assert run.returncode == 0, run.stderr
    _same_run(tmp_path / "out", folder / "single")


def test_a_worker_killed_mid_task_is_replaced_and_the_run_is_complete(partitioned, tmp_path):
    # The task of the second part names its worker process, then waits; that process is
    # SIGKILLed (a process of this run: its session), the scheduler reruns the task.
    folder, argv, _ = partitioned
    out = _killed_mid_task(tmp_path, argv)
    _same_run(out, folder / "single")


def _killed_mid_task(tmp_path, argv, small_parts=()):
    """Run ``argv`` on 2 workers, SIGKILL the worker of the second part's task mid-task;
    the output folder."""
    def kill_the_worker(run, worker, out):
        assert worker != run.pid and os.getsid(worker) == run.pid   # ours, not another's
        assert not (out / "manifest.json").exists()                 # mid-run
        os.kill(worker, signal.SIGKILL)

    code, output, errors, out = _while_the_second_part_waits(tmp_path, argv, kill_the_worker,
                                                             small_parts)
    assert code == 0, output + errors
    return out


def _while_the_second_part_waits(tmp_path, argv, act, small_parts=()):
    """Run ``argv`` on 2 workers; while the task of the second part waits (the first time it
    runs), ``act(run, its worker's pid, the output folder)``.  The exit status, standard
    output and error, and the output folder."""
    marker, out = tmp_path / "worker.pid", tmp_path / "out"
    run = subprocess.Popen([sys.executable, os.path.join(TESTS, "rank_slow_part.py"),
                            str(marker), *small_parts, *argv, "--out", str(out),
                            "--workers", "2"],
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 300    # a hang guard: the cluster starts, loaded
        while not marker.exists() and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), run.communicate(timeout=60)
        act(run, int(marker.read_text()), out)
        output, errors = run.communicate(timeout=180)
    finally:
        end_group(run, signal.SIGKILL)
    return run.returncode, output, errors, out


def test_a_folder_of_csv_parts_is_ranked_as_the_parquet_parts(partitioned, tmp_path):
    # The same rows as CSV files of whole data sets (in subfolders, one hidden file and an
    # '_' file skipped): with 2 workers, and in one process, the outputs of the Parquet run.
    folder, argv, _ = partitioned
    frame = long_frame(make_errors(S, L, 0))
    names = frame["dataset"].unique()
    for k in range(PARTS):
        chunk = names[k * S // PARTS:(k + 1) * S // PARTS]
        (tmp_path / "in" / f"g{k // 2}").mkdir(parents=True, exist_ok=True)
        frame[frame["dataset"].isin(chunk)].to_csv(tmp_path / "in" / f"g{k // 2}" /
                                                   f"part-{k}.csv", index=False)
    (tmp_path / "in" / ".hidden.csv").write_text("not,read\n")
    (tmp_path / "in" / "_SUCCESS.csv").write_text("not,read\n")
    csv_argv = ["rank", str(tmp_path / "in"), *argv[2:]]
    for out, extra in (("workers", ["--workers", "2"]), ("csv-single", [])):
        run = _cli(csv_argv + ["--out", str(tmp_path / out), *extra])
        assert run.returncode == 0, run.stderr
    _same_run(tmp_path / "workers", tmp_path / "csv-single")

    def outputs(out):   # every file but the manifest and result.json, which name the input
        return {k: v for k, v in _hashes(out).items() if k not in ("manifest.json",
                                                                   "result.json")}

    single = outputs(folder / "single")
    assert outputs(tmp_path / "csv-single") == single and "ranks.csv" in single
    texts = [(out / "result.json").read_text().replace(str(source), "<in>")
             for out, source in ((tmp_path / "csv-single", tmp_path / "in"),
                                 (folder / "single", folder / "in"))]
    assert texts[0] == texts[1] and texts[0].count("<in>") == 1
    pd.testing.assert_frame_equal(read_pairwise(tmp_path / "csv-single" / "pairwise.npz"),
                                  read_pairwise(folder / "single" / "pairwise.npz"),
                                  check_exact=True)


def test_csv_parts_naming_other_algorithms_are_refused_in_one_line(tmp_path):
    frame = long_frame(make_errors(4, 3, 0))
    (tmp_path / "in").mkdir()
    frame[frame["dataset"] <= "ds0001"].to_csv(tmp_path / "in" / "a.csv", index=False)
    other = frame[frame["dataset"] > "ds0001"].replace({"alg0002": "other"})
    other.to_csv(tmp_path / "in" / "b.csv", index=False)
    for extra in ([], ["--workers", "1"]):
        run = _cli(["rank", str(tmp_path / "in"), "--order", "alg0000,alg0001,alg0002",
                    "--out", str(tmp_path / "out"), *extra])
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.count("\n") == 1 and "b.csv" in run.stderr, run.stderr
        assert "not in both: alg0002, other" in run.stderr, run.stderr
        assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_small_run_lists_its_pairs_as_one_process_does(tmp_path):
    # 6 data sets x 8 algorithms (168 tests): pairwise.csv and the pairs inline, no parts.
    frame = long_frame(make_errors(6, 8, 1))
    (tmp_path / "in").mkdir()
    for k, chunk in enumerate((["ds0000", "ds0001", "ds0002"], ["ds0003", "ds0004", "ds0005"])):
        frame[frame["dataset"].isin(chunk)].to_parquet(tmp_path / "in" / f"{k}.parquet",
                                                       index=False)
    argv = ["rank", str(tmp_path / "in"), "--order", ",".join(cost_order(8, 1))]
    for out, extra in (("single", []), ("workers", ["--workers", "2"])):
        run = _cli(argv + ["--out", str(tmp_path / out), *extra])
        assert run.returncode == 0, run.stderr
    hashes = _hashes(tmp_path / "workers")
    assert "pairwise.csv" in hashes and not (tmp_path / "workers" / "pairwise.npz").exists()
    assert hashes == _hashes(tmp_path / "single")


@pytest.mark.parametrize("split", ["whole in both", "half in each"])
def test_a_data_set_in_two_files_is_refused_in_one_line(split, tmp_path):
    frame = long_frame(make_errors(4, 3, 0))
    (tmp_path / "in").mkdir()
    rows = frame["dataset"] == "ds0001"
    if split == "whole in both":     # each file complete: the client finds the duplicate
        first, second = frame[frame["dataset"] <= "ds0001"], frame[frame["dataset"] >= "ds0001"]
    else:   # each file incomplete, the first too: said as the split, not as results missing
        half = frame[rows].iloc[:15].index
        first, second = frame.loc[frame.index <= half[-1]], frame.loc[frame.index > half[-1]]
    expected = ["b.parquet", "data set 'ds0001' is also in", "a.parquet"]
    first.to_parquet(tmp_path / "in" / "a.parquet", index=False)
    second.to_parquet(tmp_path / "in" / "b.parquet", index=False)
    run = _cli(["rank", str(tmp_path / "in"), "--order", "alg0000,alg0001,alg0002",
                "--out", str(tmp_path / "out"), "--workers", "1"])
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert all(text in run.stderr for text in expected), run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("extra, message", [
    (["--workers", "2"], "give --out"),
    (["--workers", "0", "--out", "o"], "must be an integer >= 1"),
    # Not a million worker processes (each a Python process with its data): refused.
    (["--workers", "1000000", "--out", "o"], "must be at most"),
    (["--workers", "1", "--scheduler", "tcp://127.0.0.1:1", "--out", "o"], "not both"),
    (["--workers", "1", "--datasets", "ds0001,ds0002", "--out", "o"], "--datasets: not with"),
    (["--workers", "1", "--missing", "drop", "--out", "o"], "is not run on a cluster"),
    (["--workers", "1", "--test", "bayes-correlated-t", "--correction", "none", "--out", "o"],
     "is not run on a cluster"),
])
def test_cluster_options_are_checked(partitioned, extra, message):
    folder, argv, _ = partitioned
    run = _cli(argv + extra)
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr



#: ``python rank_small_parts.py RANGE_BYTES GROUP_ROWS``: the 60 data sets as one CSV file
#: (466 kB, 7.8 kB per data set) in ranges of 5 kB, some inside one data set (owning none);
#: as one Parquet file of row groups of 1000 rows (a data set is 300) in runs of >= 1500.
SMALL_PARTS = (os.path.join(TESTS, "rank_small_parts.py"), "5000", "1500")


def _small_parts(argv):
    return _cli([*SMALL_PARTS[1:], *argv], script=SMALL_PARTS[:1])


def _data_set_starts(path):
    """Byte offsets of the lines where a data set starts, in a CSV file."""
    starts, previous, at = set(), None, 0
    with open(path, "rb") as handle:
        at = len(handle.readline())
        for line in handle:
            name = line.split(b",")[0]
            if name != previous:
                starts.add(at)
            previous, at = name, at + len(line)
    return starts


@pytest.fixture(scope="module")
def one_file(partitioned):
    """The rows of the Parquet folder as one CSV file and as one Parquet file of 18 row
    groups, and the single-process runs of them."""
    folder, argv, _ = partitioned
    frame = long_frame(make_errors(S, L, 0))
    frame.to_csv(folder / "big.csv", index=False)
    frame.to_parquet(folder / "groups.parquet", index=False, row_group_size=1000)
    singles = {}
    for name in ("big.csv", "groups.parquet"):
        singles[name] = _cli(["rank", str(folder / name), *argv[2:], "--out",
                              str(folder / f"single-{name}")])
        assert singles[name].returncode == 0, singles[name].stderr
    return folder, argv[2:], frame, singles


def test_one_csv_file_split_into_byte_ranges_is_the_single_process_run(one_file):
    folder, options, _, singles = one_file
    path = folder / "big.csv"
    parts = split_input(path, range_bytes=5000)
    owned = [k for k, part in enumerate(parts) if load_part(part)[0] is not None]
    borders = {part.span[0] for part in parts[1:]}
    # 94 ranges, 60 owning a data set; of the 93 borders one is at the start of a data set,
    # 92 inside one: it is read by the range it starts in, past that range's end.
    assert (len(parts), len(owned), len(borders)) == (94, S, 93)
    assert len(borders & _data_set_starts(path)) == 1
    out = folder / "csv-workers"
    run = _small_parts(["rank", str(path), *options, "--out", str(out), "--workers", "2"])
    assert run.returncode == 0, run.stderr
    _same_run(out, folder / "single-big.csv", owned)
    assert _printed(run, out) == _printed(singles["big.csv"], folder / "single-big.csv")


def test_a_parquet_file_of_row_groups_is_ranked_in_runs_of_them(one_file):
    folder, options, _, _ = one_file
    path = folder / "groups.parquet"
    parts = split_input(path, group_rows=1500)
    # 18 row groups of 1000 rows; a data set is 300 rows, so two borders in three are
    # inside one (rows 1800-2099 hold ds0006): a run of 2000 rows is joined to the next
    # group, and ends at row 3000, between ds0009 and ds0010.
    assert [part.groups for part in parts] == [(0, 1, 2), (3, 4, 5), (6, 7, 8),
                                               (9, 10, 11), (12, 13, 14), (15, 16, 17)]
    assert [part.first_row for part in parts] == [1, 3001, 6001, 9001, 12001, 15001]
    out = folder / "groups-workers"
    run = _small_parts(["rank", str(path), *options, "--out", str(out), "--workers", "2"])
    assert run.returncode == 0, run.stderr
    _same_run(out, folder / "single-groups.parquet", range(len(parts)))


def _refused(run, out):
    assert run.returncode == 2, run.stdout
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert not out.exists()     # not even the folder the run created
    return run.stderr


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_bad_row_in_the_third_part_is_named_by_its_row_in_the_file(one_file, suffix,
                                                                     tmp_path):
    # A data set is 300 rows; 'ds0002' (rows 600-899 of the frame) is the third part's:
    # CSV ranges of 5 kB (a data set is 7.8 kB: one starts in every other range or so),
    # one row group per data set in runs of >= 1 row.
    _, options, frame, _ = one_file
    bad = frame.copy()
    bad.loc[600 + 7, "error"] = float("inf")
    path = tmp_path / f"bad{suffix}"
    if suffix == ".csv":
        bad.to_csv(path, index=False)
        row = 600 + 7 + 2        # the header is line 1
    else:
        bad.to_parquet(path, index=False, row_group_size=300)
        row = 600 + 7 + 1        # Parquet rows from 1
    parts = split_input(path, range_bytes=5000, group_rows=1)
    owned = [names for names, _ in map(part_names, parts[:8]) if names]
    assert owned[:3] == [("ds0000",), ("ds0001",), ("ds0002",)]
    run = _cli([SMALL_PARTS[1], "1", "rank", str(path), *options, "--out",
                str(tmp_path / "out"), "--workers", "2"], script=SMALL_PARTS[:1])
    message = _refused(run, tmp_path / "out")
    assert f"bad{suffix}, row {row}, field 'error': " in message, message
    single = _cli(["rank", str(path), *options, "--out", str(tmp_path / "out")])
    assert single.returncode == 2 and single.stderr == message


def test_a_data_set_in_two_places_of_one_file_is_refused_in_one_line(one_file, tmp_path):
    # Data set 'ds0001' (rows 300-599 of the frame, lines 302-601 of the file) cut in
    # two: its last 100 rows moved to the end of the file (lines 17902-18001).
    _, options, frame, _ = one_file
    moved = frame.index[500:600]
    pd.concat([frame.drop(moved), frame.loc[moved]]).to_csv(tmp_path / "mixed.csv",
                                                            index=False)
    run = _small_parts(["rank", str(tmp_path / "mixed.csv"), *options, "--out",
                        str(tmp_path / "out"), "--workers", "2"])
    message = _refused(run, tmp_path / "out")
    # The ranges owning the two pieces: the one of line 302 (ds0001 starts there and
    # its piece ends at line 501) and the last one (its 100 lines).
    assert message.startswith("multitest: error: ") and message.endswith(
        "mixed.csv, rows 17902-18001: data set 'ds0001' is also in "
        f"{tmp_path / 'mixed.csv'}, rows 302-501; --workers needs the rows of every data "
        "set together, in one file\n"), message


def test_a_worker_killed_mid_range_is_replaced_and_the_run_is_complete(one_file, tmp_path):
    # Ranges of 20 kB (2.6 data sets): 24 ranges, each owning a data set or more.
    folder, options, _, _ = one_file
    path = folder / "big.csv"
    assert all(names for names, _ in map(part_names, split_input(path, range_bytes=20000)))
    out = _killed_mid_task(tmp_path, ["rank", str(path), *options],
                           ("--small-parts", "20000", "1500"))
    _same_run(out, folder / "single-big.csv", range(24))


def test_parts_of_another_fold_design_are_refused_in_one_line(tmp_path):
    # 5 folds in a.parquet, 4 in b.parquet: one process reads one table (fold 5 missing);
    # the cluster names the part.
    frame = long_frame(make_errors(4, 3, 0))
    (tmp_path / "in").mkdir()
    frame[frame["dataset"] <= "ds0001"].to_parquet(tmp_path / "in" / "a.parquet", index=False)
    frame[(frame["dataset"] > "ds0001") & (frame["replication"] < 5)].to_parquet(
        tmp_path / "in" / "b.parquet", index=False)
    run = _cli(["rank", str(tmp_path / "in"), "--order", "alg0000,alg0001,alg0002", "--test",
                "kfold-t", "--out", str(tmp_path / "out"), "--workers", "1"])
    message = _refused(run, tmp_path / "out")
    assert message.endswith(f"{tmp_path / 'in' / 'b.parquet'}: another fold design (4 "
                            "replication(s) of 2 fold(s)) than "
                            f"{tmp_path / 'in' / 'a.parquet'}'s (5 of 2); --workers needs "
                            "one design\n"), message


def test_the_decisions_of_a_cluster_run_are_counted_as_bits_never_made_booleans():
    # The summary counted them with np.count_nonzero, which made every data set's
    # booleans at once (client peak 1.6 -> 2.8 GB at 10^9 tests); now that raises.
    from multitest.run._rank_cluster import _BitRows

    rng = np.random.default_rng(5)
    decisions = rng.random((9000, 37)) < 0.3
    bits = _BitRows(np.packbits(decisions, axis=1), 37)
    assert bits.sum() == decisions.sum()
    np.testing.assert_array_equal(bits[4321], decisions[4321])
    with pytest.raises(TypeError, match="one data set at a time"):
        np.count_nonzero(bits)


@pytest.mark.parametrize("how, status, word", [(signal.SIGINT, 130, "interrupted"),
                                               (signal.SIGTERM, 143, "terminated")])
def test_a_rank_stopped_while_its_parts_run_prints_one_line(partitioned, tmp_path, how,
                                                              status, word):
    # The second part's task waits; Ctrl-C (SIGINT to the group) or SIGTERM (to the driver)
    # stops the command in its gather.  Dask's abandoned waits printed "Task exception
    # was never retrieved" and a traceback after the line (3 tries of 5, 2026-11-24).
    def stop(run, worker, out):
        (os.killpg if how == signal.SIGINT else os.kill)(run.pid, how)

    code, _, errors, out = _while_the_second_part_waits(tmp_path, partitioned[1], stop)
    assert (code, errors) == (status, f"multitest: {word}; no output was changed\n")
    assert not out.exists()


def test_the_errors_of_a_cluster_run_are_read_one_part_at_a_time(tmp_path, monkeypatch):
    # The errors of a run ranked on a cluster stay in its parts; reading them data set by
    # data set loads each part once (it loaded the whole part per data set, and the rows
    # kept every part alive: 20,000 data sets x 100 algorithms filled 23 GB), and the
    # error range of the figures and the report is read the same way.
    from multitest.inputs import Results
    from multitest.run._rank_cluster import _PartRows, _Parts

    rng = np.random.default_rng(3)
    parts = [rng.uniform(0, 0.4, (n, 3, 10)) for n in (4, 2)]
    parts[1][1, 2, 5] = 0.9
    for k, errors in enumerate(parts):
        np.savez(tmp_path / f"part-{k:05d}.npz", errors=errors)
    loads = []
    real_load = np.load
    monkeypatch.setattr(np, "load", lambda path, **kw: loads.append(path) or real_load(path, **kw))
    rows = _PartRows(_Parts(str(tmp_path), np.array([0, 4, 6])), (6, 3, 10), None)
    whole = np.concatenate(parts)
    results = Results(errors=rows, datasets=tuple("abcdef"), algorithms=("x", "y", "z"),
                      replications=5, folds_per_replication=2, has_folds=True, source="parts")
    assert results.error_range == (whole.min(), 0.9)
    assert results.error_range == (whole.min(), 0.9)     # read once, not per call
    assert len(loads) == 2
    np.testing.assert_array_equal(np.stack([rows[s] for s in range(6)]), whole)


def test_the_tests_of_a_data_set_are_rerun_once_for_all_their_columns(partitioned, tmp_path,
                                                                      monkeypatch):
    # Reference: the single-process run's pairwise file. A cluster run's statistics and
    # p-values are rerun from its parts when read; the report reads a data set's columns
    # one after the other, and each column reran the data set's tests.
    from multitest.run import _rank_cluster

    folder, argv, _ = partitioned
    out = tmp_path / "workers"
    run = _cli(argv + ["--out", str(out), "--workers", "2"])
    assert run.returncode == 0, run.stderr
    reruns = []
    real = _rank_cluster.read_pairwise
    monkeypatch.setattr(_rank_cluster, "read_pairwise",
                        lambda *args: reruns.append(args) or real(*args))
    parts = _rank_cluster._Parts(str(out / "pairwise.npz"), np.arange(0, S + 1, S // PARTS))
    P = L * (L - 1) // 2
    columns = ("statistic", "pvalue", "pvalue_adjusted")
    rows = {c: _rank_cluster._PartRows(parts, (S, P), c) for c in columns}
    single = read_pairwise(folder / "single" / "pairwise.npz", ["ds0003", "ds0045"])
    for s, name in ((3, "ds0003"), (45, "ds0045")):
        expected = single[single["dataset"] == name]
        for c in columns:
            np.testing.assert_array_equal(rows[c][s], expected[c].to_numpy())
    assert len(reruns) == 2
