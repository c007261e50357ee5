"""A released Bayesian-network model as a value: what a synthesizer publishes.

Everything in it is public: the schema (the public domain), the encoding, the
network, the noisy conditionals, the budget plan and the ledger that paid for them,
the parameters and the facts of the run (n, seeded, where the domain came from).
Sampling and inspection take this value and nothing else — they never see the data
— and :mod:`privbayes.model_file` round-trips it.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd

from privbayes.bayesnet.network import Network
from privbayes.bayesnet.sampling import BLOCK_ROWS, ancestral_sample, sample_to
from privbayes.encoding import Encoding
from privbayes.privacy.accountant import LedgerEntry
from privbayes.privacy.neighbours import neighbours
from privbayes.privacy.plan import BudgetPlan
from privbayes.schema import QUOTED_NEWLINES_CAVEAT, Schema
from privbayes.validation import check_count, check_seed


@dataclass(frozen=True, eq=False)
class BayesNetModel:
    """A fitted network with its conditionals Pr*[X_i | Π_i], and the record of its release."""

    schema: Schema
    encoding: Encoding
    network: Network
    conditionals: tuple[np.ndarray, ...]
    plan: BudgetPlan
    ledger: tuple[LedgerEntry, ...]
    parameters: Mapping[str, Any]
    n: int
    """The number of input tuples (under add/remove neighbours: the released noisy count)."""
    degree: int
    algorithm: str
    seeded: bool
    domain_source: str
    differentially_private: bool
    caveats: tuple[str, ...]
    mechanism: str = "PrivBayes (Zhang et al., ACM TODS 2017)"
    library_version: str = ""
    learned_network: Network | None = None
    """The network GreedyBayes learned, when the sampling ``network`` is another one: with
    estimation="consistent" the model is sampled through its junction tree's network, whose
    families contain the learned ones (docs/consistent.md).  ``None``: ``network`` is the learned one."""

    def __post_init__(self) -> None:
        if len(self.conditionals) != len(self.network.pairs):
            raise ValueError("one conditional per AP pair is needed")
        if self.learned_network is not None and \
                sorted(p.child for p in self.learned_network.pairs) != sorted(p.child for p in self.network.pairs):
            raise ValueError("the learned network must cover the same attributes")
        for table in self.conditionals:
            table.setflags(write=False)

    @property
    def epsilon_spent(self) -> float:
        return float(sum(entry.epsilon for entry in self.ledger))

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False) -> pd.DataFrame:
        """``n`` synthetic rows (default: as many as the input) in the schema's values."""
        n = self.n if n is None else check_count(n, "n", minimum=1)
        rng = np.random.default_rng(check_seed(random_state, "random_state"))
        encoded = ancestral_sample(self.network, self.conditionals, self.encoding, n, rng)
        return self.schema.decode(self.encoding.decode(encoded), rng, bin_labels=bin_labels)

    def sample_to(self, path: Any, n: int | None = None, chunk_rows: int = 4 * BLOCK_ROWS,
                  random_state: int | None = None, bin_labels: bool = False, progress: bool = True) -> None:
        """Write ``n`` synthetic rows (default: as many as the input) to a CSV/Parquet file in chunks
        of ``chunk_rows``: bounded memory for any n, a progress bar on stderr, the file written
        atomically.  The rows depend on ``random_state`` and n, not on ``chunk_rows``."""
        from privbayes.progress import Progress

        n = self.n if n is None else check_count(n, "n", minimum=1)
        seed = check_seed(random_state, "random_state")
        with Progress("sample", enabled=progress) as bar:
            bar.stage("writing rows", n)
            sample_to(path, self.network, self.conditionals, self.encoding, n, seed, chunk_rows, bin_labels,
                      bar.update)

    def privacy_report(self) -> "PrivacyReport":
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        domain_source, caveats = self.domain_source, list(self.caveats)
        if self.schema.inferred and "NOT covered" not in domain_source:  # an unreviewed draft (schema infer)
            domain_source = DRAFT_DOMAIN
            caveats.append("the schema is an unreviewed draft read from the data ('inferred: true'): its domain "
                           "(categories, bounds, special values) is not covered by epsilon")
        if self.schema.quoted_newlines:
            caveats.append(QUOTED_NEWLINES_CAVEAT)
        return PrivacyReport({
            "mechanism": self.mechanism,
            "differentially_private": self.differentially_private,
            "epsilon": float(self.plan.total),
            "epsilon_spent": self.epsilon_spent,
            "neighbouring_relation": neighbours(self.parameters.get("neighbours")).description,
            "n": self.n,
            "n_public": neighbours(self.parameters.get("neighbours")).n_public,
            "domain_source": domain_source,
            "seeded": self.seeded,
            "algorithm": self.algorithm,
            "encoding": self.encoding.name,
            **{key: self.parameters.get(key) for key in ("score", "beta", "theta")},
            "caveats": caveats,
            "plan": self.plan.to_dict(),
            "ledger": [entry.to_dict() for entry in self.ledger],
            "library_version": self.library_version,
        })

    def describe(self) -> list[str]:
        """The learned network, one readable line per AP pair."""
        return (self.learned_network or self.network).describe(self.encoding)


