"""Policy trees: dpdt against brute force, STreeD and econml's greedy tree, on known and real data.

A policy tree assigns one action to each leaf; its training reward is the mean, over the
training samples, of the reward of the action it assigns (``rewards`` of shape (n, n_actions)).

Data:

- **synthetic** (:func:`synthetic`), a known best policy: X uniform on [0, 1]^p; the best
  action is that of a random axis-aligned tree of depth 3 (each split a random feature at a
  threshold uniform in [0.2, 0.8], each leaf a random action); the expected reward of action a
  is ``x_0 + gap * [a = best action]`` (``gap`` = 0.5; the ``x_0`` term is shared by every
  action, as in real scores) and the observed reward adds Gaussian noise of standard deviation
  1 (the noise of doubly robust scores). The test value of a policy is the mean *expected*
  reward of its actions on 100 000 fresh samples; the best policy's is ``E[x_0] + gap``.
  Tiny variants (integer features 0..7, n = 40) serve the brute force.
- **causal sets** of the wide corpus (``--data``: every set with ``t_train``): rewards are the
  doubly robust scores of :func:`dpdt.doubly_robust_rewards` (default models, 5 folds),
  cross-fitted on the train split, and again, separately, on the test split; the test value of
  a policy is the mean of its actions' test scores. NaN features are replaced by the training
  median for every solver (econml's and STreeD's trees take none). Outcomes are divided by
  their training standard deviation, so that the values of the sets are comparable.
- **held-out causal sets** (``--heldout``, in place of ``--data``'s): eight causal sets of
  other packages' data, none in the corpus (``policy_heldout.py`` says what and whence), with
  rewards made the same way; a check of what was chosen on the corpus, never a place to choose.

Solvers (one thread everywhere; the default models of the rewards too):

- ``brute``: the brute force of ``tests/_policy_brute.py`` (tiny data only; its optimum, no tree);
- ``econml``: ``econml.policy.PolicyTree(max_depth=d, honest=False, min_samples_split=2,
  min_samples_leaf=1, random_state=0)``, the greedy tree grown by welfare gain, leaf limits as
  dpdt's defaults;
- ``streed``: ``pystreed.STreeDPrescriptivePolicyGenerator(max_depth=d, teacher_method="DM")``
  with minus the regret (the rewards minus each row's best reward, the same ranking of trees)
  as its regress-and-compare predictions (so that it maximises them), on binarised features
  only: each feature cut at up to ``--thresholds`` quantiles of the training values, one binary
  column ``x <= t`` per threshold. STreeD's certificate holds within a relative 1e-4 of its
  cost, which the regret makes as small as it can be (see :func:`fit_streed`);
- ``dpdt-exact``: ``DPDTreePolicy(max_depth=d, splitter="exhaustive", time_limit=...)``, which
  certifies its tree (``is_optimal_``) when it completes;
- ``dpdt``: ``DPDTreePolicy(max_depth=d)``, the default;
- ``dpdt-cv``: ``DPDTreePolicyCV(max_depth=d)``, alpha chosen by 5-fold cross-validated value
  (its default: the simplest tree within one standard error of the best; causal section only).

Sections, in the order printed, and the checks of each:

1. *causal*: test values at depths 2-5 (dpdt, dpdt-cv, econml; dpdt-exact and STreeD at 2-3;
   ``--solvers`` runs some of them only); checks: dpdt's and dpdt-cv's mean test value >=
   econml's at each depth (dpdt-cv is the estimator the guide names for value on new data).
2. *greedy*: dpdt against econml at depths 4-6 on synthetic sets (20 000 rows, 10 features,
   2/5/20 actions) and the causal sets, and at depth 5 on 10^6 rows x 20 features x 5 actions;
   checks: training reward >= econml's on every set, time <= 3x econml's, the 10^6-row fit
   under 60 s.
3. *binarised*: dpdt-exact and STreeD on the same binary features (synthetic 2 000 rows, the
   causal sets' train splits) at depths 2-3; check: the same optimal reward (to STreeD's
   tolerance, a relative 1e-4 of its cost, the regret; how many are equal to 1e-9 is printed).
4. *certified*: dpdt-exact at depth 2 on 10^6 rows x 10 continuous features x 3 actions and at
   depth 3 on 20 000 rows; check: certified within 60 s each.
5. *tiny*: dpdt-exact, STreeD (its binary columns: one per distinct value, so the same
   partitions) and econml against brute force at depths 1-3; check: the exact optimum equals
   the brute force.

Run ``python benchmarks/policy.py [--data DIR | --heldout] [--sections tiny binarised certified
greedy causal] [--solvers ...] [--quick]``; ``--quick`` shrinks every size (a smoke run, its checks
not the issue's).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from _common import verdict

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "datasets" / "wide"
GAP = 0.5
SECTIONS = ("tiny", "binarised", "certified", "greedy", "causal")


# ----------------------------------------------------------------------------------- data
def _policy_tree(rng, p, k, depth):
    """A random tree as nested tuples: (feature, threshold, left, right) or an action."""
    if depth == 0:
        return int(rng.integers(k))
    return (int(rng.integers(p)), float(rng.uniform(0.2, 0.8)),
            _policy_tree(rng, p, k, depth - 1), _policy_tree(rng, p, k, depth - 1))


def _route(tree, X):
    """The action of each row of X under a tree of :func:`_policy_tree`."""
    if not isinstance(tree, tuple):
        return np.full(len(X), tree)
    feature, threshold, left, right = tree
    go_left = X[:, feature] <= threshold
    actions = np.empty(len(X), dtype=int)
    actions[go_left] = _route(left, X[go_left])
    actions[~go_left] = _route(right, X[~go_left])
    return actions


class Synthetic:
    """A set with a known best policy (see the module's docstring).

    ``X``/``rewards``: the training features and observed rewards; ``value(X_actions)`` the
    test value of a policy from its actions on ``X_test``; ``best_value`` the best policy's.
    """

    def __init__(self, n, p, k, seed, tiny=False, n_test=100_000, noise=1.0):
        rng = np.random.default_rng(seed)
        self.name = f"synthetic n={n} p={p} k={k}" + (" tiny" if tiny else "")
        self.tree = _policy_tree(rng, p, k, 3)
        self.k = k
        if tiny:
            self.X = rng.integers(0, 8, (n, p)) / 7.0
        else:
            self.X = rng.random((n, p))
        self.rewards = self._expected(self.X) + noise * rng.normal(size=(n, k))
        self.X_test = rng.random((n_test, p))
        self._test_expected = self._expected(self.X_test)
        self.best_value = float(self._test_expected.max(axis=1).mean())

    def _expected(self, X):
        expected = np.repeat(X[:, :1], self.k, axis=1)
        expected[np.arange(len(X)), _route(self.tree, X)] += GAP
        return expected

    def value(self, actions):
        return float(self._test_expected[np.arange(len(actions)), actions].mean())


class Causal:
    """A causal set with doubly robust rewards on each split.

    ``path``: a file of the wide corpus, or, with ``arrays`` (its keys), the set's name.
    """

    def __init__(self, path, seed=0, arrays=None):
        import dpdt

        data = np.load(path, allow_pickle=False) if arrays is None else arrays
        self.name = Path(path).stem
        X, X_test = data["X_train"], data["X_test"]
        median = np.nanmedian(X, axis=0)
        median = np.where(np.isnan(median), 0.0, median)
        self.X = np.where(np.isnan(X), median, X)
        self.X_test = np.where(np.isnan(X_test), median, X_test)
        scale = np.std(data["y_train"]) or 1.0
        t, t_test = data["t_train"], data["t_test"]
        actions = np.union1d(t, t_test)
        self.k = len(actions)
        self.rewards = dpdt.doubly_robust_rewards(X, t, data["y_train"] / scale,
                                                  actions=actions, random_state=seed)
        self._test_rewards = dpdt.doubly_robust_rewards(X_test, t_test, data["y_test"] / scale,
                                                        actions=actions, random_state=seed)
        self.best_value = float("nan")

    def value(self, actions):
        return float(self._test_rewards[np.arange(len(actions)), actions].mean())


def causal_sets(data_dir, names=None, max_rows=None):
    """The causal sets of the corpus at ``data_dir`` (those with a treatment)."""
    sets = []
    for path in sorted(Path(data_dir).glob("*.npz")):
        if names and path.stem not in names:
            continue
        with np.load(path, allow_pickle=False) as data:
            if "t_train" not in data or (max_rows and len(data["X_train"]) > max_rows):
                continue
        sets.append(Causal(path))
    return sets


def heldout_sets(names=None, max_rows=None):
    """The held-out causal sets of ``policy_heldout.py``, which no default was chosen on."""
    from policy_heldout import SETS, heldout_arrays

    sets = []
    for name in SETS:
        if names and name not in names:
            continue
        arrays = heldout_arrays(name)
        if not max_rows or len(arrays["X_train"]) <= max_rows:
            sets.append(Causal(name, arrays=arrays))
    return sets


def binarise(X, X_other, n_thresholds):
    """Binary columns ``x <= t`` at up to ``n_thresholds`` quantiles of each feature of X.

    ``n_thresholds=None``: a column per distinct value but the largest (every partition of the
    feature's values). Returns the binary X and X_other (uint8 0/1).
    """
    columns, other = [], []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        if n_thresholds is None:
            cuts = values[:-1]
        else:
            cuts = np.unique(np.quantile(X[:, j], np.arange(1, n_thresholds + 1)
                                         / (n_thresholds + 1), method="lower"))
            cuts = cuts[cuts < values[-1]]
        for t in cuts:
            columns.append(X[:, j] <= t)
            other.append(X_other[:, j] <= t)
    return (np.column_stack(columns).astype(np.uint8),
            np.column_stack(other).astype(np.uint8))


# -------------------------------------------------------------------------------- solvers
class Fit:
    """One solver's fit: its actions on the train and test rows, seconds, certificate."""

    def __init__(self, train, test, seconds, certified=None, note=""):
        self.train, self.test, self.seconds = train, test, seconds
        self.certified, self.note = certified, note


def fit_brute(X, R, depth, X_test, time_limit):
    sys.path.insert(0, str(ROOT / "tests"))
    from _policy_brute import best_policy_value

    start = time.perf_counter()
    value = best_policy_value(X, R, None, depth)
    fit = Fit(None, None, time.perf_counter() - start, certified=True)
    fit.train_reward = value / len(R)
    return fit


def fit_econml(X, R, depth, X_test, time_limit):
    from econml.policy import PolicyTree

    model = PolicyTree(max_depth=depth, honest=False, min_samples_split=2, min_samples_leaf=1,
                       random_state=0)
    start = time.perf_counter()
    model.fit(X, R)
    seconds = time.perf_counter() - start
    return Fit(model.predict(X), model.predict(X_test), seconds)


def fit_streed(X, R, depth, X_test, time_limit):
    from pystreed import STreeDPrescriptivePolicyGenerator

    n, k = R.shape
    # Column 0 (the historic treatment) tells STreeD the number of actions; "DM" scores
    # each action by its regress-and-compare column. STreeD accepts a better tree only when
    # its cost is smaller by a factor 1 + 1e-4, and its cost is the reward shifted by the
    # largest reward of the whole set: one outlying score makes every tree's cost large and
    # that tolerance coarse, and the "optimal" tree falls short of the optimum. It is fed the
    # regret instead (each row's best reward minus the reward), which ranks every tree as the
    # rewards do (a constant per row) and is the smallest cost it can take, so its tolerance
    # is 1e-4 of the regret, not of the shifted rewards.
    regret_rewards = R - R.max(axis=1, keepdims=True)
    y = np.column_stack([np.arange(n) % k, np.zeros(n), np.ones(n), regret_rewards])
    model = STreeDPrescriptivePolicyGenerator(max_depth=depth, teacher_method="DM",
                                              time_limit=time_limit)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X.astype(np.intc), y)
    seconds = time.perf_counter() - start
    within = seconds < time_limit
    return Fit(np.asarray(model.predict(X.astype(np.intc)), dtype=int),
               np.asarray(model.predict(X_test.astype(np.intc)), dtype=int), seconds,
               certified=within)


def _dpdt(estimator="DPDTreePolicy", **params):
    def fit(X, R, depth, X_test, time_limit):
        import dpdt

        if not hasattr(dpdt, estimator):
            raise NotImplementedError(f"no {estimator} in this build")
        model = getattr(dpdt, estimator)(max_depth=depth, **params)
        if params.get("splitter") == "exhaustive":
            model.set_params(time_limit=time_limit)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, R)
        seconds = time.perf_counter() - start
        return Fit(model.predict(X), model.predict(X_test), seconds,
                   # The CV certifies no tree: it chooses among several fits' fronts.
                   certified=bool(getattr(model, "is_optimal_", False)))
    return fit


