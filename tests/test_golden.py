"""Every output of a fixed set of runs is byte-identical to the one recorded before the
reorganisation into subpackages (see ``golden_runs.py`` for the runs and the normalisation)."""

import json
import shutil

import golden_runs
import pytest

RECORDED = json.loads(golden_runs.HASHES.read_text())


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("golden")
    golden_runs.prepare_inputs(folder)
    return folder


def test_every_run_is_recorded():
    assert sorted(golden_runs.runs()) == sorted(RECORDED)


@pytest.mark.parametrize("name", sorted(golden_runs.runs()))
def test_outputs_are_byte_identical(name, folder):
    if name in ("bundled_training_time", "bundled_space_complexity", "synthetic_40x30") \
            and shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' is needed for the SVG figures")
    hashes = golden_runs.run_and_hash(name, golden_runs.runs()[name], folder)
    expected = RECORDED[name]
    assert sorted(hashes) == sorted(expected), "a different set of files was written"
    changed = [path for path in expected if hashes[path] != expected[path]]
    assert not changed, f"{len(changed)} output(s) changed: {changed[:10]}"
