"""The release contract: one outline for every private method (docs/architecture.md).

::

    Estimator(**params)                 parameters only; get_params/set_params/repr (sklearn's clone works)
      .settings()                       the parameters validated once, as a frozen value
      .plan(n, schema) -> BudgetPlan    every release, its mechanism, sensitivity and exact cost; no data read
      .fit(source | PrivateTable, schema=None, *, backend=...) -> self
          = .open(source, schema, ...) -> Opened, then .fit_opened(opened) (what ``privbayes fit`` calls)
      .released_                        the frozen released value (also ``model_``), carrying its ReleaseRecord
    Released.sample(n, *, random_state=None) / .privacy_report() -> PrivacyReport / .describe()
    privbayes.load(path) -> Released    dispatch on the file's format; plan recomputed, ledger checked

:class:`PrivateEstimator` holds what every estimator shares: the scikit-learn parameter protocol,
and the one fit template (:meth:`PrivateEstimator.fit_opened`, docs/architecture.md, "The release
contract"): open the data through :func:`privbayes.counting.open` (the empty table only where the
relation makes n private), release the noisy count where n is private, plan, refuse a fit over the
memory guard, then the one step a method writes (:meth:`PrivateEstimator._measure`: measure through
mechanisms and estimate), check the plan against the ledger, add the caveats every method shares, and
write the :class:`~privbayes.privacy.record.ReleaseRecord` the released value carries.  ``privbayes
fit`` runs the same steps.
"""

from __future__ import annotations

import difflib
import inspect
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

import numpy as np
import pandas as pd

from privbayes import counting
from privbayes.core.errors import InferredDomainWarning, InputError
from privbayes.core.progress import Progress
from privbayes.counting import PrivateTable
from privbayes.counting.base import CountingPlace, counting_place
from privbayes.privacy.accountant import Accountant, ZCDPAccountant
from privbayes.privacy.mechanisms import COUNT_STEP, DiscreteGaussian, noisy_count
from privbayes.privacy.neighbours import draft_cost
from privbayes.privacy.plan import BudgetPlan
from privbayes.privacy.record import ReleaseRecord
from privbayes.privacy.report import READ_FROM_DATA_CAVEAT, SEEDED_CAVEAT, PrivacyReport
from privbayes.privacy.samplers import RandomSource, random_source
from privbayes.schema import Schema
from privbayes.synthesizers.costs import CostEstimate

GIVEN = "given by the user (public)"
INFERRED = "inferred from the private data: NOT covered by epsilon"
INFERRED_WARNING = ("the schema is inferred from the data (an unreviewed draft: 'inferred: true'); its categories and "
                    "bounds are NOT covered by epsilon")


