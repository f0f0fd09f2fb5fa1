"""The text summary of a ranking (built in the engine: ``print(ranking)`` prints it)."""

from ..engine._summary import WHY_POSITIONS, summary_text

__all__ = []
