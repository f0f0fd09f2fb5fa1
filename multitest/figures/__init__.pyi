"""Public names of :mod:`multitest.figures` (see ``__init__.py``)."""

from ._cd_diagrams import render_cd_diagram as render_cd_diagram
from ._cd_diagrams import render_cd_errors as render_cd_errors
from ._stage_graphs import render_final as render_final
from ._stage_graphs import render_override_graph as render_override_graph
from ._stage_graphs import render_second_pass as render_second_pass
from ._stage_graphs import render_second_pass_result as render_second_pass_result
from ._stage_graphs import render_second_pass_trace as render_second_pass_trace
from ._stage_graphs import render_trace as render_trace
from ._significance import render_significance_matrix as render_significance_matrix