@runtime_checkable
class Released(Protocol):
    """What a fit publishes: a frozen value that samples, reports and saves without the data."""

    @property
    def schema(self) -> Schema:
        """The public domain it was released over."""
        ...

    @property
    def plan(self) -> BudgetPlan:
        """Every release it paid for (checked against its ledger)."""
        ...

    @property
    def record(self) -> ReleaseRecord:
        """The plan, ledger, n, seeded noise, domain source and caveats of the release."""
        ...

    @property
    def method(self) -> str:
        """The registry name of the method that released it."""
        ...

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False, *,
               conditions: Mapping[str, Any] | None = None, keep_ids: bool = False,
               draw: str | None = None) -> pd.DataFrame:
        """Synthetic rows drawn from the released value: post-processing, never the data.

        Parameters
        ----------
        n : int, optional
            Number of rows (default: the released n; under add/remove neighbours its noisy count).
        random_state : int, optional
            Seed of the sampling (reproducible rows; the release's noise is not affected).
        bin_labels : bool, default False
            Numeric attributes as their bins' labels instead of numbers drawn inside the bins.
        conditions : Mapping, optional
            ``{column: value}``: rows drawn exactly from the released model given those values (values
            spelt as the schema spells them).
        keep_ids : bool, default False
            Put the schema's dropped identifier columns first, as keys 1..n that carry no data.
        draw : {"balanced", "iid"}, optional
            How the rows are drawn: ``"balanced"``, each attribute stratified within its parents' configuration
            (counts close to the model's), or ``"iid"``, every row independent (for resampling-based variance
            estimates).  Default: the model's own (new model files: balanced; files written before the
            balanced draw: i.i.d.).  Rows given ``conditions`` are drawn i.i.d.; a method whose rows are not drawn
            (NBC views) or not drawn this way refuses it.

        Returns
        -------
        pandas.DataFrame
            One column per attribute of the schema, named and typed as it says.
        """
        ...

    def privacy_report(self) -> PrivacyReport:
        """What was spent, on what, under which guarantee and neighbouring relation, and what is not covered.

        Returns
        -------
        PrivacyReport
            A read-only mapping with the core keys of every method (``privbayes inspect`` prints it).
        """
        ...

    def describe(self) -> list[str]:
        """Readable lines of the released structure (``privbayes inspect``)."""
        ...

    def summary(self) -> str:
        """One line: what was released (``privbayes fit`` prints it)."""
        ...

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the released value to a versioned model file, atomically.

        Parameters
        ----------
        path : str or os.PathLike
            The model file (JSON); :func:`privbayes.load` reads it back and re-checks its plan and ledger.
        """
        ...


@dataclass(frozen=True)
class Opened:
    """The private table of a fit and where its domain came from (:data:`GIVEN` or :data:`INFERRED`)."""

    table: PrivateTable
    domain_source: str

    @property
    def inferred(self) -> bool:
        """Whether the domain was read from the data (not covered by ε): the fit warns."""
        return self.domain_source == INFERRED or self.table.schema.inferred


@dataclass(frozen=True)
class FitContext:
    """What the template hands a method's measure-and-estimate step: the ``table`` as the method counts
    it (:meth:`PrivateEstimator._prepare`: e.g. encoded), the public ``schema``, ``n`` (public, the noisy
    count, or None: private and not released), the ``plan`` fixed before any count, the accountant every
    mechanism is ``charged`` to (pure ε, or a :class:`~privbayes.privacy.accountant.ZCDPAccountant` for a plan
    priced in ρ), the DP random source and the progress display."""

    table: PrivateTable
    schema: Schema
    n: int | None
    plan: BudgetPlan
    charged: Accountant | ZCDPAccountant
    rng: RandomSource
    progress: Progress

    @property
    def accountant(self) -> Accountant:
        """The pure-ε accountant (a method that offers zCDP reads :attr:`charged`)."""
        if not isinstance(self.charged, Accountant):
            raise TypeError("this fit is priced in rho: its accountant is FitContext.charged")
        return self.charged

    @property
    def planned_n(self) -> int:
        """n as the plan used it (public, or the noisy count); refused where n is private and unreleased."""
        if self.n is None:
            raise ValueError("n is private and was not released: nothing may use it")
        return self.n


@dataclass(frozen=True)
class Measured:
    """What a method's measure-and-estimate step returns: the released value's parts as ``build``, which
    the template calls with the :class:`ReleaseRecord` once the ledger matches the plan; the method's
    own ``caveats`` (before those every method shares); ``n``: the released n when the method estimates
    it (an MRF's N from its noisy tables), else the template's."""

    build: Callable[[ReleaseRecord], Released]
    caveats: tuple[str, ...] = ()
    n: float | None = None


class PrivateEstimator:
    """Base of the contract's estimators (scikit-learn conventions: parameters stored unmodified in
    ``__init__`` and validated by :meth:`settings`; ``fit`` returns self; fitted attributes end in _)."""

    method: ClassVar[str]
    """The registry name (``privbayes fit --method``)."""

    # --- parameters ---------------------------------------------------------------------------------

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Check the call against the constructor's signature first: a misspelt, missing or extra parameter
        is a one-line InputError naming it and its close match, not Python's TypeError."""
        try:
            inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        except TypeError:
            names = cls._param_names()
            unknown = [name for name in kwargs if name not in names]
            if unknown:
                raise InputError(_unknown_parameter(cls.__name__, unknown[0], names,
                                                    getattr(cls, "former_names", None))) from None
            required = [p.name for p in inspect.signature(cls.__init__).parameters.values()
                        if p.name != "self" and p.default is p.empty and p.name not in kwargs
                        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            if required and len(args) < len(required):
                raise InputError(f"{cls.__name__} needs the parameter {required[len(args)]!r}") from None
            positional = [p.name for p in inspect.signature(cls.__init__).parameters.values()
                          if p.name != "self" and p.kind == p.POSITIONAL_OR_KEYWORD]
            raise InputError(f"{cls.__name__} takes {' and '.join(map(repr, positional)) or 'no parameter'} by "
                             "position and every other parameter by name (name=value)") from None
        return super().__new__(cls)

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters as given (``deep``: also those of nested estimators)."""
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if hasattr(value, "get_params") and not isinstance(value, type):
                    params |= {f"{name}__{key}": inner for key, inner in value.get_params().items()}
        return params

    def set_params(self, **params: Any) -> PrivateEstimator:
        """Set parameters by name (validated at the next :meth:`settings`, as in scikit-learn)."""
        names = self._param_names()
        for name, value in params.items():
            if name not in names:
                raise InputError(_unknown_parameter(type(self).__name__, name, names,
                                                    getattr(self, "former_names", None)))
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        signature = inspect.signature(type(self).__init__)
        shown = []
        for name, parameter in signature.parameters.items():
            if name == "self" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            value = getattr(self, name)
            if parameter.default is parameter.empty or not _same(value, parameter.default):
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    # --- what each estimator supplies ---------------------------------------------------------------

    def settings(self) -> Any:
        """The parameters validated once, as a frozen value (one-line InputError naming the parameter)."""
        raise NotImplementedError

    def plan(self, n: int, schema: Schema) -> BudgetPlan:
        """Every release of a fit on n rows of ``schema`` (under add/remove: the noisy count), before any data."""
        return self._plan(self.settings(), schema, n)

    def _plan(self, settings: Any, schema: Schema, n: int) -> BudgetPlan:
        """The plan from validated ``settings`` (the fit's step; :meth:`plan` is its public face)."""
        raise NotImplementedError

    def _measure(self, settings: Any, fit: FitContext) -> Measured:
        """The one step a method writes: measure ``fit.table`` through mechanisms charging ``fit.accountant``
        (with ``fit.rng``), estimate by post-processing, and return the released value's parts."""
        raise NotImplementedError

    def cost_estimate(self, plan: BudgetPlan, schema: Schema, n: int | None = None, *,
                      counting: CountingPlace | None = None) -> Any:
        """What the fit will cost (:class:`privbayes.synthesizers.costs.CostEstimate`: seconds, peak memory, model-file
        size; ``check()`` refuses one over the guard), from public inputs only (``n``: the table size
        when the plan does not state it, e.g. ``--assume-n`` under add/remove; ``counting``: where the table is
        counted, :func:`privbayes.counting.base.counting_place`, default in memory); None where the method
        has no estimate."""
        return None

    def _guard_estimate(self, settings: Any, plan: BudgetPlan, schema: Schema, n: int | None,
                        counting: CountingPlace | None = None) -> CostEstimate | None:
        """The estimate the fit's memory guard checks (default :meth:`cost_estimate`, the one ``privbayes fit``
        prints)."""
        estimate: CostEstimate | None = self.cost_estimate(plan, schema, n, counting=counting)
        return estimate

    def _prepare(self, settings: Any, table: PrivateTable) -> PrivateTable:
        """The table as the method counts it (default: as opened; the network methods encode it)."""
        return table

    def _count_epsilon(self, settings: Any) -> Fraction | None:
        """ε of the noisy count released first where n is private (None: the method sizes no release by n)."""
        return None

    def _progress_title(self, settings: Any) -> str:
        """The progress bar's title (shown with the estimator's ``progress=True``)."""
        return self.method

    def private_n_note(self) -> str:
        """How the plan is fixed when n is private (``fit --dry-run`` under add/remove neighbours)."""
        return "the plan does not depend on n"

    def n_public(self, settings: Any) -> bool:
        """Whether the method's neighbouring relation keeps n public (else the empty table must fit)."""
        relation = getattr(settings, "relation", None)
        return True if relation is None else bool(relation.n_public)

    def check_parameters(self) -> None:
        """Validate the parameters (one-line InputError naming the first bad one)."""
        self.settings()

    # --- fitting: the template ----------------------------------------------------------------------

    def fit(self, data: Any, schema: Any = None, *, backend: Any = "numpy",
            infer_schema_from_data: bool = False) -> PrivateEstimator:
        """Release a private model of ``data``: a :class:`PrivateTable`, a DataFrame, or a CSV/Parquet/.dat
        path, with its public ``schema`` (or one inferred from the data when asked: not covered by ε)."""
        opened = self.open(data, schema, backend=backend, infer_schema_from_data=infer_schema_from_data)
        if opened.inferred:
            warnings.warn(INFERRED_WARNING, InferredDomainWarning, stacklevel=2)
        return self.fit_opened(opened)

    def open(self, data: Any, schema: Any = None, *, backend: Any = "numpy",
             infer_schema_from_data: bool = False) -> Opened:
        """Step 1: the private table through :func:`privbayes.counting.open` (the empty table accepted only
        where the relation makes n private)."""
        table, domain_source = open_private(data, schema, infer_schema_from_data, backend,
                                            allow_empty=not self.n_public(self.settings()))
        return Opened(table, domain_source)

    def fit_opened(self, opened: Opened, *,
                   on_cost: Callable[[CostEstimate], None] | None = None) -> PrivateEstimator:
        """The fit template after opening: the noisy count where n is private, the plan, the memory guard
        (``on_cost``: also shown the full estimate, as ``privbayes fit`` does), :meth:`_measure`, the
        plan = ledger check, the shared caveats and the release record."""
        self.released_ = self._release(self.settings(), opened.table, opened.domain_source, on_cost)
        return self

    def _release(self, settings: Any, table: PrivateTable, domain_source: str,
                 on_cost: Callable[[CostEstimate], None] | None = None) -> Released:
        """The template's steps in order; the noise is drawn in this order for a fixed seed (the count first)."""
        relation = getattr(settings, "relation", None)
        if table.schema.private_draft is not None and relation is not None:
            draft_cost(table.schema.private_draft, relation)  # a private draft's relation must compose with the fit's
        rng = random_source(getattr(self, "random_state", None))
        schema, place = table.schema, counting_place(table)
        table = self._prepare(settings, table)
        accountant = self._accountant(settings, table.n if self.n_public(settings) else None)
        n = self._count(settings, table, accountant, rng)
        plan = self._plan(settings, schema, 0 if n is None else n)  # n None: the plan does not depend on it
        cost = self.cost_estimate(plan, schema, n, counting=place) if on_cost is not None else \
            self._guard_estimate(settings, plan, schema, n, place)
        if cost is not None:
            cost.check()  # refused before any table is counted
            if on_cost is not None:
                on_cost(cost)
        with Progress(self._progress_title(settings), enabled=bool(getattr(self, "progress", False))) as progress:
            measured = self._measure(settings, FitContext(table, schema, n, plan, accountant, rng, progress))
        if (plan.total_rho is None) != isinstance(accountant, Accountant):
            raise TypeError("a plan priced in rho needs a zCDP accountant, a pure plan a pure one")
        plan.check(accountant.ledger)
        caveats = list(measured.caveats)
        if domain_source != GIVEN:
            caveats.append(READ_FROM_DATA_CAVEAT)
        if rng.seeded:
            caveats.append(SEEDED_CAVEAT)
        released_n = measured.n if measured.n is not None else n
        return measured.build(ReleaseRecord(plan, accountant.ledger, released_n, rng.seeded, domain_source,
                                            tuple(caveats)))

    def _accountant(self, settings: Any, public_n: int | None) -> Accountant | ZCDPAccountant:
        """The accountant of a fit: ε of the settings (``public_n``: n where it is public, for a δ sized by it), or
        a :class:`~privbayes.privacy.accountant.ZCDPAccountant` of the settings' ρ when the method prices the fit
        in ρ (:meth:`_total_rho`)."""
        rho = self._total_rho(settings)
        return Accountant(settings.epsilon) if rho is None else ZCDPAccountant(rho)

    def _total_rho(self, settings: Any) -> Fraction | None:
        """The fit's zCDP budget ρ, or None under pure ε (the default: a method offers zCDP by overriding it)."""
        return None

    def _count_rho(self, settings: Any) -> Fraction:
        """ρ of the noisy count of a zCDP fit where n is private (a method offering zCDP overrides it)."""
        raise NotImplementedError

    def _count(self, settings: Any, table: PrivateTable, accountant: Accountant | ZCDPAccountant,
               rng: RandomSource) -> int | None:
        """n where public; else the noisy count (:func:`~privbayes.privacy.mechanisms.noisy_count`) where the
        method releases one, or None; under zCDP the count is a discrete Gaussian at :meth:`_count_rho`
        (sensitivity 1: one tuple more or less), at least 1."""
        if self.n_public(settings):
            return table.n
        if isinstance(accountant, ZCDPAccountant):
            rho = self._count_rho(settings)
            noisy = DiscreteGaussian(1 / (2 * rho), Fraction(1)).release(np.array([table.n]), accountant, rng,
                                                                         step=COUNT_STEP, measured="number of tuples")
            return max(1, int(noisy[0]))
        epsilon = self._count_epsilon(settings)
        return None if epsilon is None else noisy_count(table.n, epsilon, accountant, rng, step=COUNT_STEP)

    # --- views of the released value ----------------------------------------------------------------

    def _released(self) -> Released:
        if not hasattr(self, "released_"):
            raise InputError(f"this {type(self).__name__} is not fitted yet; call fit first")
        return self.released_

    model_ = property(lambda self: self._released(), doc="The released value (the same as ``released_``).")
    schema_ = property(lambda self: self._released().schema)

    def sample(self, n: int | None = None, random_state: int | None = None, bin_labels: bool = False, *,
               conditions: Mapping[str, Any] | None = None, keep_ids: bool = False,
               draw: str | None = None) -> pd.DataFrame:
        """``n`` synthetic rows (default: as many as the released n) — post-processing, never the data;
        with ``conditions`` ({column: value}), drawn exactly from the released model given those values;
        ``keep_ids``: the schema's dropped identifiers regenerated in front as keys 1..n; ``draw``:
        ``"balanced"`` or ``"iid"`` instead of the model's own (:meth:`Released.sample`)."""
        return self._released().sample(n, random_state, bin_labels, conditions=conditions, keep_ids=keep_ids,
                                       draw=draw)

    def privacy_report(self) -> PrivacyReport:
        """What was spent, on what, under which neighbouring relation, and what is not covered."""
        return self._released().privacy_report()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the released value to a versioned model file (atomic); loading re-checks its plan."""
        self._released().save(path)


def _unknown_parameter(owner: str, name: Any, names: list[str], former: Mapping[str, str] | None = None) -> str:
    """One line: ``owner`` has no parameter ``name``; its new name if it was renamed (``former``: old → new), else
    the close match if any (difflib, among the names and the former names), and the parameters."""
    former = former or {}
    close = [former.get(match, match) for match in difflib.get_close_matches(str(name), names + list(former), n=1)]
    hint = f" (renamed {former[name]!r})" if name in former else f" (did you mean {close[0]!r}?)" if close else ""
    return f"{owner} has no parameter {name!r}{hint}; its parameters: {', '.join(names)}"


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default) and type(value) is type(default)
    except (TypeError, ValueError):  # arrays and other values without a plain truth value
        return False


def open_private(data: Any, schema: Any, infer: bool, backend: Any, *,
                 allow_empty: bool = False) -> tuple[PrivateTable, str]:
    """The private table of a fit and where its domain came from (``allow_empty``: accept data
    without rows, for guarantees under which n is private)."""
    if isinstance(data, PrivateTable) and not isinstance(data, (str, os.PathLike, pd.DataFrame)):
        if schema is not None:
            raise InputError("a PrivateTable carries its schema; do not pass another")
        return data, GIVEN
    if schema is None:
        if not infer:
            raise InputError("fit needs a schema (the public domain); pass one, or ask to infer it from the data, "
                             "which is not covered by epsilon")
        from privbayes.counting.draft import infer_schema

        return counting.open(data, infer_schema(data), backend=backend, allow_empty=allow_empty), INFERRED
    return counting.open(data, schema, backend=backend, allow_empty=allow_empty), GIVEN
