"""Every figure of whole runs, rendered through the CLI as a user runs it, read back from SVG.

The runs: the bundled data, 12 long names with more than 20 overrides, 12 long
names with few overrides (rows), 60 and 150 algorithms.  What ``dot`` drew is
read back from the SVG files (no layout is recomputed here) and checked
against the run's own result.json:

- one drawing per figure kind in a run (every override graph a row, or every
  one a matrix, or every one a table);
- a row has at most ROW_EDGE_LIMIT drawn edges, its boxes in one row in cost
  order, and no label (p-value) overlaps a box;
- matrices and tables list their algorithms in the stated order: override
  matrices and trace grids in cost order (rows and named columns), the
  significance matrix by average rank, the final table in final order;
- no two node boxes overlap; every text has contrast >= 4.5:1 on what it is
  drawn on (WCAG 2.1, relative luminance).
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
from multitest.figures._dot import MATRIX_LIMIT, ROW_EDGE_LIMIT, ROW_LIMIT
from multitest.figures._datasets import dataset_stems

pytestmark = pytest.mark.skipif(shutil.which("dot") is None,
                                reason="Graphviz 'dot' is not installed")

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
#: A generous width of one character, in font sizes (Helvetica averages about 0.55).
CHAR_WIDTH = 0.62


# -- reading an SVG file back ---------------------------------------------------------------

def _points(shape):
    tag = shape.tag.replace(SVG, "")
    if tag == "polygon":
        values = [float(v) for v in NUMBER.findall(shape.get("points"))]
    elif tag == "path":
        values = [float(v) for v in NUMBER.findall(shape.get("d"))]
    elif tag == "rect":
        x, y = float(shape.get("x", 0)), float(shape.get("y", 0))
        w, h = float(shape.get("width")), float(shape.get("height"))
        values = [x, y, x + w, y + h]
    else:
        return None
    xs, ys = values[0::2], values[1::2]
    return (min(xs), min(ys), max(xs), max(ys))


def _box(element):
    """Bounding box (x0, y0, x1, y1) of the outline (polygon or path) of a node group."""
    for shape in element.iter():
        box = _points(shape)
        if box is not None:
            return box
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


def svg_edges(path):
    """``[(title, [text boxes])]`` of every drawn edge, with the boxes of its labels."""
    root = ET.parse(path).getroot()
    return [(group.find(f"{SVG}title").text, [text_box(t) for t in group.iter(f"{SVG}text")])
            for group in root.iter(f"{SVG}g") if group.get("class") == "edge"]


def text_box(t):
    """A generous box around an SVG text element (from its anchor, size and length)."""
    size = float(t.get("font-size", 14))
    width = CHAR_WIDTH * size * len("".join(t.itertext()))
    x, y = float(t.get("x")), float(t.get("y"))
    x0 = {"start": x, "middle": x - width / 2, "end": x - width}[t.get("text-anchor", "start")]
    return (x0, y - 0.8 * size, x0 + width, y + 0.2 * size)


def svg_texts(path):
    """``[(x, y, anchor, text)]`` of every text element."""
    root = ET.parse(path).getroot()
    return [(float(t.get("x")), float(t.get("y")), t.get("text-anchor", "start"),
             "".join(t.itertext())) for t in root.iter(f"{SVG}text")]


def overlap(a, b):
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


# -- contrast (WCAG 2.1) -----------------------------------------------------------------------

_NAMED = {"white": "#ffffff", "black": "#000000"}


def _rgb(colour):
    colour = _NAMED.get(colour, colour)
    if not colour or not colour.startswith("#") or len(colour) not in (4, 7, 9):
        return None
    if len(colour) == 4:
        colour = "#" + "".join(c * 2 for c in colour[1:])
    return [int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5)]


def luminance(colour):
    c = np.asarray(_rgb(colour))
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def low_contrast_texts(path, minimum=4.5):
    """Texts whose colour has less than ``minimum`` contrast with the last filled shape
    drawn before them that contains their anchor (white when none)."""
    root = ET.parse(path).getroot()
    filled, bad = [], []
    for element in root.iter():
        tag = element.tag.replace(SVG, "")
        if tag in ("polygon", "path", "rect") and _rgb(element.get("fill")) is not None:
            box = _points(element)
            if box is not None and box[2] - box[0] > 2 and box[3] - box[1] > 2:
                filled.append((box, element.get("fill")))
        elif tag == "text":
            x, y = float(element.get("x")), float(element.get("y")) - 3
            background = next((fill for box, fill in reversed(filled)
                               if box[0] <= x <= box[2] and box[1] <= y <= box[3]), "#ffffff")
            colour = element.get("fill", "#000000")
            for span in element.iter(f"{SVG}tspan"):
                colour = span.get("fill", colour)
            if _rgb(colour) and contrast(colour, background) < minimum:
                bad.append(("".join(element.itertext()), colour, background))
    return bad


# -- checks of the drawings ------------------------------------------------------------------

def assert_no_overlap(path):
    boxes = list(svg_nodes(path).items())
    for k, (na, a) in enumerate(boxes):
        for nb, b in boxes[k + 1:]:
            assert not overlap(a, b), f"{path.name}: nodes {na} and {nb} overlap"


def assert_column(path, names, max_edges=ROW_EDGE_LIMIT):
    """Nodes ``n0, n1, ...`` in one column top to bottom (as narrow as a box: it fits any
    page); at most ``max_edges`` edges, whose labels overlap no box."""
    nodes = svg_nodes(path)
    boxes = [nodes[f"n{i}"] for i in range(len(names))]
    centres = [(b[0] + b[2]) / 2 for b in boxes]
    assert max(centres) - min(centres) < 1.0, f"{path.name} is not one column"
    for top, below in zip(boxes, boxes[1:]):
        assert top[3] < below[1], f"{path.name} is not top to bottom"
    edges = svg_edges(path)
    assert len(edges) <= max_edges, f"{path.name}: {len(edges)} edges beside a column"
    for title, labels in edges:
        for label in labels:
            for node, box in nodes.items():
                assert not overlap(label, box), f"{path.name}: label of {title} over {node}"


def assert_table_rows(path, names):
    """Each name on a table row of its own (in the leftmost column where names stand),
    top to bottom in the given order."""
    texts = svg_texts(path)
    found = {name: [(x, y) for x, y, anchor, t in texts if t.strip() == name and
                    anchor == "start"] for name in names}
    assert all(found.values()), f"{path.name}: missing {[n for n, f in found.items() if not f]}"
    column = min(x for places in found.values() for x, _ in places)
    ys = []
    for name in names:
        row = [y for x, y in found[name] if abs(x - column) < 1]
        assert len(row) == 1, f"{path.name}: {name} drawn {len(row)} times in its column"
        ys.append(row[0])
    assert all(a < b for a, b in zip(ys, ys[1:])), f"{path.name} rows are not in order"


def column_heads(path):
    """The names heading the columns of a matrix or grid, left to right.

    The header is every text down to the baseline of the first heading (``#``
    or ``step``; headings stand on one baseline); the wrapped lines of one
    heading are centred on one x (estimated from their length), and are
    joined top to bottom.
    """
    texts = svg_texts(path)
    baseline = min(y for _, y, _, t in texts if t.strip() in ("#", "step", "final #"))
    columns = []
    for x, y, anchor, t in texts:
        if y > baseline + 2:
            continue
        centre = x + (0.55 * 10 * len(t) / 2 if anchor == "start" else 0)
        column = next((c for c in columns if abs(c[0] - centre) < 8), None)
        if column is None:
            columns.append((centre, [(y, t)]))
        else:
            column[1].append((y, t))
    return ["".join(t for _, t in sorted(lines)) for _, lines in sorted(columns)]


def assert_columns(path, names):
    squeeze = [re.sub(r"\s", "", n) for n in names]
    heads = [re.sub(r"\s", "", h) for h in column_heads(path)]
    assert [h for h in heads if h in squeeze] == squeeze, f"{path.name} columns not in order"


def run(tmp_path, *args, report=False):
    out = tmp_path / "out"
    argv = ["rank", *map(str, args), "--out", str(out), "--format", "svg", "-q"]
    assert main(argv + (["--report"] if report else [])) == 0
    return out, json.loads((out / "result.json").read_text())


def _prior_orders(out, doc):
    """Each data set's prior order: in result.json, or (large runs) in the table it names."""
    if doc["dataset_tables"] is None:
        return {name: entry["prior_order"] for name, entry in doc["datasets"].items()}
    orders = pd.read_csv(out / doc["dataset_tables"]["prior_order"], dtype=str)
    prior = orders[orders["stage"] == "prior"].set_index("dataset").drop(columns="stage")
    return {name: row.tolist() for name, row in prior.iterrows()}


