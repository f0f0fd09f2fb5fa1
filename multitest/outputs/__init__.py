"""Outputs: the output-folder transaction, result.json, CSV tables, the pairwise file and
the text summary.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "to_dict": "._outputs",
    "write_outputs": "._outputs",
    "atomic_directory": "._outputs",
    "INLINE_PAIRS_LIMIT": "._outputs",
    "PAIRWISE_FILE": "._outputs",
    "pairwise_frame": "._outputs",
    "stage_tables": "._outputs",
    "write_pairwise_file": "._outputs",
    "read_pairwise": "._outputs",
    "is_large": "._outputs",
    "write_csv": "._outputs",
    "summary_text": "._summary",
    "format_table": "._summary",
    "WHY_POSITIONS": "._summary",
    "transaction": "._transaction",
    "recover": "._transaction",
    "read_run": "._transaction",
    "RunManifest": "._transaction",
    "MANIFEST": "._transaction",
    "LOCK": "._transaction",
    "JOURNAL": "._transaction",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
