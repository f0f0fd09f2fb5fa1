"""Public names of :mod:`multitest.outputs` (see ``__init__.py``)."""

from ._pairwise_file import read_pairwise as read_pairwise
from ._transaction import RunManifest as RunManifest
from ._reading import read_listed as read_listed
from ._reading import read_run as read_run
from ._transaction import transaction as transaction
from ._write import write_outputs as write_outputs
