"""``multitest.inputs._rows``: what a results path may be, and how long its header line.

Reference for the memory: the peak resident size (``getrusage``) of the same command on a
file of a few bytes of the same kind, in the same test."""
import subprocess
import sys

import pytest
from run_cluster import ENV

from multitest import InputError, load_results
from multitest.inputs._rows import HEADER_LINE_BYTES

#: ``multitest ARGS...``; prints the peak resident size (kB) of the process last.
_PEAK = ("import resource, sys; from multitest.cli import main; code = main(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(code)")


def _rank(path):
    run = subprocess.run([sys.executable, "-c", _PEAK, "rank", str(path), "--order", "a,b"],
                         env=ENV, capture_output=True, text=True, timeout=300)
    return run.returncode, run.stderr, int(run.stdout.split()[-1])


@pytest.mark.parametrize("byte", [b"\0", b"x"])
def test_a_header_longer_than_the_limit_is_one_line_in_bounded_memory(tmp_path, byte):
    # 40 MB of NUL bytes (no line end) read as CSV: 731 MB resident, and a 2 GB file took
    # 10.6 GB then a MemoryError traceback (issue 40). Now one line naming the file, and
    # the peak within 16 MB of a file of 10 bytes (the limit is 4 MB).
    big, small = tmp_path / "big.csv", tmp_path / "small.csv"
    big.write_bytes(byte * (40 * 2 ** 20) + b",algorithm,fold,error\nd,a,1,0.1\n")
    small.write_bytes(byte * 10)
    code, message, peak = _rank(big)
    assert code == 2 and message == (f"multitest: error: {big}, row 1: the header is longer "
                                     "than 4 MB: not a CSV table of results\n")
    _, _, reference = _rank(small)
    assert peak - reference < 16 * 1024, (peak, reference)


def test_a_header_just_within_the_limit_is_read(tmp_path):
    # The longest header read: HEADER_LINE_BYTES with its line end; one byte more is refused.
    path = tmp_path / "r.csv"
    pad = HEADER_LINE_BYTES - len("dataset,algorithm,fold,error,\n")
    path.write_text("dataset,algorithm,fold,error," + "x" * pad + "\n" + "d,a,1,0.1,\n" +
                    "d,b,1,0.2,\n")
    assert load_results(path).algorithms == ("a", "b")
    path.write_text("dataset,algorithm,fold,error," + "x" * (pad + 1) + "\n")
    with pytest.raises(InputError, match="row 1: the header is longer than 4 MB"):
        load_results(path)