SOLVERS = {"brute": fit_brute, "econml": fit_econml, "streed": fit_streed,
           "dpdt-exact": _dpdt(splitter="exhaustive", full_front=False), "dpdt": _dpdt(),
           "dpdt-cv": _dpdt("DPDTreePolicyCV")}


def run(solver, data, depth, X=None, X_test=None, time_limit=60.0):
    """Fit ``solver`` on ``data`` (or on the features ``X``/``X_test`` given) and measure it."""
    X = data.X if X is None else X
    X_test = data.X_test if X_test is None else X_test
    row = {"set": data.name, "solver": solver, "depth": depth, "k": data.rewards.shape[1]}
    try:
        fit = SOLVERS[solver](X, data.rewards, depth, X_test, time_limit)
    except (NotImplementedError, ImportError) as error:
        return dict(row, note=f"n/a: {error}")
    finally:
        print(f"  {data.name} depth {depth} {solver} done", file=sys.stderr, flush=True)
    row["seconds"] = fit.seconds
    row["certified"] = fit.certified
    if fit.train is None:
        row["train"] = fit.train_reward
    else:
        row["train"] = float(data.rewards[np.arange(len(X)), fit.train].mean())
        row["test"] = data.value(fit.test)
    return row


# ------------------------------------------------------------------------------- sections
def _print_rows(rows, out, title=None):
    if title is not None:
        print(f"\n### {title}\n", file=out)
    print("| set | depth | solver | train reward | test value | seconds | certified | "
          "time / econml |", file=out)
    print("|---|---|---|---|---|---|---|---|", file=out)
    for row in rows:
        if "note" in row:
            print(f"| {row['set']} | {row['depth']} | {row['solver']} | {row['note']} "
                  "| | | | |", file=out)
            continue
        base = next((r for r in rows if r["set"] == row["set"] and r["depth"] == row["depth"]
                     and r["solver"] == "econml" and "seconds" in r), None)
        ratio = f"{row['seconds'] / base['seconds']:.2f}" if base else ""
        test = f"{row['test']:.5f}" if "test" in row else ""
        certified = {None: "", True: "yes", False: "no"}[row["certified"]]
        print(f"| {row['set']} | {row['depth']} | {row['solver']} | {row['train']:.6f} | "
              f"{test} | {row['seconds']:.3f} | {certified} | {ratio} |", file=out)
    out.flush()


