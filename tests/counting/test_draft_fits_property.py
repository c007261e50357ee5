"""Property: ``fit`` never refuses the draft ``schema infer`` wrote from the same data — from a
DataFrame, and from CSV and Parquet files written from it — over hostile frames: floats with many
digits, irrational point masses (ln 0.1, −π, 1/3), huge and tiny magnitudes, negative zero,
float32, dates, time stamps, bools, nullable ints (beyond 2^53 too), text and missing values
(docs/decisions.md, "Schema drafts: exact spelling, outward rounding, point masses")."""

import math
import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privbayes import PrivBayes
from privbayes.core.errors import InferredDomainWarning
from privbayes.counting.draft import draft_schema

MASSES = [math.log(0.1), -math.pi, 1 / 3, -0.0, 0.5, 5e-324, 1e-300, 1e300, -1.2345678901234567e-7]
FLOATS = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300, width=64)


@st.composite
def _column(draw: st.DrawFn, n: int) -> pd.Series:
    kind = draw(st.sampled_from(["float", "mass", "float32", "date", "stamp", "bool", "int", "text"]))
    nulls = draw(st.booleans())
    missing = [draw(st.booleans()) and nulls for _ in range(n)]
    if kind in ("float", "mass"):
        mass = draw(st.sampled_from(MASSES))
        scale = draw(st.sampled_from([1.0, 1e-9, 1e12, 1e-310]))
        values = [mass if kind == "mass" and draw(st.integers(0, 3)) == 0 else draw(FLOATS) * scale for _ in range(n)]
        values = [v if math.isfinite(v) else mass for v in values]  # 1e300 * 1e12 overflows
        return pd.Series([None if m else v for v, m in zip(values, missing)], dtype="float64")
    if kind == "float32":  # 0.1 as float32 is 0.10000000149011612 as fit reads it
        values = [draw(st.sampled_from([0.1, 1 / 3, -2.5, 1e-30, 3e38])) for _ in range(n)]
        return pd.Series([None if m else v for v, m in zip(values, missing)], dtype="float32")
    if kind in ("date", "stamp"):
        days = [draw(st.integers(-20_000, 40_000)) for _ in range(n)]
        stamps = pd.Series(pd.to_datetime(np.array(days, dtype="datetime64[D]")))
        if kind == "stamp":
            stamps = stamps + pd.to_timedelta([draw(st.integers(0, 86_399)) for _ in range(n)], unit="s")
        return stamps.where(~pd.Series(missing), pd.NaT)
    if kind == "bool":
        values = [draw(st.booleans()) for _ in range(n)]
        return pd.Series([None if m else v for v, m in zip(values, missing)], dtype="boolean" if nulls else "bool")
    if kind == "int":
        values = [draw(st.integers(-(2**62), 2**62) | st.integers(-5, 5)) for _ in range(n)]  # beyond 2^53 too
        return pd.Series([None if m else v for v, m in zip(values, missing)], dtype="Int64" if nulls else "int64")
    words = draw(st.lists(st.text("abc xyz,;\"'é", min_size=1, max_size=6), min_size=1, max_size=80, unique=True))
    return pd.Series([None if m else draw(st.sampled_from(words)) for m in missing], dtype="object")


@st.composite
def frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(20, 60))
    columns = {f"c{i}": draw(_column(n)) for i in range(draw(st.integers(1, 4)))}
    columns["g"] = pd.Series([i % 2 == 0 for i in range(n)])  # two columns that are always kept
    columns["k"] = pd.Series([i % 3 for i in range(n)])
    return pd.DataFrame(columns)


def _fits(data: object) -> pd.DataFrame:
    schema = draft_schema(data).schema()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferredDomainWarning)
        model = PrivBayes(1.0, random_state=0).fit(data, schema)
    return model.sample(30, random_state=0)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_fit_accepts_the_draft_of_the_same_data_from_a_frame_csv_and_parquet(tmp_path_factory, frame):
    folder = tmp_path_factory.mktemp("frame")
    frame.to_csv(folder / "t.csv", index=False)
    frame.to_parquet(folder / "t.parquet", index=False)
    for data in (frame, folder / "t.csv", folder / "t.parquet"):
        assert len(_fits(data)) == 30
