"""``privbayes inspect``: what a model file of any method released, and what it paid."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(commands: Any) -> None:
    inspect = commands.add_parser("inspect", help="print a model's structure, privacy report, plan and ledger")
    inspect.add_argument("model", help="a model file written by privbayes fit")
    inspect.add_argument("--json", action="store_true", help="print the privacy report as JSON")
    inspect.add_argument("--audit", metavar="FILE", help="cite a self-audit saved by 'privbayes audit --json' "
                         "(an audit of the implementation, not of this release)")
    inspect.set_defaults(run=run)


STRUCTURE = {"privbayes": "network (child <- parents; @i = generalised to taxonomy level i):",
             "adaptive": "network sampled from (child <- parents; the model fitted to the measured marginals):",
             "sa-privbayes": "network (child <- parents):", "mrf": "cliques:", "nbc": "published views:"}


def run(args: argparse.Namespace) -> None:
    from privbayes.synthesizers.registry import load

    cited = None
    if args.audit is not None:
        from privbayes.audit.result import cite_audit

        cited = cite_audit(args.audit)[0]
    released = load(args.model)
    report = released.privacy_report()
    if args.json:
        print(json.dumps(report.to_dict() | ({"audit": cited} if cited is not None else {}), indent=2))
        return
    print(f"model: {args.model} ({report['method']}; library {report['library_version']})")
    details = [f"{key} {report[key]}" for key in ("encoding", "score", "estimation") if report.get(key) is not None]
    n = "" if report["n"] is None else f"n = {report['n']:g}" + ("" if report["n_public"] else " (a noisy count)")
    print(f"  {report['algorithm']}" + "".join(f"; {d}" for d in details + ([n] if n else [])))
    print(STRUCTURE.get(released.method, "structure:"))
    for line in released.describe():
        print(f"  {line}")
    if getattr(released, "learned_network", None) is not None:
        print(f"  (estimated consistently: sampled through its junction tree's network, "
              f"degree {released.network.degree}, whose families contain these)")
    marginal = released.plan.setting("marginal degree")
    if marginal is not None and getattr(released, "network", None) is not None:
        print(f"  (network degree {released.network.degree}; the rounds chose among {marginal}-way marginals: "
              f"marginal degree = {marginal} in the plan below)")
    spent = f"ε = {report['epsilon']:g}, spent {report['epsilon_spent']:g}" if report["epsilon"] is not None else ""
    print(f"privacy: {report['guarantee']}" + (f"; {spent}" if spent else ""))
    if report["neighbouring_relation"]:
        print(f"  neighbouring datasets: {report['neighbouring_relation']}")
    print(f"  domain: {report['domain_source']}")
    if cited is not None:
        print(f"  {cited}")
    for caveat in report["caveats"]:
        print(f"  caveat: {caveat}")
    print("budget plan:")
    for line in released.plan.describe():
        print(f"  {line}")
    print("ledger:")
    for entry in report["ledger"]:
        print(f"  {entry['step']:<24} {entry['mechanism']:<17} ε = {entry['epsilon']:.6g}  "
              f"Δ = {entry['sensitivity']:.4g}  ({entry['measured']})")
