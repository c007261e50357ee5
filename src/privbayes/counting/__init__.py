"""The counting layer: the only code that reads private rows (the privacy boundary).

``open(source, schema, backend="numpy")`` reads and validates a table and returns a
:class:`PrivateTable`; nothing else in the library opens private data.
"""

from privbayes.counting.base import PrivateTable
from privbayes.counting.labels import InvalidValuesError
from privbayes.counting.memory import InMemoryTable
from privbayes.counting.source import leaf_codes, open

__all__ = ["InMemoryTable", "InvalidValuesError", "PrivateTable", "leaf_codes", "open"]