def _same(a, b, scale=1.0):
    return abs(a - b) <= 1e-9 * max(1.0, scale)


def section_tiny(quick, out):
    rows, failures, streed = [], [], []
    for k in (2, 3, 5):
        data = Synthetic(40, 3, k, seed=k, tiny=True, n_test=1000)
        X_bin, X_test_bin = binarise(data.X, data.X_test, None)
        for depth in (1, 2, 3):
            brute = run("brute", data, depth)
            found = [brute, run("dpdt-exact", data, depth),
                     run("streed", data, depth, X_bin, X_test_bin), run("econml", data, depth)]
            rows += found
            for row, found_by in ((found[1], failures), (found[2], streed)):
                if "train" not in row or not _same(row["train"], brute["train"]):
                    found_by.append(f"k={k} d={depth}")
    _print_rows(rows, out, "Tiny data: optimal training reward against brute force")
    print(f"\nCheck, dpdt-exact = brute force: {verdict(not failures, failures)}", file=out)
    print(f"(STreeD on a column per value = brute force: {verdict(not streed, streed)})",
          file=out)
    return rows


def section_binarised(quick, out, causal, thresholds):
    rows, failures, both, equal = [], [], 0, 0
    sets = [Synthetic(500 if quick else 2000, 10, 3, seed=11)] + list(causal)
    for data in sets:
        X_bin, X_test_bin = binarise(data.X, data.X_test, thresholds)
        for depth in (2, 3):
            pair = [run("dpdt-exact", data, depth, X_bin, X_test_bin, time_limit=60),
                    run("streed", data, depth, X_bin, X_test_bin, time_limit=60),
                    run("econml", data, depth, X_bin, X_test_bin)]
            rows += pair
            if not all("train" in r for r in pair[:2]):
                failures.append(f"{data.name} d={depth} n/a")
                continue
            if not all(r["certified"] for r in pair[:2]):
                continue
            both += 1
            exact, streed = pair[0]["train"], pair[1]["train"]
            equal += _same(exact, streed)
            if not _streed_agrees(exact, streed, data.rewards.max(axis=1).mean()):
                failures.append(f"{data.name} d={depth}")
    _print_rows(rows, out, f"Binarised features ({thresholds} quantile thresholds per feature): "
                "dpdt-exact against STreeD")
    print(f"\nCheck, dpdt-exact = STreeD where both certify (within STreeD's relative 1e-4 of "
          f"its cost, the regret): {verdict(not failures, failures)}; "
          f"equal to 1e-9 on {equal} of {both}", file=out)
    return rows


