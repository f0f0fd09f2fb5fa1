"""A fixed set of command-line runs whose every output is hashed.

The hashes in ``fixtures/golden_hashes.json`` were recorded with multitest 0.1.0 before the
package was reorganised into subpackages (0.2.0); ``test_golden.py`` re-runs the same commands
and compares.  A refactoring that changes no behaviour leaves every byte of every output as it
was: the JSON, the CSV tables, the DOT sources, the SVG figures, the HTML report and the text
printed on standard output.

What varies from run to run is normalised before hashing: the run's identifier and creation
time in ``manifest.json`` (and its copies of the files' hashes, compared one by one here), the
seconds a run took (printed last), and absolute paths (the temporary folder and the installed
package's folder). What varies from machine to machine is normalised too: a number printed with
twelve or more significant digits is hashed at ten, because numpy's ``exp`` and ``log`` (and
OpenBLAS) take other code paths on other processors and differ there in the last bits (the
hashes recorded on one machine failed in 27 runs on another with the same packages: the
Nemenyi p-values of ``posthoc.csv`` and ``result.json``).

Run ``python tests/golden_runs.py record`` to record the hashes anew (only when an output is
meant to change, and say so in the commit).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
HASHES = HERE / "fixtures" / "golden_hashes.json"
TESTS = ["5x2cv-t", "bayes-correlated-t", "combined-5x2cv-f", "combined-5x2cv-t", "corrected-t",
         "kfold-t", "sign", "wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy"]
SECOND_PASSES = ["nemenyi", "wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy", "sign", "bayesian"]
POSTHOC_CORRECTIONS = ["none", "bonferroni", "holm", "hochberg", "hommel", "shaffer",
                       "bergmann-hommel"]
CORRECTIONS = ["none", "bonferroni", "holm", "hochberg", "hommel"]


def _synthetic(S, L, seed=0):
    """Long-format errors and the cheapest-first order (benchmarks/synthetic.py's recipe)."""
    sys.path.insert(0, str(HERE.parent / "benchmarks"))
    try:
        from synthetic import cost_order, long_frame, make_errors
    finally:
        sys.path.pop(0)
    return long_frame(make_errors(S, L, seed)), cost_order(L, seed)


def runs():
    """``{name: argv}`` of every run; inputs are paths relative to the run folder."""
    bundled = ["rank", "accuracy.csv"]
    out = {
        "bundled_training_time": bundled + ["--costs", "training_time", "--format", "svg",
                                            "--report"],
        "bundled_space_complexity": bundled + ["--costs", "space_complexity", "--format", "svg",
                                               "--report"],
        "bundled_time_and_space_greater": bundled + ["--costs", "time_and_space",
                                                     "--alternative", "greater",
                                                     "--test", "5x2cv-t"],
        "bundled_cost_table": bundled + ["--costs", "training_time.csv",
                                         "--secondary-costs", "space_complexity"],
        "score_matrix": ["rank", "scores.csv", "--costs", "training_time"],
        "control_holm": bundled + ["--costs", "training_time", "--control", "svr"],
        "control_bonferroni_dunn": bundled + ["--costs", "training_time", "--control", "svr",
                                              "--control-method", "bonferroni-dunn"],
        "uncorrected_ties_no_gate": bundled + ["--costs", "training_time", "--friedman-ties",
                                               "uncorrected", "--no-friedman-gate"],
        "corrected_t_ratio": bundled + ["--costs", "training_time", "--test", "corrected-t",
                                        "--test-train-ratio", "1/4"],
        "bayes_rope": bundled + ["--costs", "training_time", "--test", "bayes-correlated-t",
                                 "--rope", "0.01", "--min-probability", "0.9",
                                 "--second-pass", "bayesian", "--bayes-seed", "3"],
        "stability": ["stability", "accuracy.csv", "--costs", "training_time", "-B", "40",
                      "--seed", "1", "--alphas", "0.01,0.05,0.1", "--profiles",
                      "training_time,space_complexity", "--report"],
        "synthetic_40x30": ["rank", "s40x30.csv", "--order", "@s40x30.order", "--format", "svg",
                            "--report"],
        "synthetic_1000x100": ["rank", "s1000x100.csv", "--order", "@s1000x100.order"],
    }
    for test in TESTS:
        out[f"test_{test}"] = bundled + ["--costs", "training_time", "--test", test]
    for method in SECOND_PASSES:
        out[f"second_pass_{method}"] = bundled + ["--costs", "training_time", "--second-pass",
                                                  method]
    for correction in POSTHOC_CORRECTIONS:
        out[f"posthoc_{correction}"] = bundled + ["--costs", "space_complexity", "--second-pass",
                                                  "wilcoxon", "--posthoc-correction", correction]
    for correction in CORRECTIONS:
        out[f"correction_{correction}"] = bundled + ["--costs", "training_time", "--correction",
                                                     correction, "--alpha", "0.1"]
    return out


def prepare_inputs(folder):
    """Write the inputs of every run into ``folder``."""
    import multitest

    folder = Path(folder)
    data = Path(multitest.example_path()).parent
    for name in ("accuracy.csv", "training_time.csv"):
        (folder / name).write_bytes((data / name).read_bytes())
    example = pd.read_csv(data / "accuracy.csv")
    value = [c for c in example.columns if c not in ("dataset", "algorithm", "replication",
                                                     "fold")][0]
    scores = example.groupby(["dataset", "algorithm"], sort=False)[value].mean().reset_index()
    scores[value] = scores[value].round(2)
    scores.to_csv(folder / "scores.csv", index=False)
    for S, L in ((40, 30), (1000, 100)):
        frame, order = _synthetic(S, L)
        frame.to_csv(folder / f"s{S}x{L}.csv", index=False)
        (folder / f"s{S}x{L}.order").write_text(",".join(order))


def _argv(argv, folder, name):
    """Expand ``@file`` into its text and add ``--out`` and ``--quiet``."""
    expanded = [(Path(folder) / a[1:]).read_text() if a.startswith("@") else a for a in argv]
    return ["--quiet"] + expanded + ["--out", f"out_{name}"]


_LONG_NUMBER = re.compile(rb"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def _ten_digits(match):
    number = match.group()
    digits = len(re.sub(rb"[eE].*|[-.]", b"", number).lstrip(b"0"))
    return number if digits < 12 else b"%.10g" % float(number)


def _normalise(data, replacements):
    for old, new in replacements:
        data = data.replace(old.encode(), new.encode())
    return _LONG_NUMBER.sub(_ten_digits, data)


def _manifest_bytes(data):
    manifest = json.loads(data)
    manifest.pop("run_id", None)
    manifest.pop("created", None)
    # The files' own hashes are compared one by one; theirs here would carry machine paths.
    manifest["files"] = [entry["name"] for entry in manifest.get("files", [])]
    return json.dumps(manifest, indent=1, sort_keys=True).encode()


def run_and_hash(name, argv, folder):
    """Run one command in ``folder`` and hash its standard output and every output file."""
    import multitest
    from multitest._progress import is_quiet, set_quiet
    from multitest.cli import main

    folder = Path(folder)
    package = str(Path(multitest.__file__).resolve().parent)
    replacements = [(package, "<package>"), (str(folder.resolve()), "<folder>"),
                    (str(folder), "<folder>")]
    stdout = io.StringIO()
    cwd, quiet = os.getcwd(), is_quiet()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(stdout):
            code = main(_argv(argv, folder, name))
    finally:
        os.chdir(cwd)
        set_quiet(quiet)   # --quiet is process-wide; the other tests draw bars
    printed = re.sub(r"^\((ranked in |analysed in )?\d+\.\d+ s\)$", r"(\1<seconds> s)",
                     stdout.getvalue(), flags=re.M)
    hashes = {"<exit>": str(code),
              "<stdout>": _sha(_normalise(printed.encode(), replacements))}
    out = folder / f"out_{name}"
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        relative = path.relative_to(out).as_posix()
        data = _normalise(path.read_bytes(), replacements)
        if relative == "manifest.json":
            data = _manifest_bytes(data)
        hashes[relative] = _sha(data)
    return hashes


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def record(folder):
    prepare_inputs(folder)
    recorded = {name: run_and_hash(name, argv, folder) for name, argv in runs().items()}
    HASHES.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"recorded {sum(len(h) for h in recorded.values())} hashes of {len(recorded)} runs")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python tests/golden_runs.py record")
    with tempfile.TemporaryDirectory() as tmp:
        record(tmp)
