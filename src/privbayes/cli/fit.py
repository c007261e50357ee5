"""``privbayes fit``: release a private model of a table with any registered method.

The method (``--method``, default the registry's ``DEFAULT_METHOD``, adaptive) comes from
:mod:`privbayes.synthesizers.registry`; its
estimator's parameters from the shared flags (:mod:`privbayes.cli.arguments`).  Under add/remove
neighbours n is private: nothing here uses it — ``--dry-run`` opens no data, and the plan and the
cost checks happen inside the fit, at the noisy count.  Under replace-one ``--dry-run`` reads and validates
every row to count n (public there), so it refuses what the fit would refuse (docs/decisions.md, "What
--dry-run reads").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from privbayes.cli import arguments
from privbayes.core.errors import InputError
from privbayes.synthesizers.registry import DEFAULT_METHOD


def add_parser(commands: Any, method: str | None = None) -> None:
    """The ``fit`` verb; ``method`` (``--method`` read before parsing) narrows ``--help`` to that method's flags."""
    fit = commands.add_parser("fit", help="release a private model of a table (CSV, compressed CSV, Parquet, .dat)",
                              description="Release a private model of a table.  The options common to every method "
                                          "come first, then one group per method; 'privbayes fit --method M --help' "
                                          "lists only the options of method M.")
    fit.add_argument("data", help="input table: .csv with a header (also .csv.gz/.bz2/.xz/.zip), .parquet, or .dat")
    fit.add_argument("--method",
                     help="adaptive (default: adaptive marginals, pure ε, the most accurate), privbayes (TODS 2017; "
                          "--estimation paper for the paper's algorithm), sa-privbayes (Future Internet 2026), mrf "
                          "(ICML 2017: needs --cliques) or nbc (safe naive Bayes views: NOT differential privacy); "
                          "with --help, only that method's options are listed")
    fit.add_argument("--schema", help="the public description of the columns (.yaml/.json, or the authors' .domain)")
    fit.add_argument("--infer-schema", action="store_true",
                     help="read the columns' description from the data itself (NOT covered by the privacy budget; "
                          "recorded in the privacy report)")
    fit.add_argument("--dry-run", action="store_true",
                     help="print the budget plan (every paid release and its ε) and the cost estimate, and stop: "
                          "under replace-one it reads and validates every row to count n (public there; a value "
                          "the schema refuses stops it as it would stop the fit); under add/remove it reads no "
                          "data (n is private; see --assume-n)")
    fit.add_argument("--assume-n", type=arguments.positive_int, metavar="N",
                     help="with --dry-run under add/remove neighbours: show the plan at this table size (public)")
    fit.add_argument("--backend", choices=["numpy", "duckdb", "spark", "auto"], default="numpy",
                     help="where to count: in memory (numpy), DuckDB (out of core, privbayes[duckdb]) or Spark "
                          "(privbayes[spark]); auto = DuckDB for files larger than 1/16 of memory")
    arguments.add_show_invalid(fit)
    fit.add_argument("-o", "--output", help="model file to write (JSON); required unless --dry-run")
    arguments.add_table_options(fit)
    arguments.add_method_parameters(fit, method)
    fit.set_defaults(run=run)


def run(args: argparse.Namespace) -> None:
    """The fit template of the release contract (:meth:`PrivateEstimator.open` then
    :meth:`~PrivateEstimator.fit_opened`), with the dry run, the warnings on stderr and the checked write around it."""
    from privbayes.synthesizers.contract import INFERRED_WARNING
    from privbayes.synthesizers.registry import method

    chosen = method(args.method or DEFAULT_METHOD)
    named = chosen.name if args.method else f"{chosen.name} (the default; --method privbayes for PrivBayes)"
    estimator_class = chosen.estimator_class()
    estimator = estimator_class(**arguments.estimator_arguments(args, estimator_class, named))
    settings = arguments.checked(estimator)  # every parameter checked before any input is read
    if args.schema is None and not args.infer_schema:
        raise InputError("fit needs --schema (the public domain), or --infer-schema to read it from the data "
                         "(not covered by epsilon)")
    if args.output is None and not args.dry_run:
        raise InputError("fit needs -o/--output (the model file to write), or --dry-run")
    arguments.writable(args.output, "model file", (".json",))
    n_public = estimator.n_public(settings)
    if args.dry_run and not n_public:
        _dry_run_private_n(args, estimator)
        return
    opened = estimator.open(arguments.table(args, args.data), args.schema, backend=args.backend,
                            infer_schema_from_data=args.infer_schema)
    if opened.inferred:
        print(f"privbayes: warning: {INFERRED_WARNING}", file=sys.stderr)
    if args.dry_run:  # n public here
        print(f"budget plan for {args.data} ({chosen.name}, n = {opened.table.n}, public; every row read and "
              "validated to count it); nothing has been measured:")
        _print_plan(estimator, estimator.plan(opened.table.n, opened.table.schema), opened.table.schema,
                    table=opened.table)
        return
    # n private: nothing here may use it; the fit plans and guards at its noisy count, and says nothing of the cost
    _interruptible(lambda: estimator.fit_opened(opened, on_cost=_warn_if_slow if n_public else None))
    write_checked(estimator.released_, args.output)
    report = estimator.privacy_report()
    spent = ("" if report["epsilon"] is None
             else f", ε spent {report['epsilon_spent']:g} of {report['epsilon']:g}")
    if report.get("privacy_definition") == "zCDP":
        spent = (f", ρ spent {report['rho_spent']:g} of {report['rho']:g} (zCDP; (ε, δ) = "
                 f"({report['epsilon']:g}, {report['delta']:g}))")
    print(f"wrote {args.output}: {chosen.name}, {summary(estimator.released_)}{spent}")


