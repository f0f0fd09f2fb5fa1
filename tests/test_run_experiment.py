"""multitest.run._experiment: only a named estimator class is imported, nothing is called to
validate it; data no fold could use is refused before the first fit; a fold's store key
holds the content of its data and the measurement settings (issue 17, items 1, 3, 5).

Every refusal goes through the CLI as a real process: exit 2, one line, no traceback, nothing
outside the experiment folder changed (checksums of a sibling folder before and after).
"""
import hashlib
import json
import sqlite3
import textwrap

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")
from cli_helpers import assert_one_line_error, checksums, run_cli, sibling  # noqa: E402

from multitest import InputError  # noqa: E402
from multitest.run import run_experiment  # noqa: E402
from multitest.run._store import Store
from multitest.run._experiment import import_estimator  # noqa: E402


def _experiment(folder, algorithms, datasets="  - sklearn: iris\n", extra="", replications=1):
    learners = textwrap.indent(textwrap.dedent(algorithms), "  ")
    path = folder / "experiment.yaml"
    path.write_text(f"datasets:\n{datasets}algorithms:\n{learners}"
                    f"cv: {{replications: {replications}, folds: 2, seed: 0}}\n"
                    f"{extra or 'repeats: 1'}\n")
    return path


def _stored(out):
    path = out / "store.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM folds").fetchone()[0]


# -- item 1: an estimator is a class, checked by type; nothing is called ----------------

@pytest.mark.parametrize("estimator, params, kind", [
    ("os.system", "{command: 'touch {marker}'}", "builtin_function_or_method"),
    ("subprocess:Popen", "{args: [touch, '{marker}']}", "class without fit and get_params"),
    ("subprocess.run", "{args: [touch, '{marker}']}", "function"),
    ("os.path", "{}", "module"),
])
def test_a_callable_named_as_estimator_is_refused_without_being_called(tmp_path, estimator,
                                                                          params, kind):
    marker = tmp_path / "sibling" / "called"
    folder, before = sibling(tmp_path)
    params = params.replace("{marker}", str(marker))
    experiment = _experiment(tmp_path, f"""\
        nb: {{estimator: sklearn.naive_bayes.GaussianNB}}
        evil: {{estimator: {estimator}, params: {params}}}
        """)
    code, _, stderr = run_cli("run", experiment, "--out", tmp_path / "out")
    assert_one_line_error(code, stderr, "field 'algorithms.evil.estimator'", kind,
                          "not an estimator class", "nothing was called")
    assert not marker.exists()          # the command never ran
    assert checksums(folder) == before
    assert _stored(tmp_path / "out") == 0


def test_every_estimator_is_checked_by_type_before_any_instance_is_made(tmp_path):
    # run_estimators.Marker creates a file when an instance is made; the second learner is a
    # function: refused before the first learner (a valid class) is instantiated.
    marker = tmp_path / "instance-made"
    experiment = _experiment(tmp_path, f"""\
        marker: {{estimator: run_estimators.Marker, params: {{path: '{marker}'}}}}
        evil: {{estimator: os.getcwd}}
        """)
    code, _, stderr = run_cli("run", experiment, "--out", tmp_path / "out")
    assert_one_line_error(code, stderr, "os.getcwd is a builtin_function_or_method")
    assert not marker.exists()


def test_import_estimator_accepts_classes_only():
    from sklearn.naive_bayes import GaussianNB

    assert import_estimator("sklearn.naive_bayes:GaussianNB") is GaussianNB
    assert import_estimator("run_estimators.Sleep").__name__ == "Sleep"
    for path in ("builtins.print", "collections.OrderedDict", "os.path", "math.pi"):
        with pytest.raises(TypeError, match="not an estimator class"):
            import_estimator(path)


# -- item 5: data checked before the first fit --------------------------------------------

SLOW_PAIR = """\
    nb: {estimator: sklearn.naive_bayes.GaussianNB}
    slow: {estimator: run_estimators.Sleep, params: {seconds: 5}}
    """


def _csv(tmp_path, frame):
    frame.to_csv(tmp_path / "bad.csv", index=False)
    return "  - sklearn: iris\n  - csv: bad.csv\n    target: label\n"


