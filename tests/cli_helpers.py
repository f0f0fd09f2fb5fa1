"""Running `multitest` as a real process: the fault and folder tests of the command line."""
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
    """Every entry under `folder` (links not followed): kind and SHA-256 of the files."""
    sums = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            key = os.path.relpath(path, folder)
            if os.path.islink(path):
                sums[key] = "link " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    sums[key] = hashlib.sha256(handle.read()).hexdigest()
            else:
                sums[key] = "folder"
    return sums


def sibling(tmp_path):
    """A folder beside the output folder with a file and a sub-folder (the target of the
    links a test plants), and its checksums."""
    folder = tmp_path / "sibling"
    (folder / "pages").mkdir(parents=True, exist_ok=True)
    (folder / "keep.txt").write_text("precious\n")
    (folder / "pages" / "d0.html").write_text("<p>mine</p>\n")
    return folder, checksums(folder)


def assert_one_line_error(code, stderr, *words):
    """Exit 2, one line on stderr naming `words`, no traceback."""
    lines = stderr.strip().splitlines()
    assert code == 2, stderr
    assert len(lines) == 1 and lines[0].startswith("multitest: error: "), stderr
    assert "Traceback" not in stderr
    for word in words:
        assert word in lines[0], lines[0]
