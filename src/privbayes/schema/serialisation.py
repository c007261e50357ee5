"""Schema files: attributes to and from their mappings, and the size a mapping declares (read
before anything is built, so that a hostile file is refused before it allocates)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from privbayes.core.errors import InputError
from privbayes.core.limits import limits
from privbayes.files.documents import is_rational_text
from privbayes.schema.attribute import DEFAULT_BINS, NUMERIC_KINDS, Attribute, DateAttribute, NumericAttribute
from privbayes.schema.dates import date_text
from privbayes.schema.taxonomy import taxonomy_from_lists, taxonomy_to_lists


def attribute_to_dict(attr: Attribute) -> dict[str, Any]:
    """The attribute as a schema file writes it."""
    out: dict[str, Any] = {"name": attr.name, "kind": attr.kind}
    if isinstance(attr, DateAttribute):
        out.update(lower=date_text(attr.lower, attr.granularity), upper=date_text(attr.upper, attr.granularity),
                   bins=attr.bins, granularity=attr.granularity)
        if attr.special_values:
            out["special_values"] = [date_text(v, attr.granularity) for v in attr.special_values]
    elif isinstance(attr, NumericAttribute):
        if attr.edges is not None:
            out["edges"] = list(attr.edges)
        else:
            out.update(lower=attr.lower, upper=attr.upper, bins=attr.bins)
        out["integer"] = attr.integer
        if attr.scale != "linear":
            out["scale"] = attr.scale
        if attr.decimals is not None:
            out["decimals"] = attr.decimals
        if attr.special_values:
            out["special_values"] = list(attr.special_values)
    else:
        out["categories"] = list(attr.categories)
        if attr.taxonomy is not None:
            out["taxonomy"] = taxonomy_to_lists(attr.taxonomy)
    if attr.dtype is not None:
        out["dtype"] = attr.dtype
    if attr.ordered:
        out["ordered"] = True
    out["missing"] = attr.missing
    if attr.invalid != "refuse":
        out["invalid"] = attr.invalid
    if attr.missing_token is not None:
        out["missing_token"] = attr.missing_token
    return out

def attribute_from_dict(raw: Any, source: str, defaults: dict[str, Any] | None = None) -> Attribute:
    """An attribute from a schema file's mapping (``defaults``: the schema-wide policies), sizes capped first."""
    if not isinstance(raw, dict):
        raise InputError(f"{source}: each attribute must be a mapping, got {type(raw).__name__}")
    allowed = {"name", "kind", "categories", "lower", "upper", "bins", "integer", "taxonomy", "missing", "invalid",
               "missing_token", "special_values", "edges", "scale", "decimals", "granularity", "dtype", "ordered"}
    unknown = set(raw) - allowed
    if unknown:
        raise InputError(f"{source}: attribute {raw.get('name')!r} has unknown keys {sorted(unknown)}")
    if "name" not in raw or "kind" not in raw:
        raise InputError(f"{source}: every attribute needs 'name' and 'kind'")
    if not isinstance(raw["name"], str) or not isinstance(raw["kind"], str):  # never echo a whole list back
        raise InputError(f"{source}: an attribute's name and kind must be text, got "
                         f"{type(raw['name']).__name__} and {type(raw['kind']).__name__}")
    kwargs = {**(defaults or {}), **raw}
    for key in ("categories", "special_values", "edges"):
        if key in kwargs:
            if not isinstance(kwargs[key], list):
                raise InputError(f"{source}: attribute {raw['name']!r}: {key} must be a list")
            cap = limits().max_categories if key == "categories" else limits().max_bins + 1
            if len(kwargs[key]) > cap:
                raise InputError(f"{source}: attribute {raw['name']!r}: {len(kwargs[key])} {key} is above the "
                                 f"limit of {cap} (PRIVBAYES_MAX_{'CATEGORIES' if key == 'categories' else 'BINS'})")
            kwargs[key] = tuple(kwargs[key])
    if "edges" in raw and "bins" in raw and isinstance(kwargs.get("edges"), tuple) \
            and raw["bins"] != len(kwargs["edges"]) - 1:
        raise InputError(f"{source}: attribute {raw['name']!r}: bins ({raw['bins']}) differs from the "
                         f"{len(kwargs['edges']) - 1} bins the edges give; leave it out")
    if kwargs.get("taxonomy") is not None:
        kwargs["taxonomy"] = taxonomy_from_lists(kwargs["taxonomy"], source)
    try:
        return Attribute(**kwargs)
    except TypeError as exc:
        raise InputError(f"{source}: attribute {raw['name']!r}: {exc}") from None


