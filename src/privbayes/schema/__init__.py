"""The public domain of a table: attributes, their kinds, bins, taxonomy levels and policies.

The schema is *public input*: categories, bounds and taxonomies come from the
data steward, not from the private data (TODS 2017 assumes a known domain).
Drafting one from data is the counting layer's job (``privbayes.counting.draft``)
and is flagged as not covered by ε.  Reading rows into leaf codes is the counting
layer's job too (``privbayes.counting.labels``); this module only describes the
code space: leaf codes 0..size-1 per attribute (the missing code last), their
generalisation levels (:mod:`privbayes.schema.taxonomy`), bins, and the decoding of codes
into values, which is post-processing of released codes.

Numeric attributes (docs/decisions.md, "Real tables") have equal-width bins over [lower, upper] (``scale:
linear``), bins equal-width in log(1 + x − lower) (``scale: log``), or explicit public
``edges``; ``special_values`` are numbers with a leaf code of their own beside the
bins (sentinels such as 999, point masses such as 0), matched before the bins and
decoded exactly.  Leaf codes: bins 0..b−1, then the special values in declared
order, then the missing code.  ``kind: date`` is a numeric attribute over whole days,
months or years (``granularity``) with ISO bounds, written back as ISO text.

Every declared size is checked against :mod:`privbayes.core.limits` before an array is built: each
attribute's bins and categories, and (:func:`declared_codes`) the number of attributes and their
total size, so that many attributes each just under its own cap cannot add up to gigabytes.
"""

from privbayes.schema.attribute import (
    DEFAULT_BINS,
    MAX_DECIMALS,
    MISSING_LABEL,
    NUMERIC_KINDS,
    Attribute,
    CategoricalAttribute,
    DateAttribute,
    Granularity,
    InvalidPolicy,
    Kind,
    MissingPolicy,
    NumericAttribute,
    Scale,
)
from privbayes.schema.dates import date_ordinal, date_text
from privbayes.schema.domain import IDENTIFIER_KINDS, QUOTED_NEWLINES_CAVEAT, SCHEMA_DEFAULT_KEYS, Schema
from privbayes.schema.serialisation import DraftRelease, declared_codes

__all__ = ["DEFAULT_BINS", "MAX_DECIMALS", "MISSING_LABEL", "NUMERIC_KINDS", "QUOTED_NEWLINES_CAVEAT",
           "SCHEMA_DEFAULT_KEYS", "IDENTIFIER_KINDS", "Attribute", "CategoricalAttribute", "DateAttribute",
           "DraftRelease", "Granularity", "InvalidPolicy", "Kind", "MissingPolicy", "NumericAttribute", "Scale",
           "Schema",
           "date_ordinal", "date_text", "declared_codes"]
