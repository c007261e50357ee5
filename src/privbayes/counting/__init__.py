"""The counting layer: the only code that reads private rows (the privacy boundary)."""

from privbayes.counting.base import PrivateTable
from privbayes.counting.memory import InMemoryTable

__all__ = ["PrivateTable", "InMemoryTable"]
