"""``schema infer --metadata``: SDV metadata's column types and keys replace the draft's guesses
(both SDV shapes), the domain still comes from the data; bad metadata gets one-line refusals
(docs/decisions.md, "Schema drafts: exact spelling, outward rounding, point masses")."""

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from privbayes import infer_schema
from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.core.limits import configure, limits
from privbayes.counting.draft import draft_schema

COLUMNS = {"user": {"sdtype": "id"}, "code": {"sdtype": "numerical"}, "stars": {"sdtype": "categorical"},
           "score": {"sdtype": "numerical"}, "joined": {"sdtype": "datetime", "datetime_format": "%Y-%m-%d"},
           "mail": {"sdtype": "email", "pii": True}, "vip": {"sdtype": "boolean"}, "note": {"sdtype": "unknown"}}


def _frame(n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "user": [f"u{i:04d}" for i in range(n)], "code": rng.integers(1, 4, n), "stars": rng.integers(1, 6, n),
        "score": rng.normal(50, 10, n).round(2),
        "joined": [str(np.datetime64("2020-01-01") + int(d)) for d in rng.integers(0, 700, n)],
        "mail": [f"p{i}@example.org" for i in range(n)], "vip": rng.choice(["yes", "no"], n),
        "note": rng.choice(["a", "b"], n)})


@pytest.mark.parametrize("shape", ["single", "multi"])
def test_metadata_types_and_keys_replace_the_guesses_from_the_command_line(tmp_path, shape):
    table = {"columns": COLUMNS, "primary_key": "user"}
    document = table if shape == "single" else {"tables": {"t": table}, "METADATA_SPEC_VERSION": "V1"}
    (tmp_path / "meta.json").write_text(json.dumps(document))
    _frame().to_csv(tmp_path / "t.csv", index=False)
    assert main(["schema", "infer", str(tmp_path / "t.csv"), "--metadata", str(tmp_path / "meta.json"),
                 "-o", str(tmp_path / "s.yaml")]) == 0
    doc = yaml.safe_load((tmp_path / "s.yaml").read_text())
    kinds = {a["name"]: a["kind"] for a in doc["attributes"]}
    assert kinds == {"code": "numeric", "stars": "categorical", "score": "numeric", "joined": "date",
                     "vip": "binary"}  # code has 3 values: numeric because the metadata says so
    assert doc["drop"] == [{"name": "user", "identifier": "text"}, "mail", "note"]
    assert main(["fit", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.yaml"), "--method", "privbayes",
                 "--epsilon", "1", "--seed", "1", "-o", str(tmp_path / "m.json")]) == 0


def test_metadata_as_a_mapping_from_python():
    schema = infer_schema(_frame(), metadata={"columns": {"code": {"sdtype": "numerical"}}})
    assert schema.attributes[schema.index("code")].kind == "numeric"
    assert draft_schema(_frame()).schema().attributes[1].kind == "categorical"  # the guess without metadata


@pytest.mark.parametrize(("document", "problem"), [
    ({"columns": {"code": {"sdtype": "colour"}}}, "column 'code' has an unknown sdtype 'colour'"),
    ({"columns": {"nope": {"sdtype": "numerical"}}}, "column 'nope' is not a column of the data"),
    ({"columns": {"code": "numerical"}}, "column 'code' needs an object with a text 'sdtype'"),
    ({"tables": {"a": {"columns": {}}, "b": {"columns": {}}}}, "exactly one table, found 2"),
    ({"columns": {"code": {"sdtype": "numerical"}}, "primary_key": "id"}, "key column 'id' is not among"),
    ([1, 2], "must be a JSON object"),
])
def test_bad_metadata_is_refused_in_one_line(tmp_path, document, problem):
    (tmp_path / "meta.json").write_text(json.dumps(document))
    with pytest.raises(InputError, match=problem) as refused:
        draft_schema(_frame(), metadata=tmp_path / "meta.json")
    assert "\n" not in str(refused.value) and str(refused.value).startswith(f"{tmp_path / 'meta.json'}: ")


def test_an_oversized_metadata_file_is_refused_before_it_is_walked(tmp_path):
    saved = limits()
    configure(max_document_nodes=50)
    try:
        document = {"columns": {f"c{i}": {"sdtype": "numerical"} for i in range(100)}}
        (tmp_path / "meta.json").write_text(json.dumps(document))
        with pytest.raises(InputError, match="meta.json: .*more than 50 values"):
            draft_schema(_frame(), metadata=tmp_path / "meta.json")
    finally:
        configure(**{field: getattr(saved, field) for field in saved.__dataclass_fields__})