def source_of(path):
    """The DOT source of the figure drawn at ``path``: its own ``.dot`` file, or its graph in
    dataset_figures.dot (many per-data-set tables)."""
    from multitest.figures._graphviz import dot_sources

    return dot_sources(path.parent)[path.stem]


def drawing_of(path):
    """'row' (boxes n0, n1, ...), 'matrix' (named columns) or 'table'."""
    source = source_of(path)
    if "n0 [" in source:
        return "row"
    return "matrix" if "matrix of the" in source else "table"


def check_run(out, doc):
    """Every check of the module docstring; returns the drawing of the override graphs."""
    names = list(doc["input"]["algorithms"])
    L = len(names)
    datasets = list(doc["datasets"])
    priors = _prior_orders(out, doc)
    drawings = set()
    for name, stem in zip(datasets, dataset_stems_of(datasets)):
        prior = priors[name]
        path = out / f"override_{stem}.svg"
        drawings.add(drawing_of(path))
        if drawing_of(path) == "row":
            assert_column(path, prior)
        else:
            assert_table_rows(path, prior)
            if drawing_of(path) == "matrix":
                assert_columns(path, prior)
        trace = out / f"trace_{stem}.svg"
        if "<TABLE" in source_of(trace) and L <= ROW_LIMIT:
            assert_columns(trace, prior)      # the grid: columns in cost order
    assert len(drawings) == 1, f"override graphs drawn {drawings}"
    final = doc["final_order"]
    if L <= ROW_LIMIT:       # the chain (L - 1 arrows "comes before") and deciding overrides
        assert_column(out / "final.svg", final, max_edges=L * L)
    else:
        assert_table_rows(out / "final.svg", final)
    if doc["second_pass"] is not None:
        sp = doc["second_pass"]
        path = out / "second_pass.svg"
        if drawing_of(path) == "row":
            assert_column(path, sp["prior_order"])
        else:
            assert_table_rows(path, sp["prior_order"])
        # in the final order; a triangle: the last has no row, the first no column
        if L <= MATRIX_LIMIT:
            assert_table_rows(out / "significance.svg", final[:-1])
            assert_columns(out / "significance.svg", final[1:])
        else:
            assert_table_rows(out / "significance.svg", final)
    for path in out.glob("*.svg"):
        if path.stem != "cd":            # the CD diagram has its own test of its labels
            assert_no_overlap(path)
        assert low_contrast_texts(path) == [], path.name
    return drawings.pop()