def _warn_if_slow(cost: Any) -> None:
    """The fit's cost estimate, when it will take minutes or more (said once, before any table is counted)."""
    if cost.time_class != "seconds":
        print(f"privbayes: warning: {cost.describe()}; a smaller --epsilon goes faster (--dry-run shows "
              "the estimate without fitting)", file=sys.stderr)


def summary(released: Any) -> str:
    """The released value's one line, in the plan's words: a Bayesian network's degree is its *network*
    degree; adaptive marginals also say which marginals their rounds chose among (the plan's "marginal degree"),
    which differs from the degree of the network they are sampled through."""
    degree = getattr(released, "degree", None)
    if getattr(released, "network", None) is None or degree is None:
        return str(released.summary())
    line = f"{len(released.schema)} attributes, network degree {degree}"
    marginal = released.plan.setting("marginal degree")
    if marginal is not None:
        line += f" (rounds chose among {marginal}-way marginals: marginal degree = {marginal})"
    return line


def write_checked(released: Any, path: str) -> None:
    """Write ``released``'s model file only if loading will accept it (docs/decisions.md, "Model files that load"): its
    size against the file cap and its values against the document caps, then the full verification a load runs (the
    plan recomputed, the ledger checked, the arrays' sizes capped and decoded), all on the text in
    memory; a refusal is one line naming the limit and its environment variable, and no file is written."""
    import json

    from privbayes.core.limits import limits
    from privbayes.files.documents import parse_json
    from privbayes.files.tables import atomic_write_text
    from privbayes.synthesizers.registry import load_document

    to_text = getattr(released, "to_text", None)  # without one (NBC views), the compact JSON is checked
    text = to_text() if to_text is not None else json.dumps(released.to_document())
    size, cap = len(text.encode("utf-8")), limits().max_file_bytes
    if size > cap:
        raise InputError(f"{path}: not written: the model file would have {size / 2**20:.1f} MB, more than the "
                         f"limit of {cap / 2**20:.0f} MB that loading accepts (PRIVBAYES_MAX_FILE_MB)")
    try:
        document = parse_json(text, path, "model")
        load_document(document, path)
    except InputError as exc:
        raise InputError(f"not written, loading would refuse it: {exc}") from None
    if to_text is None:
        released.save(path)
    else:
        atomic_write_text(path, text)


def _print_plan(estimator: Any, plan: Any, schema: Any, n: int | None = None, table: Any = None) -> None:
    """The plan's lines and the cost estimate the fit's guard checks (counted where ``table`` is)."""
    from privbayes.counting.base import counting_place

    for line in plan.describe():
        print(f"  {line}")
    cost = estimator.cost_estimate(plan, schema, n, counting=None if table is None else counting_place(table))
    if cost is not None:
        print(f"  {cost.describe()}")


def _dry_run_private_n(args: argparse.Namespace, estimator: Any) -> None:
    """``--dry-run`` when n is private (add/remove): the data is not opened; the plan is shown at
    ``--assume-n`` (a public guess), since the fit derives it from its noisy count."""
    from privbayes.schema.files import as_schema

    if args.schema is None:
        raise InputError("--dry-run under add/remove neighbours needs --schema (it reads no data)")
    schema = as_schema(args.schema)
    print(f"budget plan for {args.data} under add/remove neighbours: n is private and nothing has been read; "
          + estimator.private_n_note())
    if args.assume_n is None:
        print("  give --assume-n N (a size you expect; public) to see the plan and cost at that size")
        return
    print(f"  at an assumed n = {args.assume_n} (the fit uses what it measures instead):")
    _print_plan(estimator, estimator.plan(args.assume_n, schema), schema, args.assume_n)


def _interruptible(work: Callable[[], object]) -> None:
    """Run ``work`` in a worker thread and wait in short slices, so that Ctrl-C is handled within
    a fraction of a second even while compiled loops hold the worker (they release no signal
    to Python).  The worker is a daemon: on Ctrl-C it is abandoned and the process exits."""
    import threading

    failure: list[BaseException] = []

    def target() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the main thread
            failure.append(exc)
    worker = threading.Thread(target=target, name="privbayes-fit", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    if failure:
        raise failure[0]
