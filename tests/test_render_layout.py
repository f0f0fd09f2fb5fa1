"""Layout of every figure of a whole run, rendered through the CLI as a user runs it.

The positions are read back from the SVG files ``dot`` drew (no layout is
recomputed here): override graphs in one row in each data set's cost order,
the final order in one row (or, above ROW_LIMIT algorithms, one table row per
algorithm in final order), and no two boxes of any graph overlapping.  The
reference is the run's own result.json (prior and final orders).
"""
import json
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame

from multitest import example_path
from multitest.cli import main
from multitest.figures import ROW_LIMIT, dataset_stems

pytestmark = pytest.mark.skipif(shutil.which("dot") is None,
                                reason="Graphviz 'dot' is not installed")

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _box(element):
    """Bounding box (x0, y0, x1, y1) of the outline (polygon or path) of a node group."""
    for shape in element.iter():
        tag = shape.tag.replace(SVG, "")
        if tag == "polygon":
            values = [float(v) for v in NUMBER.findall(shape.get("points"))]
        elif tag == "path":
            values = [float(v) for v in NUMBER.findall(shape.get("d"))]
        else:
            continue
        xs, ys = values[0::2], values[1::2]
        return (min(xs), min(ys), max(xs), max(ys))
    return None


def svg_nodes(path):
    """``{node id: box}`` of every drawn node, from the SVG file."""
    root = ET.parse(path).getroot()
    out = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "node":
            title = group.find(f"{SVG}title").text
            box = _box(group)
            if box is not None:
                out[title] = box
    return out


def svg_texts(path):
    """``[(x, y, text)]`` of every text element."""
    root = ET.parse(path).getroot()
    return [(float(t.get("x")), float(t.get("y")), "".join(t.itertext()))
            for t in root.iter(f"{SVG}text")]


def overlap(a, b):
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def assert_no_overlap(path):
    boxes = list(svg_nodes(path).items())
    for k, (na, a) in enumerate(boxes):
        for nb, b in boxes[k + 1:]:
            assert not overlap(a, b), f"{path.name}: nodes {na} and {nb} overlap"


def assert_one_row(path, names):
    """Nodes ``n0, n1, ...`` (the given names) in one row, left to right, apart."""
    nodes = svg_nodes(path)
    boxes = [nodes[f"n{i}"] for i in range(len(names))]
    centres = [(b[1] + b[3]) / 2 for b in boxes]
    assert max(centres) - min(centres) < 1.0, f"{path.name} is not one row"
    for left, right in zip(boxes, boxes[1:]):
        assert left[2] < right[0], f"{path.name} is not left to right"


def assert_table_rows(path, names):
    """Each name on a table row of its own, top to bottom in the given order."""
    texts = svg_texts(path)
    ys = []
    for name in names:
        found = [y for x, y, t in texts if t.strip() == name]
        assert len(found) == 1, f"{path.name}: {name} drawn {len(found)} times"
        ys.append(found[0])
    assert all(a < b for a, b in zip(ys, ys[1:])), f"{path.name} rows are not in order"


def run(tmp_path, *args):
    out = tmp_path / "out"
    assert main(["rank", *map(str, args), "--out", str(out), "--format", "svg", "-q"]) == 0
    return out, json.loads((out / "result.json").read_text())


def _prior_orders(out, doc):
    """Each data set's prior order: in result.json, or (large runs) in the table it names."""
    if doc["dataset_tables"] is None:
        return {name: entry["prior_order"] for name, entry in doc["datasets"].items()}
    orders = pd.read_csv(out / doc["dataset_tables"]["prior_order"], dtype=str)
    prior = orders[orders["stage"] == "prior"].set_index("dataset").drop(columns="stage")
    return {name: row.tolist() for name, row in prior.iterrows()}


def check_run(out, doc):
    names = list(doc["input"]["algorithms"])
    L = len(names)
    datasets = list(doc["datasets"])
    stems = dataset_stems_of(datasets)
    rows = 0
    priors = _prior_orders(out, doc)
    for name, stem in zip(datasets, stems):
        prior = priors[name]
        path = out / f"override_{stem}.svg"
        if "n0" in svg_nodes(path):      # a row of boxes; else the matrix view
            assert L <= ROW_LIMIT
            assert_one_row(path, prior)
            rows += 1
        else:
            assert_table_rows(path, prior)
    final = doc["final_order"]
    if L <= ROW_LIMIT:
        assert_one_row(out / "final.svg", final)
    else:
        assert_table_rows(out / "final.svg", final)
    if doc["second_pass"] is not None and "n0" in svg_nodes(out / "second_pass.svg"):
        assert_one_row(out / "second_pass.svg", doc["second_pass"]["prior_order"])
    return rows
    for path in out.glob("*.svg"):
        if path.stem != "cd":            # the CD diagram has its own test of its labels
            assert_no_overlap(path)


def dataset_stems_of(datasets):
    class Named:
        def __init__(self, name):
            self.name = name

    class Fake:
        pass

    fake = Fake()
    fake.datasets = [Named(d) for d in datasets]
    return dataset_stems(fake)


def test_bundled_example_through_the_cli(tmp_path):
    out, doc = run(tmp_path, example_path(), "--costs", "training_time")
    assert len(list(out.glob("override_*.svg"))) == 38
    assert check_run(out, doc) == 38
    # The data set of the issue: a diagonal when it shared dot's state with the CD diagram.
    assert_one_row(out / "override_haberman.svg", doc["datasets"]["haberman"]["prior_order"])


def long_name_results(tmp_path, S, L, seed):
    """Synthetic 5x2 cv results with long names; costlier algorithms somewhat better."""
    rng = np.random.default_rng(seed)
    names = [f"gradient_boosted_ensemble_variant_{j:02d}_with_a_long_name" for j in range(L)]
    means = np.linspace(0, -0.12, L) + rng.normal(0, 0.02, L)
    errors = (0.3 + rng.normal(0, 0.02, (S, 1, 1)) + means[None, :, None]
              + rng.normal(0, 0.015, (S, L, 1)) + rng.normal(0, 0.01, (S, L, 10)))
    frame = make_frame(errors, datasets=[f"benchmark data set {i}" for i in range(S)],
                       algorithms=names)
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    return path, names


def test_twelve_long_names_in_rows_through_the_cli(tmp_path):
    path, names = long_name_results(tmp_path, S=6, L=12, seed=2)
    out, doc = run(tmp_path, path, "--order", ",".join(names))
    assert sum(len(d["edges"]) for d in doc["datasets"].values()) > 0
    assert check_run(out, doc) >= 1


def test_forty_algorithms_thirty_data_sets_through_the_cli(tmp_path):
    path, names = long_name_results(tmp_path, S=30, L=40, seed=1)
    out, doc = run(tmp_path, path, "--order", ",".join(names), "--report")
    assert check_run(out, doc) == 0
    report = (out / "report.html").read_text()
    assert len(report.encode()) <= 5 * 1024 * 1024
    # 780 pairs per data set: the data sets have pages of their own, all linked.
    pages = sorted(p.name for p in (out / "report_datasets").iterdir())
    assert len(pages) == 30
    for page in pages:
        assert f'href="report_datasets/{page}"' in report
