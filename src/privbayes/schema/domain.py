"""The schema: a table's public domain as one frozen value (its attributes in order, the columns dropped as
identifiers, the policies set once for all attributes), validated on construction with every declared size capped
first (:func:`~privbayes.schema.serialisation.declared_codes`), and its file mapping."""


from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privbayes.core.errors import InputError
from privbayes.core.limits import check_domain_total, limits
from privbayes.schema.attribute import (
    NUMERIC_KINDS,
    Attribute,
)
from privbayes.schema.decoding import decode, identifier_keys
from privbayes.schema.serialisation import DraftRelease, attribute_from_dict, attribute_to_dict, declared_codes

QUOTED_NEWLINES_CAVEAT = ("the schema lets quoted CSV fields span lines ('quoted_newlines: true'): reading is not "
                          "row-local, so one malformed row can change how the rows after it are read, which the "
                          "sensitivity does not bound")
"""The privacy report's caveat for a schema with ``quoted_newlines``."""

SCHEMA_DEFAULT_KEYS = ("missing", "invalid", "missing_token")
"""Keys a schema may set once for all its attributes (an attribute's own value wins)."""

IDENTIFIER_KINDS = ("integer", "text", "uuid")
"""Keys ``keep_ids`` regenerates for a dropped identifier: 1..n as int64, "1".."n" as text, or UUIDs
(version-4 layout) whose number is the row's: unique, and free of data."""