def dataset_stems_of(datasets):
    class Named:
        def __init__(self, name):
            self.name = name

    class Fake:
        pass

    fake = Fake()
    fake.datasets = [Named(d) for d in datasets]
    return dataset_stems(fake)


def long_name_results(tmp_path, S, L, seed, names=None, means=None, spread=0.015):
    """Synthetic 5x2 cv results with long names; costlier algorithms somewhat better
    (by 0.12 in error from the cheapest to the costliest), unless ``means`` says; each
    (data set, algorithm) shifted by a normal effect of sd ``spread``."""
    rng = np.random.default_rng(seed)
    names = names or [f"gradient_boosted_ensemble_variant_{j:02d}_with_a_long_name"
                      for j in range(L)]
    if means is None:
        means = np.linspace(0, -0.12, L) + rng.normal(0, 0.02, L)
    errors = (0.3 + rng.normal(0, 0.02, (S, 1, 1)) + means[None, :, None]
              + rng.normal(0, spread, (S, L, 1)) + rng.normal(0, 0.01, (S, L, 10)))
    frame = make_frame(errors, datasets=[f"benchmark data set {i}" for i in range(S)],
                       algorithms=names)
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    return path, names


def n_overrides(doc):
    return sum(len(d["edges"]) for d in doc["datasets"].values())


# -- the runs ----------------------------------------------------------------------------------

