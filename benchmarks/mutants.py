"""Privacy mutants of adaptive/ and privacy/ against the tests that must kill them (docs/privacy-assurance.md,
"Mutation testing").

Each mutant is one text substitution in one source file, standing for a privacy bug: a sensitivity
constant, a budget share, n in place of N̂, a noise scale, the order of charge and release, the rounding of
an exact rational, an off-by-one in the rounds loop.  The script copies ``src/`` once into a temporary
folder, applies one mutant at a time there (the checkout is never touched), runs the mutant's test files
with ``pytest -x`` under ``nice`` and a per-mutant timeout, and reports each mutant as killed (a test
failed), survived (every test passed), error (the tests could not run: also a kill, noted apart) or
timeout.  The unmutated copy is run first: a baseline that fails makes every verdict meaningless.

Usage:
  python benchmarks/mutants.py                      # every mutant, default tests, markdown table on stdout
  python benchmarks/mutants.py --only M14 M15 M17   # some mutants
  python benchmarks/mutants.py --list               # the mutants and their tests, nothing run
  python benchmarks/mutants.py --timeout 600 --no-baseline
  python benchmarks/mutants.py --exclude tests/test_mutants_round4.py   # the verdicts before the new tests
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NEW = ("tests/test_mutants_round4.py",)
ADAPTIVE = NEW + ("tests/methods/adaptive/test_adaptive.py", "tests/test_mechanisms_only.py",
                  "tests/test_add_remove.py", "tests/audit/test_adaptive_audit.py")
MECHANISMS = NEW + ("tests/audit/test_privacy_audit.py", "tests/test_bookkeeping.py",
                    "tests/privacy/test_permute_and_flip.py", "tests/test_add_remove.py",
                    "tests/test_mechanisms_only.py", "tests/privacy/test_samplers_opendp.py",
                    "tests/methods/adaptive/test_adaptive.py")

# Pytest starts from the checkout (its pyproject and conftest) with the mutated copy first on the path; the
# tests import ``tests.helpers`` from the checkout whatever else an environment installs under that name.
BOOT = ("import sys, types; m = types.ModuleType('tests'); m.__path__ = [sys.argv.pop(1)]; "
        "sys.modules['tests'] = m; import pytest; sys.exit(pytest.main(sys.argv[1:]))")


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # under src/privbayes/
    old: str
    new: str
    bug: str
    tests: tuple[str, ...]


MUTANTS = (
    # The three that survived every test before tests/test_mutants_round4.py, and their siblings.
    Mutant("M14", "adaptive/rounds.py", "oracle.marginal(c.attributes) * total,",
           "oracle.marginal(c.attributes) * (total if count_scale is None else table.n),",
           "scores scaled by the true n under add/remove (moves by up to 2 at Δ = 1)", ADAPTIVE),
    Mutant("M14b", "adaptive/rounds.py", "total = _total(measurements, n, count_scale)\n    fit =",
           "total = _total(measurements, table.n, count_scale)\n    fit =",
           "N̂ estimated from the true n in place of the noisy count (first model and scores)", ADAPTIVE),
    Mutant("M14c", "adaptive/rounds.py", "- penalty * exact.size)", "- penalty * int(np.count_nonzero(exact)))",
           "the noise penalty counts the data's non-empty cells", ADAPTIVE),
    Mutant("M15", "privacy/mechanisms.py", "discrete_laplace(self.scale, exact.size, rng)",
           "discrete_laplace(self.scale / 2 if step.startswith('round') else self.scale, exact.size, rng)",
           "half-scale noise on the rounds' measurements", ADAPTIVE),
    Mutant("M15b", "privacy/mechanisms.py", "discrete_laplace(self.scale, exact.size, rng)",
           "discrete_laplace(self.scale / 2 if step.startswith('clique') else self.scale, exact.size, rng)",
           "half-scale noise on the MRF's clique tables", MECHANISMS),
    Mutant("M15c", "privacy/mechanisms.py", "discrete_laplace(self.scale, exact.size, rng)",
           "discrete_laplace(self.scale / 2 if 'marginal' in step and 'round' not in step else self.scale, "
           "exact.size, rng)",
           "half-scale noise on the adaptive joint first tables", ADAPTIVE),
    Mutant("M15d", "privacy/mechanisms.py", "discrete_laplace(self.scale, exact.size, rng)",
           "discrete_laplace(self.scale / 2 if exact.size > 40 else self.scale, exact.size, rng)",
           "half-scale noise on large tables only", MECHANISMS),
    Mutant("M15e", "privacy/mechanisms.py", "exact + discrete_laplace(self.scale, exact.size, rng).reshape",
           "exact + (discrete_laplace(self.scale, exact.size, rng) // 2).reshape",
           "half the noise drawn is added", MECHANISMS),
    Mutant("M17", "adaptive/network.py", "THETA, n=n, sensitivity", "THETA, n=table.n, sensitivity",
           "θ-useful parent sets at the true n under add/remove", ADAPTIVE),
    Mutant("M17b", "adaptive/network.py", "THETA, n=n, sensitivity", "THETA, sensitivity",
           "θ-useful parent sets at the table's n (the default) under add/remove", ADAPTIVE),
    # Sensitivity constants and scale factors.
    Mutant("S1", "privacy/neighbours.py", "Def. 2.1)\",\n                         Fraction(2), True)",
           "Def. 2.1)\",\n                         Fraction(1), True)", "Δ = 1 for count tables under replace-one",
           MECHANISMS),
    Mutant("S2", "privacy/mechanisms.py", "return self.epsilon / (2 * self.sensitivity)",
           "return self.epsilon / self.sensitivity", "selection exponent ε/Δ in place of ε/(2Δ)", MECHANISMS),
    Mutant("S3", "privacy/mechanisms.py", "return DiscreteLaplace(epsilon, ADD_REMOVE.count_sensitivity)",
           "return DiscreteLaplace(epsilon, Fraction(1, 2))", "the noisy count at Δ = 1/2", MECHANISMS),
    Mutant("S4", "adaptive/rounds.py", "selector(select.epsilon, sensitivity).release",
           "selector(select.epsilon, sensitivity / 2).release", "the rounds' selection at Δ/2", ADAPTIVE),
    Mutant("S5", "adaptive/rounds.py", "mechanism = DiscreteLaplace(release.epsilon, sensitivity)",
           "mechanism = DiscreteLaplace(release.epsilon, Fraction(1))",
           "the adaptive measurements at Δ = 1 under replace-one", ADAPTIVE),
    Mutant("S6", "adaptive/candidates.py", "top = max(raw.values())", "top = min(raw.values())",
           "workload weights above 1 (score sensitivity above Δ)", ADAPTIVE),
    Mutant("S7", "adaptive/network.py", "budgets, accountant, rng, relation.count_sensitivity))",
           "budgets, accountant, rng, Fraction(1)))", "the network's tables at Δ = 1 under replace-one", ADAPTIVE),
    Mutant("S8", "adaptive/network.py", '"F" if encoding.is_binary and relation.n_public else "R"',
           '"F" if encoding.is_binary else "R"', "score F (replace-one's bound) under add/remove", ADAPTIVE),
    Mutant("S9", "privacy/mechanisms.py", "return exponential_choice(scores, self.factor, rng)",
           "return exponential_choice(scores, 2 * self.factor, rng)", "exponential sampler at twice the factor",
           MECHANISMS),
    Mutant("S10", "privacy/mechanisms.py", "gap = factor * (top - Fraction(scores[i]))",
           "gap = factor * (top - Fraction(scores[i])) / 2", "permute-and-flip coins at half the gap", MECHANISMS),
    # Budget shares.
    Mutant("B1", "adaptive/settings.py", "rest = epsilon - (0 if relation.n_public else settings.count_epsilon())",
           "rest = epsilon", "the noisy count not taken out of ε", ADAPTIVE),
    Mutant("B2", "adaptive/settings.py", "        measure = budgets[t - 1] - select\n",
           "        measure = budgets[t - 1]\n", "a round's measurement spends the whole round", ADAPTIVE),
    Mutant("B3", "adaptive/rounds.py", "mechanism = DiscreteLaplace(release.epsilon, sensitivity)",
           "mechanism = DiscreteLaplace(2 * release.epsilon, sensitivity)",
           "a measurement at twice its planned ε", ADAPTIVE),
    Mutant("P1", "privacy/mechanisms.py", "return Cost(self.epsilon)\n\n    def release(self, counts",
           "return Cost(self.epsilon / 2)\n\n    def release(self, counts",
           "discrete Laplace charges half its ε (the ledger under-reports)", MECHANISMS),
    # n in place of N̂.
    Mutant("N2", "privacy/neighbours.py", "is released)\", Fraction(1), False)", "is released)\", Fraction(1), True)",
           "add/remove treats n as public (fits use the true n)", MECHANISMS),
    Mutant("N1", "privacy/mechanisms.py", "return max(1, int(noisy[0]))", "return max(1, n)",
           "the noisy count returns the true n", MECHANISMS),
    # Charge-before-release order and the accountant.
    Mutant("C1", "privacy/mechanisms.py",
           "        accountant.charge(self, step=step, measured=measured)\n        exact = np.asarray(counts, "
           "dtype=np.int64)\n        return exact + discrete_laplace(self.scale, exact.size, rng).reshape(exact.shape)",
           "        exact = np.asarray(counts, dtype=np.int64)\n        noisy = exact + discrete_laplace(self.scale, "
           "exact.size, rng).reshape(exact.shape)\n        accountant.charge(self, step=step, measured=measured)\n"
           "        return noisy", "noise drawn before the charge", MECHANISMS),
    Mutant("C3", "privacy/mechanisms.py",
           "        accountant.charge(self, step=step, measured=measured)\n        return self._choose(scores, rng)",
           "        chosen = self._choose(scores, rng)\n        accountant.charge(self, step=step, measured=measured)\n"
           "        return chosen", "a selection drawn before its charge", MECHANISMS),
    Mutant("C2", "privacy/accountant.py", "if self._spent + cost.epsilon > self.total or",
           "if self._spent > self.total or", "the accountant checks what was spent, not what will be",
           MECHANISMS),
    # Rounding of exact rationals.
    Mutant("R1", "privacy/samplers.py", "t = math.ceil(scale * s)", "t = math.floor(scale * s)",
           "the sampler's scale rounded down (less noise than paid for)", MECHANISMS),
    Mutant("R2", "privacy/samplers.py", "return Fraction(float(scores.max()))",
           "return Fraction(round(float(scores.max()), 3))", "the top score rounded (gaps inexact)", MECHANISMS),
    Mutant("R3", "adaptive/settings.py",
           "return [unit * (1 + (ramp - 1) * Fraction(t, rounds - 1)) for t in range(rounds)]",
           "return [Fraction(float(unit * (1 + (ramp - 1) * Fraction(t, rounds - 1)))) for t in range(rounds)]",
           "round budgets as floats (may sum above ε)", ADAPTIVE),
    # Off-by-one in the rounds loop.
    Mutant("O1", "adaptive/rounds.py", "for t in range(1, rounds + 1):", "for t in range(1, rounds):",
           "one round fewer than planned", ADAPTIVE),
    Mutant("O2", "adaptive/rounds.py", "        last = t == rounds\n",
           "        last = t == rounds\n        total = _total(measurements, n, count_scale)\n",
           "equivalent control: N̂ recomputed twice (not a bug; must survive)", NEW),
)


def _pytest(work: Path, tests: tuple[str, ...], timeout: float) -> tuple[str, float, str]:
    env = dict(os.environ, PYTHONPATH=str(work / "src"), NUMBA_CACHE_DIR=str(work / "numba"))
    command = ["nice", "-n", "10", sys.executable, "-c", BOOT, str(ROOT / "tests"), *tests, "-x", "-q",
               "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnraisableExceptionWarning"]
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, ""
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    failed = next((line.split(" ", 1)[1] for line in lines if line.startswith("FAILED ")), "")
    verdict = {0: "survived", 1: "killed"}.get(done.returncode, "error")
    return verdict, time.monotonic() - start, failed or (lines[-1] if lines else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutant names to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant (default 900)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    parser.add_argument("--tests", nargs="*", help="test files for every mutant (default: each mutant's own)")
    parser.add_argument("--exclude", nargs="*", default=[], help="test files left out of every mutant's tests")
    args = parser.parse_args()
    chosen = [replace(m, tests=tuple(t for t in args.tests or m.tests if t not in args.exclude))
              for m in MUTANTS if not args.only or m.name in args.only]
    if args.only and len(chosen) != len(set(args.only)):
        parser.error(f"unknown mutants: {sorted(set(args.only) - {m.name for m in MUTANTS})}")
    if args.list:
        for m in chosen:
            print(f"{m.name:5} {m.path:24} {m.bug}  [{', '.join(Path(t).name for t in m.tests)}]")
        return 0
    work = Path(tempfile.mkdtemp(prefix="privbayes-mutants-"))
    try:
        shutil.copytree(ROOT / "src", work / "src", ignore=shutil.ignore_patterns("__pycache__"))
        if not args.no_baseline:
            tests = tuple(sorted({t for m in chosen for t in m.tests}))
            verdict, seconds, last = _pytest(work, tests, args.timeout * 3)
            print(f"baseline: {'pass' if verdict == 'survived' else verdict} ({seconds:.0f} s) {last}", flush=True)
            if verdict != "survived":
                return 1
        print("| mutant | file | bug | verdict | first failing test | s |\n|---|---|---|---|---|---|", flush=True)
        for m in chosen:
            target = work / "src" / "privbayes" / m.path
            original = target.read_text()
            if original.count(m.old) != 1:
                print(f"| {m.name} | {m.path} | {m.bug} | NOT APPLIED ({original.count(m.old)} matches) | | |")
                continue
            stat = target.stat()
            target.write_text(original.replace(m.old, m.new))
            try:
                verdict, seconds, failed = _pytest(work, m.tests, args.timeout)
            finally:
                target.write_text(original)
                os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            print(f"| {m.name} | {m.path} | {m.bug} | {verdict} | {failed.replace('|', '/')[:110]} | {seconds:.0f} |",
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
