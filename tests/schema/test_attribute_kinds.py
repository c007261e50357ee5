"""Attributes typed by kind: ``Attribute(name, kind, ...)`` builds the class of its kind, whose bounds are
numbers, with the same fields, equality and schema file as before (docs/decisions.md, "Attribute kinds as
classes")."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

import privbayes
from privbayes.core.errors import InputError
from privbayes.schema import Attribute, CategoricalAttribute, DateAttribute, NumericAttribute
from privbayes.schema.decoding import decode
from privbayes.schema.serialisation import attribute_from_dict, attribute_to_dict

KINDS = [
    (Attribute("c", "categorical", categories=("a", "b", "c")), CategoricalAttribute),
    (Attribute("b", "binary"), CategoricalAttribute),
    (Attribute("n", "numeric", lower=0, upper=10, bins=5, integer=True, special_values=(99,)), NumericAttribute),
    (Attribute("d", "date", lower="2020-01-01", upper="2020-12-31", bins=4, granularity="month"), DateAttribute),
]


@pytest.mark.parametrize("attr, cls", KINDS)
def test_the_constructor_builds_the_class_of_the_kind(attr, cls):
    assert type(attr) is cls and isinstance(attr, Attribute)
    assert privbayes.Attribute is Attribute


def test_the_kind_may_be_given_by_keyword():
    by_keyword = Attribute(name="n", kind="numeric", lower=0, upper=10, bins=5)
    assert type(by_keyword) is NumericAttribute and by_keyword == Attribute("n", "numeric", lower=0, upper=10, bins=5)


@pytest.mark.parametrize("attr, cls", KINDS)
def test_a_kind_round_trips_through_its_mapping_pickle_and_copies(attr, cls):
    again = attribute_from_dict(attribute_to_dict(attr), "schema")
    assert type(again) is cls and again == attr and hash(again) == hash(attr)
    assert pickle.loads(pickle.dumps(attr)) == attr and type(pickle.loads(pickle.dumps(attr))) is cls
    assert type(copy.deepcopy(attr)) is cls and copy.deepcopy(attr).levels[0].tolist() == attr.levels[0].tolist()


def test_numeric_and_date_bounds_are_numbers():
    numeric, date = KINDS[2][0], KINDS[3][0]
    assert isinstance(numeric, NumericAttribute) and isinstance(date, NumericAttribute)
    assert (numeric.lower, numeric.upper) == (0, 10)
    assert (date.lower, date.upper, date.granularity) == (2020 * 12, 2020 * 12 + 11, "month")
    assert date.bin_labels() == ["[2020-01, 2020-04)", "[2020-04, 2020-07)", "[2020-07, 2020-10)",
                                 "[2020-10, 2020-12)"]
    assert numeric.number_codes(np.array([0.0, 9.9, 10.0, 99.0, 11.0])).tolist() == [0, 4, 4, 5, -1]
    assert not hasattr(KINDS[0][0], "bin_edges")  # categories have no bins


def test_a_numeric_attribute_replaced_keeps_its_class():
    numeric = KINDS[2][0]
    clipped = dataclasses.replace(numeric, invalid="clip")
    assert type(clipped) is NumericAttribute and clipped.invalid == "clip" and clipped.lower == 0


def test_an_unknown_kind_is_refused_as_before():
    with pytest.raises(InputError, match=r"^schema: attribute 'x': kind must be categorical, numeric, binary or "
                                         r"date, got 'number'$"):
        Attribute("x", "number", lower=0, upper=1)
    with pytest.raises(InputError, match="kind must be"):
        Attribute("x", ["numeric"])  # an unhashable kind is refused, not a TypeError
    with pytest.raises(InputError, match="a NumericAttribute cannot be of kind 'date'"):
        NumericAttribute("x", "date", lower="2020-01-01", upper="2020-02-01")


def test_decoding_reads_each_kind():
    rng = np.random.default_rng(0)
    assert decode(KINDS[0][0], np.array([2, 0]), rng).tolist() == ["c", "a"]
    assert decode(KINDS[3][0], np.array([0, 3]), rng, bin_labels=True).tolist() == ["[2020-01, 2020-04)",
                                                                                    "[2020-10, 2020-12)"]
    values = decode(KINDS[2][0], np.array([0] * 50 + [5]), rng)
    assert values.iloc[-1] == 99 and values.iloc[:50].between(0, 1).all()
