"""``privbayes nbc publish`` and ``privbayes nbc check`` (Mozafari & Zaniolo, VLDB 2009).

Parsing and printing only; the work is in :mod:`privbayes.nbc`.  Not differential privacy: a
privacy-breach bound, said in every message.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from privbayes.cli import arguments
from privbayes.errors import InputError


def _fraction(text: str) -> Fraction:
    from privbayes.nbc.viewsfile import parse_fraction

    try:
        return parse_fraction(text, "number")
    except InputError as exc:
        raise argparse.ArgumentTypeError(f"expected a positive number such as 1.1 or 11/10, got {text!r}") from exc


def add_parser(subparsers: Any) -> None:
    """Add ``nbc publish`` and ``nbc check`` to the ``privbayes`` command line."""
    nbc = subparsers.add_parser("nbc", help="publish naive Bayes classifier views safely (privacy breach, NOT DP)")
    commands = nbc.add_subparsers(dest="nbc_command", required=True)
    publish = commands.add_parser("publish", help="SafetyTransform / EST: NBC-equivalent views with a breach bound")
    publish.add_argument("data", help="input table (.csv, .parquet or .dat)")
    publish.add_argument("--schema", required=True, help="public schema (.yaml/.json or .domain)")
    publish.add_argument("--class", dest="class_name", required=True, help="the class (sensitive) column")
    how = publish.add_mutually_exclusive_group(required=True)
    how.add_argument("--gamma", type=_fraction, help="amplification ratio γ > 1 (Corollary 4)")
    how.add_argument("--breach", type=_fraction, nargs=2, metavar=("L1", "L2"),
                     help="block every L1-to-L2 privacy breach (γ from Lemma 2's condition (7))")
    how.add_argument("--prior", help="EST: the attacker's prior F as a JSON/YAML mapping label -> probability")
    publish.add_argument("--r", type=_fraction, help="EST: r-closeness w.r.t. --prior (r > 1)")
    publish.add_argument("--condition", choices=["posterior", "corollary4"], default="posterior",
                         help="count ratios ρ ≤ γ^(1/(2n-1)) (default: bounds the posterior for large counts) or "
                              "ρ ≤ γ^(1/n) (Corollary 4 as printed)")
    publish.add_argument("-o", "--output", required=True, help="views file to write (JSON)")
    publish.add_argument("--synthesize", metavar="OUT", help="also write a synthetic table with exactly these views")
    publish.add_argument("--seed", type=arguments.seed, help="seed for arranging the synthetic table's rows")
    check = commands.add_parser("check", help="verify a views file against the data: equivalence and safety")
    check.add_argument("views", help="views file (JSON)")
    check.add_argument("data", help="the original table")
    check.add_argument("--schema", required=True, help="public schema")
    nbc.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    """Run ``privbayes nbc <command>``."""
    if args.nbc_command == "publish":
        _publish(args)
    else:
        _check(args)


def _read_prior(path: str, labels: tuple[str, ...]) -> list[Fraction]:
    from privbayes.io import read_structured
    from privbayes.nbc.viewsfile import parse_fraction

    raw = read_structured(path, "prior")
    if not isinstance(raw, dict) or sorted(str(k) for k in raw) != sorted(labels):
        raise InputError(f"{path}: the prior must map every class label of the schema, and only those, to a probability")
    values = {str(k): v for k, v in raw.items()}
    return [parse_fraction(str(values[label]), f"{path}: label {label!r}") for label in labels]


def _original(data: str, schema_path: str, class_name: str):
    from privbayes.counting import open as open_table
    from privbayes.io import load_schema
    from privbayes.nbc.views import views_from_table

    schema = load_schema(schema_path)
    return schema, views_from_table(open_table(data, schema), class_name)


def _publish(args: argparse.Namespace) -> None:
    """Check every input first, compute the views (and the synthetic table), then write the
    outputs together: a failure anywhere leaves no file behind."""
    from privbayes.io import atomic_write_many, table_writer
    from privbayes.nbc.breach import gamma_from_breach
    from privbayes.nbc.est import est
    from privbayes.nbc.safety import safety_transform
    from privbayes.nbc.viewsfile import views_text

    if (args.prior is None) != (args.r is None):
        raise InputError("--prior and --r go together (EST)")
    if args.synthesize:
        table_writer(None, args.synthesize)  # its format, from the name, before the work
    schema, views = _original(args.data, args.schema, args.class_name)
    if args.prior is not None:
        safe = est(views, _read_prior(args.prior, views.labels), args.r, args.condition)
        bound = f"r-closeness r = {float(args.r):g} w.r.t. the prior (achieved {float(safe.achieved):.6g})"
    else:
        gamma = args.gamma if args.gamma is not None else gamma_from_breach(*args.breach, views.classes)
        safe = safety_transform(views, gamma, args.condition)
        bound = f"amplification γ = {float(gamma):.6g} (achieved {float(safe.achieved):.6g})"
    text = views_text(safe)
    outputs = [(args.output, lambda tmp: tmp.write_text(text, encoding="utf-8"))]
    if args.synthesize:
        import numpy as np

        from privbayes.nbc.synthesis import synthetic_table

        frame = synthetic_table(safe.views, schema, np.random.default_rng(args.seed))
        outputs.append((args.synthesize, table_writer(frame, args.synthesize)))
    atomic_write_many(outputs)
    print(f"wrote {args.output}: {safe.method}, {bound}; privacy breach guarantee, NOT differential privacy")
    if args.synthesize:
        print(f"wrote {args.synthesize}: a synthetic table whose NBC views are exactly the published counts")


def _check(args: argparse.Namespace) -> None:
    from privbayes.nbc.breach import amplification
    from privbayes.nbc.equivalence import check_equivalence
    from privbayes.nbc.viewsfile import load_views

    published, safety = load_views(args.views)
    _, original = _original(args.data, args.schema, published.class_name)
    if (original.labels, [(a.name, a.values) for a in original.attributes]) != \
            (published.labels, [(a.name, a.values) for a in published.attributes]):
        raise InputError(f"{args.views}: its labels or attribute values differ from the schema's")
    verdict = check_equivalence(original, published)
    if not verdict.equivalent:
        tup, c, d = verdict.counterexample
        raise InputError(f"check failed: {args.views} is not NBC-equivalent to the data's classifier "
                         f"(domain tuple {tup}, labels {published.labels[c]!r}/{published.labels[d]!r})")
    if not published.is_realistic():
        raise InputError(f"check failed: {args.views} is not realistic (Σ_t N^i_tc differs from P_c)")
    prior = safety.get("prior")
    bound = safety.get("r_exact") if prior is not None else safety.get("gamma_exact")
    condition = safety["condition"]
    achieved = amplification(published, prior, condition)
    what = f"{'Statement 11 via ' if prior is not None else ''}the {condition} condition"
    if bound is None or achieved is None or achieved > bound:
        raise InputError(f"check failed: {args.views} does not satisfy {what} for its stated bound")
    name = "r" if prior is not None else "γ"
    print(f"OK: NBC-equivalent on all {verdict.tuples} domain tuples and class pairs; {what} holds with "
          f"{name} = {float(bound):.6g} (achieved {float(achieved):.6g}); privacy breach guarantee, NOT differential privacy")
