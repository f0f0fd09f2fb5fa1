"""examples/notebook.ipynb runs from top to bottom (nbclient, an IPython kernel) and shows
the inline views: the ranking as HTML, a data set's override graph as SVG, the tables."""
import os
from pathlib import Path

import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "notebook.ipynb"


def test_the_notebook_executes_and_shows_the_inline_views(tmp_path):
    pytest.importorskip("sklearn")
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    code = [c for c in notebook.cells if c.cell_type == "code"]
    ranking_view = code[0].outputs[0]["data"]
    assert "text/html" in ranking_view
    for algorithm in ("5nn", "c45", "lnp", "mlp", "mdt", "svl", "sv2", "svr"):
        assert algorithm in ranking_view["text/html"]
    assert "<table" in code[1].outputs[0]["data"]["text/html"]          # to_frame()
    assert "pvalue_raw" in code[2].outputs[0]["data"]["text/html"]      # posthoc_frame()
    assert "image/svg+xml" in code[3].outputs[0]["data"]                # a data set's graph
    printed = "".join(o.get("text", "") for o in code[5].outputs)
    assert printed.startswith("Final order (best first)")
    assert "\\begin{table}" in "".join(o.get("text", "") for o in code[6].outputs)
    study = code[-1].outputs[0]["data"]["text/plain"]
    for learner in ("naive_bayes", "logistic", "tree", "knn"):
        assert learner in study
    assert os.listdir(tmp_path) == []      # the notebook writes nothing
