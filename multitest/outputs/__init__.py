"""Outputs: the output-folder transaction, result.json, CSV tables, the pairwise file and
the text summary.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "write_csv": "._csv",
    "to_dict": "._json",
    "write_json": "._json",
    "is_large": "._json",
    "INLINE_PAIRS_LIMIT": "._json",
    "DATASET_TABLES": "._json",
    "write_pairwise_file": "._pairwise_file",
    "read_pairwise": "._pairwise_file",
    "PAIRWISE_FILE": "._pairwise_file",
    "summary_text": "._summary",
    "WHY_POSITIONS": "._summary",
    "pairwise_frame": "._tables",
    "stage_tables": "._tables",
    "PAIRWISE_COLUMNS": "._tables",
    "transaction": "._transaction",
    "recover": "._transaction",
    "read_run": "._transaction",
    "RunManifest": "._transaction",
    "MANIFEST": "._transaction",
    "LOCK": "._transaction",
    "JOURNAL": "._transaction",
    "write_outputs": "._write",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
