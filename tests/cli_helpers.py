"""Running `multitest` as a real process for the fault tests of multitest run."""
import hashlib
import os
import subprocess
import sys

from run_cluster import ENV


def run_cli(*args, timeout=300, **popen):
    """``(exit status, stdout, stderr)`` of ``python -m multitest.cli ARGS`` in its own session."""
    process = subprocess.run([sys.executable, "-m", "multitest.cli", *map(str, args)], env=ENV,
                             capture_output=True, text=True, timeout=timeout,
                             start_new_session=True, **popen)
    return process.returncode, process.stdout, process.stderr


def checksums(folder):
    """``{relative path: SHA-256}`` of every file under `folder` (links not followed)."""
    sums = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                sums[os.path.relpath(path, folder)] = hashlib.sha256(handle.read()).hexdigest()
    return sums


def sibling(tmp_path):
    """A folder beside the experiment's with a few files, and its checksums."""
    folder = tmp_path / "sibling"
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (folder / "notes.txt").write_text("keep me\n")
    (folder / "sub" / "data.csv").write_text("a,b\n1,2\n")
    return folder, checksums(folder)


def assert_one_line_error(code, stderr, *words):
    """Exit 2, one line on stderr naming `words`, no traceback."""
    lines = stderr.strip().splitlines()
    assert code == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("multitest: error: "), stderr
    assert "Traceback" not in stderr
    for word in words:
        assert word in lines[0], lines[0]
