"""``privbayes nbc publish`` and ``privbayes nbc check`` (Mozafari & Zaniolo, VLDB 2009).

Parsing and printing only; the work is in :mod:`privbayes.methods.nbc`.  Not differential privacy: a
privacy-breach bound, said in every message.
"""

from __future__ import annotations

import argparse
from typing import Any

from privbayes.cli import arguments
from privbayes.core.errors import InputError

NBC_PARAMETERS = ("class_name", "gamma", "breach", "prior", "r", "condition")


def add_parser(subparsers: Any) -> None:
    """Add ``nbc publish`` and ``nbc check`` to the ``privbayes`` command line."""
    nbc = subparsers.add_parser("nbc", help="publish naive Bayes classifier views safely (privacy breach, NOT DP)")
    commands = nbc.add_subparsers(dest="nbc_command", required=True)
    publish = commands.add_parser("publish", help="SafetyTransform / EST: NBC-equivalent views with a breach bound "
                                  "(the same as privbayes fit --method nbc, with --synthesize)")
    publish.add_argument("data", help="input table (.csv, .parquet or .dat)")
    publish.add_argument("--schema", required=True, help="public schema (.yaml/.json or .domain)")
    arguments.add_parameters(publish, NBC_PARAMETERS)
    publish.add_argument("--backend", choices=["numpy", "duckdb", "spark", "auto"], default="numpy",
                         help="where to count (as for privbayes fit)")
    publish.add_argument("-o", "--output", required=True, help="views file to write (JSON)")
    publish.add_argument("--synthesize", metavar="OUT", help="also write a synthetic table with exactly these views")
    publish.add_argument("--seed", type=arguments.seed, help="seed for arranging the synthetic table's rows")
    arguments.add_table_options(publish)
    check = commands.add_parser("check", help="verify a views file against the data: equivalence and safety")
    check.add_argument("views", help="views file (JSON)")
    check.add_argument("data", help="the original table")
    check.add_argument("--schema", required=True, help="public schema")
    arguments.add_table_options(check)
    nbc.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    """Run ``privbayes nbc <command>``."""
    if args.nbc_command == "publish":
        _publish(args)
    else:
        _check(args)


def _publish(args: argparse.Namespace) -> None:
    """Check every input first, compute the views (and the synthetic table), then write the
    outputs together: a failure anywhere leaves no file behind."""
    import json

    from privbayes.files.tables import atomic_write_many, table_writer
    from privbayes.methods.nbc.estimator import SafeNBC
    from privbayes.methods.nbc.release import NBCRelease

    estimator = SafeNBC(**arguments.estimator_arguments(args, SafeNBC, "nbc"))
    arguments.checked(estimator)
    arguments.writable(args.output, "views file", (".json",))
    if args.synthesize:
        table_writer(None, args.synthesize)  # its format, from the name, before the work
    release = estimator.fit(arguments.table(args, args.data), args.schema, backend=args.backend).released_
    if not isinstance(release, NBCRelease):  # pragma: no cover - SafeNBC releases views
        raise TypeError(f"SafeNBC released a {type(release).__name__}")
    text = json.dumps(release.to_document(), indent=1) + "\n"
    outputs = [(args.output, lambda tmp: tmp.write_text(text, encoding="utf-8"))]
    if args.synthesize:
        outputs.append((args.synthesize, table_writer(release.sample(random_state=args.seed), args.synthesize)))
    atomic_write_many(outputs)
    safe = release.safe
    bound = (f"r-closeness r = {float(safe.r):g} w.r.t. the prior" if safe.r is not None
             else f"amplification γ = {float(safe.gamma):.6g}")  # type: ignore[arg-type]  # r or γ is set
    print(f"wrote {args.output}: {safe.method}, {bound} (achieved {float(safe.achieved):.6g}); privacy breach "
          "guarantee, NOT differential privacy")
    if args.synthesize:
        print(f"wrote {args.synthesize}: a synthetic table whose NBC views are exactly the published counts")


def _original(args: argparse.Namespace, class_name: str) -> Any:
    from privbayes.counting import open as open_table
    from privbayes.methods.nbc.views import views_from_table

    return views_from_table(open_table(arguments.table(args, args.data), args.schema), class_name)


def _check(args: argparse.Namespace) -> None:
    from privbayes.methods.nbc.breach import amplification
    from privbayes.methods.nbc.equivalence import check_equivalence
    from privbayes.methods.nbc.viewsfile import load_views

    published, safety = load_views(args.views)
    original = _original(args, published.class_name)
    if (original.labels, [(a.name, a.values) for a in original.attributes]) != \
            (published.labels, [(a.name, a.values) for a in published.attributes]):
        raise InputError(f"{args.views}: its labels or attribute values differ from the schema's")
    verdict = check_equivalence(original, published)
    if verdict.counterexample is not None:  # found exactly when not equivalent
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
          f"{name} = {float(bound):.6g} (achieved {float(achieved):.6g}); "
          "privacy breach guarantee, NOT differential privacy")