def _streed_agrees(exact, streed, best_reward):
    """Whether STreeD's certified reward is dpdt's exact one, to STreeD's tolerance.

    STreeD certifies a tree whose cost, the regret ``best_reward - streed`` (per sample), is
    within a factor 1 + 1e-4 of the optimum; an exact optimum never lies below it.
    """
    return (exact >= streed - 1e-9 * max(1.0, abs(streed))
            and exact - streed <= 1e-4 * (best_reward - streed) + 1e-9 * max(1.0, abs(streed)))


def section_certified(quick, out):
    rows, failures = [], []
    for n, depth in ((10_000 if quick else 1_000_000, 2), (2_000 if quick else 20_000, 3)):
        data = Synthetic(n, 10, 3, seed=21 + depth, n_test=10_000)
        row = run("dpdt-exact", data, depth, time_limit=60)
        rows += [row, run("econml", data, depth)]
        if not (row.get("certified") and row["seconds"] <= 60):
            failures.append(f"n={n} d={depth}")
    _print_rows(rows, out, "Certified optima on continuous features (3 actions)")
    print(f"\nCheck, certified within 60 s: {verdict(not failures, failures)}", file=out)
    return rows


def section_greedy(quick, out, causal):
    rows, reward_failures, time_failures = [], [], []
    n = 2000 if quick else 20_000
    sets = [Synthetic(n, 10, k, seed=30 + k, n_test=20_000) for k in (2, 5, 20)] + list(causal)
    for data in sets:
        for depth in (4, 5, 6):
            pair = [run("dpdt", data, depth), run("econml", data, depth)]
            rows += pair
            if all("train" in r for r in pair):
                if pair[0]["train"] < pair[1]["train"] - 1e-9 * abs(pair[1]["train"]):
                    reward_failures.append(f"{data.name} d={depth}")
                if pair[0]["seconds"] > 3 * pair[1]["seconds"]:
                    time_failures.append(f"{data.name} d={depth}")
    big = Synthetic(20_000 if quick else 1_000_000, 20, 5, seed=40, n_test=20_000)
    large = [run("dpdt", big, 5), run("econml", big, 5)]
    rows += large
    _print_rows(rows, out, "The default against econml's greedy PolicyTree, depths 4-6")
    print(f"\nCheck, training reward >= econml's on every set: "
          f"{verdict(not reward_failures, reward_failures)}", file=out)
    print(f"Check, time <= 3x econml's: {verdict(not time_failures, time_failures)}", file=out)
    ok = "seconds" in large[0] and large[0]["seconds"] < 60
    print(f"Check, {big.name} at depth 5 under 60 s: "
          f"{verdict(ok, [] if ok else [big.name])}", file=out)
    return rows