@dataclass(frozen=True)
class Schema:
    """The ordered attributes of a table; names are unique.

    ``dropped`` names columns of the data that are deliberately left out (an identifier, free
    text); ``inferred`` marks a draft read from the data (``schema infer``) that nobody has
    reviewed yet: while it stays, fitting says so and the privacy report says the domain was
    taken from the data, which ε does not cover.  ``quoted_newlines`` lets a quoted CSV field
    span lines; it gives up row-local reading (one stray quote changes how the following lines
    are read), so it is off by default and named in the privacy report's caveats.

    A schema is usually read from a file (YAML, JSON or ``.domain``; :meth:`from_dict` for its mapping)
    or drafted (:func:`privbayes.infer_schema`, :func:`privbayes.private_draft`).

    Parameters
    ----------
    attributes : tuple of Attribute
        The table's attributes, in order; at least 2, names unique.
    dropped : tuple of str, default ()
        Columns of the data deliberately left out (``drop:``).
    inferred : bool, default False
        The schema is an unreviewed draft read from the data.
    quoted_newlines : bool, default False
        Quoted CSV fields may span lines.
    identifiers : tuple of (str, str), default ()
        Dropped columns that are identifiers, with the kind of key regenerated for each.
    private_draft : DraftRelease, optional
        The release record of a differentially private draft.
    """

    attributes: tuple[Attribute, ...]
    dropped: tuple[str, ...] = ()
    inferred: bool = False
    quoted_newlines: bool = False
    identifiers: tuple[tuple[str, str], ...] = ()
    """Dropped columns that are identifiers, with the kind of key ``sample(keep_ids=True)`` regenerates
    for each (:data:`IDENTIFIER_KINDS`); written under ``drop:`` as ``{name: …, identifier: …}``."""
    private_draft: DraftRelease | None = None
    """Set when the domain was released by a differentially private draft (``schema infer --epsilon``):
    its ε, relation and ledger, which the privacy report of a fit adds to the fit's ε."""

    def __post_init__(self) -> None:
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise InputError(f"schema: attribute name {dup!r} appears more than once")
        if len(names) < 2:
            raise InputError(f"schema: PrivBayes needs at least 2 attributes, got {len(names)}")
        if not isinstance(self.dropped, tuple) or not all(isinstance(c, str) for c in self.dropped):
            raise InputError("schema: drop must be a list of column names")
        both = [c for c in self.dropped if c in names]
        if both:
            raise InputError(f"schema: column {both[0]!r} is both an attribute and in drop")
        if not isinstance(self.identifiers, tuple) or not all(
                isinstance(pair, tuple) and len(pair) == 2 and pair[0] in self.dropped and pair[1] in IDENTIFIER_KINDS
                for pair in self.identifiers):
            raise InputError("schema: an identifier under drop must be {name: COLUMN, identifier: KIND} with KIND one "
                             f"of {', '.join(IDENTIFIER_KINDS)}")
        if not isinstance(self.inferred, bool):
            raise InputError(f"schema: inferred must be true or false, got {self.inferred!r}")
        if not isinstance(self.quoted_newlines, bool):
            raise InputError(f"schema: quoted_newlines must be true or false, got {self.quoted_newlines!r}")
        if self.private_draft is not None and (self.inferred or not isinstance(self.private_draft, DraftRelease)):
            raise InputError("schema: private_draft marks a draft released under epsilon; it cannot be "
                             "'inferred: true' as well")

    @property
    def names(self) -> list[str]:
        """The attributes' names, in order."""
        return [a.name for a in self.attributes]

    def index(self, name: str) -> int:
        """Position of the attribute called ``name``.

        Parameters
        ----------
        name : str
            An attribute's name.

        Returns
        -------
        int
            Its index in ``attributes`` (an InputError when there is none).
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise InputError(f"schema: no attribute named {name!r}") from None

    def __len__(self) -> int:
        return len(self.attributes)

    def to_dict(self) -> dict[str, Any]:
        """The schema as the mapping a schema file holds (YAML or JSON).

        Returns
        -------
        dict
            ``version``, ``attributes``, and ``drop``, ``inferred``, ``private_draft``, ``quoted_newlines``
            where set; :meth:`from_dict` reads it back.
        """
        out: dict[str, Any] = {"version": 1}
        if self.inferred:
            out["inferred"] = True
        if self.private_draft is not None:
            out["private_draft"] = self.private_draft.to_dict()
        out["attributes"] = [attribute_to_dict(a) for a in self.attributes]
        if self.dropped:
            keys = dict(self.identifiers)
            out["drop"] = [name if name not in keys else {"name": name, "identifier": keys[name]}
                           for name in self.dropped]
        if self.quoted_newlines:
            out["quoted_newlines"] = True
        return out

    @classmethod
    def from_dict(cls, raw: Any, source: str = "schema") -> Schema:
        """A schema from the mapping of a schema file, validated (sizes capped before anything is built).

        Parameters
        ----------
        raw : dict
            ``attributes`` (a list of attribute entries) and optionally ``drop``, ``inferred``,
            ``quoted_newlines``, ``private_draft`` and the schema-wide ``missing``, ``invalid``, ``missing_token``.
        source : str, default "schema"
            Names the schema in error messages (e.g. its file name).

        Returns
        -------
        Schema
            The validated schema; any problem is a one-line InputError naming ``source``.
        """
        if not isinstance(raw, dict) or not isinstance(raw.get("attributes"), list):
            raise InputError(f"{source}: expected a mapping with a list 'attributes'")
        unknown = set(raw) - {"version", "attributes", "drop", "inferred", "quoted_newlines", "private_draft",
                            *SCHEMA_DEFAULT_KEYS}
        if unknown:
            raise InputError(f"{source}: unknown top-level keys {sorted(unknown)}")
        defaults = {key: raw[key] for key in SCHEMA_DEFAULT_KEYS if key in raw}
        check_domain_total(len(raw["attributes"]), sum(declared_codes(a) for a in raw["attributes"]), source)
        attributes = []
        for a in raw["attributes"]:
            own = dict(defaults)
            if own.get("invalid") == "clip" and isinstance(a, dict) and a.get("kind") not in NUMERIC_KINDS:
                del own["invalid"]  # a schema-wide 'clip' concerns numeric attributes only
            attributes.append(attribute_from_dict(a, source, own))
        dropped = raw.get("drop") or []
        if not isinstance(dropped, list) or len(dropped) > limits().max_categories:
            raise InputError(f"{source}: drop must be a list of column names")
        names, identifiers = [], []
        for entry in dropped:
            if isinstance(entry, dict):
                if set(entry) != {"name", "identifier"} or not isinstance(entry["name"], str):
                    raise InputError(f"{source}: an entry of drop is a column name or {{name: COLUMN, identifier: "
                                     f"KIND}} (KIND one of {', '.join(IDENTIFIER_KINDS)})")
                identifiers.append((entry["name"], entry["identifier"]))
                entry = entry["name"]
            names.append(str(entry))
        draft = DraftRelease.from_dict(raw["private_draft"], source) if "private_draft" in raw else None
        return cls(tuple(attributes), tuple(names), raw.get("inferred", False), raw.get("quoted_newlines", False),
                   tuple(identifiers), draft)

    def decode(self, codes: np.ndarray, rng: np.random.Generator, bin_labels: bool = False) -> pd.DataFrame:
        """Values of leaf codes: categories, or numbers drawn inside their bins (post-processing).

        Parameters
        ----------
        codes : numpy.ndarray
            Leaf codes, n × d (one column per attribute, in order).
        rng : numpy.random.Generator
            Draws numbers inside their bins.
        bin_labels : bool, default False
            Numeric attributes as their bins' labels instead of numbers.

        Returns
        -------
        pandas.DataFrame
            One column per attribute, named and typed as the schema says.
        """
        return pd.DataFrame({a.name: decode(a, codes[:, j], rng, bin_labels) for j, a in enumerate(self.attributes)})

    def with_ids(self, frame: pd.DataFrame, start: int = 0) -> pd.DataFrame:
        """``frame`` with the identifier columns regenerated in front.

        Row i (counting from ``start``) gets key i + 1 in each (:func:`privbayes.schema.decoding.identifier_keys`).
        The keys carry no data: they depend on the row's position only.  Refused when the schema lists no
        identifier.

        Parameters
        ----------
        frame : pandas.DataFrame
            Sampled rows.
        start : int, default 0
            The position of the frame's first row, for a table written in chunks.

        Returns
        -------
        pandas.DataFrame
            The identifier columns (:data:`IDENTIFIER_KINDS`), then ``frame``'s.
        """
        if not self.identifiers:
            raise InputError("keep_ids: the schema lists no identifier under drop (write it there as "
                             f"{{name: COLUMN, identifier: KIND}}, KIND one of {', '.join(IDENTIFIER_KINDS)})")
        keys = {name: identifier_keys(kind, start, len(frame)) for name, kind in self.identifiers}
        clash = next((name for name in keys if name in frame.columns), None)
        if clash is not None:  # pragma: no cover - a name is never both dropped and an attribute
            raise InputError(f"keep_ids: column {clash!r} is already in the table")
        return pd.concat([pd.DataFrame(keys, index=frame.index), frame], axis=1)