def declared_codes(raw: Any) -> int:
    """The size one raw attribute mapping declares, read before it is built: its bins and special
    values (numeric, date), or its categories and taxonomy groups (categorical, binary), plus one
    (its missing code).  Malformed entries count what they declare; their own checks refuse them."""
    if not isinstance(raw, dict):
        return 1
    codes = 1
    for key in ("categories", "special_values"):
        if isinstance(raw.get(key), list):
            codes += len(raw[key])
    if raw.get("kind") == "binary" and not raw.get("categories"):
        codes += 2
    edges, bins = raw.get("edges"), raw.get("bins", DEFAULT_BINS)
    if isinstance(edges, list):
        codes += max(len(edges) - 1, 0)
    elif raw.get("kind") in NUMERIC_KINDS and isinstance(bins, int) and not isinstance(bins, bool) and bins > 0:
        codes += bins
    stack = [raw.get("taxonomy")]
    while stack:  # taxonomy groups, without recursion (the document's depth is capped, but stay iterative)
        node = stack.pop()
        if isinstance(node, list):
            codes += 1
            stack.extend(child for child in node if isinstance(child, list))
    return codes


DRAFT_RELATIONS = ("replace-one", "add-remove")
"""The neighbouring relations a private draft may name (those of :mod:`privbayes.privacy.neighbours`)."""
MAX_DRAFT_TEXT = 400
"""Characters allowed in each text of a ``private_draft`` block (mechanism, step, measured)."""
_LEDGER_KEYS = ("step", "mechanism", "epsilon", "sensitivity", "measured")


@dataclass(frozen=True)
class DraftRelease:
    """A schema's ``private_draft`` block: the domain was released by ``privbayes schema infer --epsilon``
    under ε-DP (pure ε, ``neighbours``), with the ledger of every paid release.  Parsed bounded and checked
    on its own terms: exact rational budgets, a known relation, and a ledger whose ε sum to the declared ε
    (a block edited by hand so that they differ is refused).  Rows of the ledger are (step, mechanism, ε,
    sensitivity, measured)."""

    epsilon: Fraction
    neighbours: str
    mechanism: str
    ledger: tuple[tuple[str, str, Fraction, Fraction, str], ...]

    def __post_init__(self) -> None:
        if self.epsilon <= 0:
            raise InputError("private_draft: epsilon must be positive")
        if self.neighbours not in DRAFT_RELATIONS:
            raise InputError(f"private_draft: neighbours must be one of {', '.join(DRAFT_RELATIONS)}")
        if any(e <= 0 or s <= 0 for _, _, e, s, _ in self.ledger):
            raise InputError("private_draft: every ledger entry needs a positive epsilon and sensitivity")
        if sum((e for _, _, e, _, _ in self.ledger), Fraction(0)) != self.epsilon:
            raise InputError("private_draft: the ledger's epsilons do not sum to the block's epsilon (the block "
                             "was edited by hand?); re-run 'privbayes schema infer --epsilon'")

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": str(self.epsilon), "neighbours": self.neighbours, "mechanism": self.mechanism,
                "ledger": [dict(zip(_LEDGER_KEYS, (step, mechanism, str(e), str(s), measured)))
                           for step, mechanism, e, s, measured in self.ledger]}

    @classmethod
    def from_dict(cls, raw: Any, source: str) -> DraftRelease:
        """The block of a schema file, its size and types checked before anything is converted."""
        where = f"{source}: private_draft"
        if not isinstance(raw, dict) or set(raw) != {"epsilon", "neighbours", "mechanism", "ledger"}:
            raise InputError(f"{where} must be a mapping of epsilon, neighbours, mechanism and ledger")
        ledger = raw["ledger"]
        if not isinstance(ledger, list) or not 0 < len(ledger) <= 4 * limits().max_attributes:
            raise InputError(f"{where}: ledger must be a list of at most {4 * limits().max_attributes:,} entries "
                             "(four per column)")
        rows = []
        for entry in ledger:
            if not isinstance(entry, dict) or set(entry) != set(_LEDGER_KEYS):
                raise InputError(f"{where}: each ledger entry is a mapping of {', '.join(_LEDGER_KEYS)}")
            rows.append((_text(entry["step"], where), _text(entry["mechanism"], where),
                         _rational(entry["epsilon"], where), _rational(entry["sensitivity"], where),
                         _text(entry["measured"], where)))
        return cls(_rational(raw["epsilon"], where), _text(raw["neighbours"], where), _text(raw["mechanism"], where),
                   tuple(rows))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_DRAFT_TEXT:
        raise InputError(f"{where}: expected text of at most {MAX_DRAFT_TEXT} characters")
    return value


def _rational(value: Any, where: str) -> Fraction:
    """An exact budget written as a rational such as "1/10" (or an integer)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**9:
        return Fraction(value)
    if not is_rational_text(value):
        raise InputError(f"{where}: budgets are exact rationals written as text, e.g. \"1/10\"")
    try:
        return Fraction(value)
    except ZeroDivisionError:
        raise InputError(f"{where}: a budget has a zero denominator") from None