def section_causal(quick, out, causal, thresholds, solvers=None):
    chosen = set(SOLVERS) - {"brute"} if solvers is None else set(solvers)
    rows = []
    for data in causal:
        X_bin, X_test_bin = binarise(data.X, data.X_test, thresholds)
        for depth in (2, 3, 4, 5):
            rows += [run(solver, data, depth) for solver in ("dpdt", "dpdt-cv", "econml")
                     if solver in chosen]
            if depth <= 3 and "dpdt-exact" in chosen:
                rows.append(run("dpdt-exact", data, depth, time_limit=60))
            if depth <= 3 and "streed" in chosen:
                rows.append(run("streed", data, depth, X_bin, X_test_bin, time_limit=60))
    # The means over the sets first, then each set's rows.
    print("\n### Causal sets: doubly robust test values (outcome in training standard "
          "deviations)\n", file=out)
    print(f"Mean test value over the {len(causal)} sets:\n", file=out)
    print("| depth | " + " | ".join(SOLVERS) + " |", file=out)
    print("|---|" + "---|" * len(SOLVERS), file=out)
    failures = {"dpdt": [], "dpdt-cv": []}
    for depth in (2, 3, 4, 5):
        means = {}
        for solver in SOLVERS:
            values = [r["test"] for r in rows if r["depth"] == depth and r["solver"] == solver
                      and "test" in r]
            means[solver] = np.mean(values) if len(values) == len(causal) and values else None
        print(f"| {depth} | " + " | ".join("" if means[s] is None else f"{means[s]:.5f}"
                                           for s in SOLVERS) + " |", file=out)
        for solver, failed in failures.items():
            if means[solver] is None or means["econml"] is None or means[solver] < means["econml"]:
                failed.append(f"d={depth}")
    print(file=out)
    for solver, failed in failures.items():
        if solver in chosen:
            print(f"Check, {solver}'s mean test value >= econml's at each depth: "
                  f"{verdict(not failed, failed)}", file=out)
    print(file=out)
    _print_rows(rows, out)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--heldout", action="store_true",
                        help="the causal sets of policy_heldout.py instead of --data's: a check "
                             "of choices made on the corpus")
    parser.add_argument("--sets", nargs="+", metavar="NAME", help="causal sets to run")
    parser.add_argument("--max-rows", type=int, help="skip causal sets of more training rows")
    parser.add_argument("--thresholds", type=int, default=8,
                        help="quantile thresholds per feature when binarising (default 8)")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument("--solvers", nargs="+", choices=[s for s in SOLVERS if s != "brute"],
                        help="solvers of the causal section (default: all)")
    args = parser.parse_args(argv)
    out = sys.stdout
    with threadpool_limits(limits=1):
        causal = []
        source = "policy_heldout.py" if args.heldout else args.data
        if {"binarised", "greedy", "causal"} & set(args.sections):
            if args.heldout:
                causal = heldout_sets(args.sets, args.max_rows)
            elif args.data.exists():
                causal = causal_sets(args.data, args.sets, args.max_rows)
        print(f"{len(causal)} causal sets from {source}; one thread for every solver.",
              file=out)
        # The real causal sets first: what a user of policy trees meets; then the synthetic
        # sets and the checks against the anchors.
        if "causal" in args.sections:
            section_causal(args.quick, out, causal, args.thresholds, args.solvers)
        if "greedy" in args.sections:
            section_greedy(args.quick, out, causal)
        if "binarised" in args.sections:
            section_binarised(args.quick, out, causal, args.thresholds)
        if "certified" in args.sections:
            section_certified(args.quick, out)
        if "tiny" in args.sections:
            section_tiny(args.quick, out)


if __name__ == "__main__":
    main()
