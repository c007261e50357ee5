"""Table files: compression by suffix, separator from the header line alone, --sep and
--encoding, columns left out with one note (silenced by drop:)."""

import bz2
import gzip
import lzma
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

from privbayes.cli import main
from privbayes.core.errors import InputError
from privbayes.counting import leaf_codes
from privbayes.counting.reading import ColumnsLeftOut, TableFile, detect_separator
from privbayes.schema import Attribute, Schema

SCHEMA = Schema((Attribute("a", "categorical", categories=("x", "y")), Attribute("b", "numeric", lower=0, upper=10)))
TEXT = "a;b\nx;1\ny;2,5\nx;3\n"  # a data row holds a comma: detection must not look at data rows


def test_the_separator_comes_from_the_header_line_only(tmp_path):
    assert detect_separator("a;b;c") == ";" and detect_separator("a\tb") == "\t" and detect_separator("a") == ","
    assert detect_separator('"x,y";z') == ";"  # separators inside quotes do not count
    path = tmp_path / "t.csv"
    path.write_text(TEXT.replace("2,5", "2.5"))
    assert leaf_codes(path, SCHEMA)[:, 0].tolist() == [0, 1, 0]


@pytest.mark.parametrize("suffix,opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)])
def test_compressed_files_are_read_by_suffix(tmp_path, suffix, opener):
    path = tmp_path / f"t.csv{suffix}"
    with opener(path, "wt") as handle:
        handle.write(TEXT.replace("2,5", "2.5"))
    assert leaf_codes(path, SCHEMA).tolist() == [[0, 1], [1, 4], [0, 4]]  # 16 bins of width 0.625


def test_zip_and_latin1_with_an_explicit_encoding(tmp_path):
    schema = Schema((Attribute("a", "categorical", categories=("é", "y")),
                     Attribute("b", "numeric", lower=0, upper=10)))
    with zipfile.ZipFile(tmp_path / "t.csv.zip", "w") as archive:
        archive.writestr("t.csv", "a|b\né|1\ny|2\n".encode("latin-1"))
    with pytest.raises(InputError, match="--encoding"):
        leaf_codes(tmp_path / "t.csv.zip", schema)
    assert leaf_codes(TableFile(tmp_path / "t.csv.zip", encoding="latin-1"), schema)[:, 0].tolist() == [0, 1]


def test_sep_overrides_detection(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b;x\nx,1;0\n")  # header has one ';' and one ',': detection picks ','; the user says ';'
    schema = Schema((Attribute("a,b", "categorical", categories=("x,1",)), Attribute("x", "binary")))
    assert leaf_codes(TableFile(path, sep=";"), schema).tolist() == [[0, 0]]


def test_columns_absent_from_the_schema_are_left_out_and_named_once(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"id": [101, 102], "a": ["x", "y"], "secret": ["s1", "s2"], "b": [1, 2]}).to_csv(path, index=False)
    with pytest.warns(ColumnsLeftOut) as record:
        codes = leaf_codes(path, SCHEMA)
    assert codes.tolist() == [[0, 1], [1, 3]] and len(record) == 1
    message = str(record[0].message)
    assert "'id'" in message and "'secret'" in message and "s1" not in message and "101" not in message
    dropped = Schema(SCHEMA.attributes, dropped=("id", "secret"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        leaf_codes(path, dropped)  # listed under drop: no note
    assert Schema.from_dict(dropped.to_dict()) == dropped


def test_cli_fit_with_sep_and_encoding_and_a_note(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": np.arange(300), "a": rng.choice(["é", "y"], 300), "b": rng.integers(0, 10, 300)})
    frame.to_csv(tmp_path / "d.csv", sep="\t", index=False, encoding="latin-1")
    (tmp_path / "s.yaml").write_text("attributes:\n- {name: a, kind: categorical, categories: [é, y]}\n"
                                     "- {name: b, kind: numeric, lower: 0, upper: 10, integer: true}\n",
                                     encoding="utf-8")
    assert main(["fit", str(tmp_path / "d.csv"), "--schema", str(tmp_path / "s.yaml"), "--epsilon", "1",
                 "--sep", "\\t", "--file-encoding", "latin-1", "-o", str(tmp_path / "m.json")]) == 0
    err = capsys.readouterr().err
    assert err.count("privbayes: note:") == 1 and "'id'" in err