def test_bundled_example_through_the_cli(tmp_path):
    out, doc = run(tmp_path, example_path(), "--costs", "training_time")
    assert len(list(out.glob("override_*.svg"))) == 38
    # 13 of the 38 data sets have more than 8 edges in their reduction: all are matrices.
    assert check_run(out, doc) == "matrix"


def test_bundled_example_few_data_sets_in_rows(tmp_path):
    out, doc = run(tmp_path, example_path(), "--costs", "training_time",
                   "--datasets", "monks,iris,haberman,wine")
    assert n_overrides(doc) == 7 + 1 + 0 + 3
    assert check_run(out, doc) == "row"


def test_twelve_long_names_many_overrides_through_the_cli(tmp_path):
    path, names = long_name_results(tmp_path, S=6, L=12, seed=2)
    out, doc = run(tmp_path, path, "--order", ",".join(names))
    assert min(len(d["edges"]) for d in doc["datasets"].values()) >= 20
    assert check_run(out, doc) == "matrix"


def test_twelve_long_names_in_rows_through_the_cli(tmp_path):
    # Equal errors but for two algorithms clearly better than the few cheaper ones
    # before them: a handful of overrides in each data set.
    means = np.zeros(12)
    means[[2, 5]] = -0.08      # 2 + 4 overrides in the transitive reduction
    path, names = long_name_results(tmp_path, S=3, L=12, seed=7, means=means, spread=0.0)
    out, doc = run(tmp_path, path, "--order", ",".join(names))
    assert n_overrides(doc) == 3 * ROW_EDGE_LIMIT     # 6 in each data set: the limit
    assert check_run(out, doc) == "row"


def test_sixty_algorithms_through_the_cli(tmp_path):
    path, names = long_name_results(tmp_path, S=4, L=60, seed=5,
                                    names=[f"learner_{j:02d}_{'x' * (j % 9)}" for j in range(60)])
    out, doc = run(tmp_path, path, "--order", ",".join(names))
    assert check_run(out, doc) == "table"       # above MATRIX_LIMIT: a ranked list


def test_hundred_fifty_algorithms_through_the_cli(tmp_path):
    path, names = long_name_results(tmp_path, S=3, L=150, seed=6,
                                    names=[f"model_{j:03d}" for j in range(150)])
    out, doc = run(tmp_path, path, "--order", ",".join(names))
    assert check_run(out, doc) == "table"
    # The test can tell apart only algorithms far apart: the CD diagram says so.
    assert "Low power" in (out / "cd.dot").read_text()


def test_forty_algorithms_thirty_data_sets_through_the_cli(tmp_path):
    path, names = long_name_results(tmp_path, S=30, L=40, seed=1)
    out, doc = run(tmp_path, path, "--order", ",".join(names), report=True)
    assert check_run(out, doc) == "table"       # above MATRIX_LIMIT: a ranked list
    report = (out / "report.html").read_text()
    assert len(report.encode()) <= 5 * 1024 * 1024
    # 780 pairs per data set: the data sets have pages of their own, all linked.
    pages = sorted(p.name for p in (out / "report_datasets").iterdir())
    assert len(pages) == 30
    for page in pages:
        assert f'href="report_datasets/{page}"' in report


def test_contrast_reference_values():
    # WCAG 2.1 reference values: black on white 21:1, #777 on white about 4.48:1.
    assert contrast("#000000", "white") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


# -- one drawing path: Graphviz draws every graph and table figure ---------------------------

def test_every_per_data_set_figure_is_drawn_by_dot_from_its_own_dot_file(tmp_path):
    # The tables parsed back from DOT (figures/_direct_svg.py) are gone (issue 37 item 6):
    # each override matrix and sort trace is drawn by Graphviz from its <stem>.dot.
    out, doc = run(tmp_path, example_path(), "--costs", "training_time")
    assert check_run(out, doc) == "matrix"
    drawn = sorted(out.glob("override_*.svg")) + sorted(out.glob("trace_*.svg"))
    assert len(drawn) == 2 * 38
    for path in drawn:
        assert "Generated by graphviz" in path.read_text(), path.name
        assert path.with_suffix(".dot").exists()
    assert not list(out.glob("dataset_figures.dot"))