DRAFT_DOMAIN = "inferred from the private data (schema marked 'inferred: true'): NOT covered by epsilon"


class PrivacyReport(Mapping):
    """The privacy report of a released model: a read-only mapping (``report["epsilon"]``),
    :meth:`to_dict` for JSON, a readable ``str`` and ``_repr_html_`` for notebooks."""

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self._fields = dict(fields)

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __or__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        return self.to_dict() | dict(other)

    def to_dict(self) -> dict[str, Any]:
        """A plain (JSON-ready) copy."""
        return {key: (list(value) if isinstance(value, list) else value) for key, value in self._fields.items()}

    def _summary(self) -> list[tuple[str, str]]:
        f = self._fields
        return [("mechanism", str(f["mechanism"])),
                ("differentially private", "yes" if f["differentially_private"] else "NO (analysis mode)"),
                ("epsilon", f"{f['epsilon_spent']:g} spent of {f['epsilon']:g}"),
                ("neighbouring datasets", str(f["neighbouring_relation"])),
                ("domain", str(f["domain_source"])),
                ("algorithm", str(f["algorithm"])),
                ("encoding, score", f"{f['encoding']}, {f.get('score')}"),
                ("rows (n, public)" if f.get("n_public", True) else "rows (noisy count)", str(f["n"])),
                ("seeded noise", "yes" if f["seeded"] else "no")]

    def __str__(self) -> str:
        width = max(len(k) for k, _ in self._summary())
        lines = ["privacy report"] + [f"  {k:<{width}}  {v}" for k, v in self._summary()]
        lines += [f"  caveat: {c}" for c in self._fields["caveats"]]
        lines.append(f"  ledger ({len(self._fields['ledger'])} releases):")
        lines += [f"    {e['step']:<24} {e['mechanism']:<17} ε = {e['epsilon']:.6g}" for e in self._fields["ledger"]]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"PrivacyReport({self._fields!r})"

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td>{escape(v)}</td></tr>"
                       for k, v in self._summary())
        caveats = "".join(f"<li>{escape(c)}</li>" for c in self._fields["caveats"])
        ledger = "".join(f"<tr><td>{escape(e['step'])}</td><td>{escape(e['mechanism'])}</td>"
                         f"<td>{e['epsilon']:.6g}</td></tr>" for e in self._fields["ledger"])
        return (f"<div><b>privacy report</b><table>{rows}</table>"
                + (f"<ul>{caveats}</ul>" if caveats else "")
                + f"<table><tr><th>step</th><th>mechanism</th><th>ε</th></tr>{ledger}</table></div>")