@pytest.mark.parametrize("frame, words", [
    # Missing feature at data row 3 (CSV line 4), column 'b'.
    (pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 2, np.nan, 4], "label": [0, 1, 0, 1]}),
     ["1 row(s)", "line 4", "column 'b'", "missing values"]),
    (pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 2, 3, 4], "label": [1, 1, 1, 1]}),
     ["the target has one class (1)"]),
    (pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 2, 3, 4], "label": [0, 0, 0, 1]}),
     ["class 1 has 1 example(s), fewer than the 2 folds"]),
    (pd.DataFrame({"a": [1.0, np.inf, 3, 4], "b": [1.0, 2, 3, 4], "label": [0, 1, 0, 1]}),
     ["missing or infinite features", "example 2, feature 1"]),
])
def test_unusable_data_is_refused_before_the_first_fit(tmp_path, frame, words):
    folder, before = sibling(tmp_path)
    experiment = _experiment(tmp_path, SLOW_PAIR, datasets=_csv(tmp_path, frame))
    code, _, stderr = run_cli("run", experiment, "--out", tmp_path / "out", "--workers", "1")
    assert_one_line_error(code, stderr, "data set 'bad'", "field 'datasets.1.csv'", *words)
    assert not (tmp_path / "out").exists()      # not one fold of iris, not even a store
    assert checksums(folder) == before


# -- item 3: the store key holds the data's content and the measurement settings ----------

KEYED = """\
    nb: {estimator: sklearn.naive_bayes.GaussianNB}
    tree: {estimator: sklearn.tree.DecisionTreeClassifier, params: {max_depth: 2, random_state: 0}}
    """


def test_a_changed_input_recomputes_exactly_what_changed(tmp_path):
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    data = pd.DataFrame(X[:, :4], columns=list("abcd")).assign(label=y)
    data.to_csv(tmp_path / "wine.csv", index=False)
    datasets = "  - sklearn: iris\n  - csv: wine.csv\n    target: label\n"
    out = tmp_path / "out"

    def run(algorithms=KEYED):
        path = _experiment(tmp_path, algorithms, datasets, replications=2)
        return run_experiment(str(path), out, workers=1, show_progress=False)

    first = run()
    assert (first.total, first.computed) == (16, 16)
    provenance = json.loads((out / "provenance.json").read_text())
    # Reference: the SHA-256 of the file's bytes, computed here by hashlib.
    assert provenance["data_sha256"]["wine"] == \
        hashlib.sha256((tmp_path / "wine.csv").read_bytes()).hexdigest()
    assert run().computed == 0
    # Same path, other content: only wine's 8 folds again.
    data.assign(a=data["a"][::-1].to_numpy()).to_csv(tmp_path / "wine.csv", index=False)
    changed = run()
    assert (changed.computed, changed.reused) == (8, 8)
    with Store(str(out / "store.sqlite")) as store:
        frame = store.frame()
    assert set(frame.loc[frame["run"] == 3, "dataset"]) == {"wine"}
    # Other parameters of one learner: only its 8 folds.
    assert run(KEYED.replace("max_depth: 2", "max_depth: 3")).computed == 8


def test_repeats_and_isolate_are_part_of_the_key(tmp_path):
    out = tmp_path / "out"

    def run(extra):
        path = _experiment(tmp_path, KEYED, extra=extra, replications=2)
        return run_experiment(str(path), out, workers=1, show_progress=False)

    assert run("repeats: 1").computed == 8
    more = run("repeats: 3")             # only the repeated first fold of each learner
    assert (more.computed, more.reused) == (2, 6)
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["repeats"] == 3
    noise = pd.read_csv(out / "costs" / "noise.csv")
    assert set(noise["repeats"]) == {3}      # the stored folds are those of the settings
    assert run("repeats: 3\nisolate: false").computed == 8
    assert json.loads((out / "provenance.json").read_text())["isolate"] is False


def test_timeout_must_be_positive_finite_or_none(tmp_path):
    from multitest.run._experiment import load_experiment

    for value in ("inf", ".nan", "-1", "0", "true"):
        path = _experiment(tmp_path, KEYED, extra=f"timeout: {value}")
        with pytest.raises(InputError, match="field 'timeout': must be a positive finite"):
            load_experiment(path)
    assert load_experiment(_experiment(tmp_path, KEYED, extra="timeout: none")).timeout is None
    assert load_experiment(_experiment(tmp_path, KEYED, extra="timeout: 2.5")).timeout == 2.5
