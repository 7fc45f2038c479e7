"""The fixed cost of a fit: dpdt on small data against scikit-learn's and econml's greedy trees.

A data scientist's cross-validation loop, or boosting's many small trees, pays whatever a fit
costs beyond its search on every fit. Each estimator fits synthetic data of 100, 1 000 and 5 000
rows (10 features) at depths 2, 3 (dpdt's default) and 5, one thread everywhere, beside its
greedy baseline fitted on the same data in the same run:

- ``DPDTreeClassifier`` and ``splitter="exhaustive", full_front=False`` (the bounded search,
  depth 2) against scikit-learn's ``DecisionTreeClassifier``;
- ``DPDTreeRegressor`` against ``DecisionTreeRegressor``;
- ``DPDTreePolicy`` and its bounded search (depth 2) against econml's ``PolicyTree``
  (``honest=False``, leaf limits as dpdt's; the column is empty without econml);
- ``DPDTGradientBoostingClassifier`` (20 rounds of depth 3) against scikit-learn's
  ``HistGradientBoostingClassifier`` (20 iterations, depth 3, no early stopping).

Each time is the median of ``--repeats`` fits after one untimed fit; "cpu" is the process's CPU
time over the same fits, so that a busy machine (where a fit longer than the scheduler's slice
waits for it) shows beside the wall time; "core" is the share of the wall time spent in the C++
core's calls (timed by a runner, ``dpdt._runner.RUNNER``), the rest being Python: validation,
the fit's plan, the fitted model.

``--causal`` adds the policy trees of the causal sets of the wide corpus (``--data``, as
``benchmarks/policy.py`` loads them: doubly robust rewards, NaN replaced by the training median)
at depths 2 to 6: the median ratio of dpdt's fit time to econml's over the sets, per depth and
overall.

Run ``python benchmarks/fixed_cost.py [--repeats N] [--causal] [--data DIR]``. Prints markdown
tables; timings are never asserted.
"""

import argparse
import statistics
import sys
import time
import warnings
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

import dpdt
from dpdt._runner import RUNNER, run
from policy import DEFAULT_DATA, causal_sets

SIZES = (100, 1_000, 5_000)
DEPTHS = (2, 3, 5)
N_FEATURES = 10
N_ACTIONS = 3
BOOSTING_ROUNDS = 20
CAUSAL_DEPTHS = (2, 3, 4, 5, 6)


def _econml_tree(depth):
    from econml.policy import PolicyTree

    return PolicyTree(max_depth=depth, honest=False, min_samples_split=2, min_samples_leaf=1,
                      random_state=0)


def _data(n, seed=0):
    """Features, class labels, a regression target and rewards, with structure to find."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, N_FEATURES))
    signal = X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3]
    y = (signal + 0.2 * rng.normal(size=n) > 0.6).astype(int)
    target = signal + 0.1 * rng.normal(size=n)
    rewards = rng.normal(size=(n, N_ACTIONS))
    rewards[:, 1] += X[:, 0] > 0.5
    rewards[:, 2] += 1.5 * (X[:, 1] > 0.7)
    return X, {"classes": y, "target": target, "rewards": rewards}


# (estimator, what it fits, depths, dpdt's model, the baseline's model or None)
def _cases():
    exact = dict(splitter="exhaustive", full_front=False)
    return [
        ("classifier", "classes", DEPTHS, lambda d: dpdt.DPDTreeClassifier(max_depth=d),
         lambda d: DecisionTreeClassifier(max_depth=d, random_state=0)),
        ("classifier exhaustive", "classes", (2,),
         lambda d: dpdt.DPDTreeClassifier(max_depth=d, **exact),
         lambda d: DecisionTreeClassifier(max_depth=d, random_state=0)),
        ("regressor", "target", DEPTHS, lambda d: dpdt.DPDTreeRegressor(max_depth=d),
         lambda d: DecisionTreeRegressor(max_depth=d, random_state=0)),
        ("policy", "rewards", DEPTHS, lambda d: dpdt.DPDTreePolicy(max_depth=d), _econml_tree),
        ("policy exhaustive", "rewards", (2,), lambda d: dpdt.DPDTreePolicy(max_depth=d, **exact),
         _econml_tree),
        ("boosting", "classes", (3,),
         lambda d: dpdt.DPDTGradientBoostingClassifier(n_estimators=BOOSTING_ROUNDS,
                                                       max_depth=d, random_state=0),
         lambda d: HistGradientBoostingClassifier(max_iter=BOOSTING_ROUNDS, max_depth=d,
                                                  early_stopping=False, random_state=0)),
    ]


@contextmanager
def _core_timer(spent):
    """Add the seconds of every core call made in the block to ``spent[0]``."""
    def runner(name, args, params, arguments):
        start = time.perf_counter()
        try:
            return run(name, args, params, arguments)
        finally:
            spent[0] += time.perf_counter() - start

    token = RUNNER.set(runner)
    try:
        yield
    finally:
        RUNNER.reset(token)


def timed(make, X, y, repeats):
    """Return the median wall and CPU seconds of ``make().fit(X, y)``, and the core's share.

    One untimed fit first (imports, caches); None if the model cannot be made (ImportError).
    """
    try:
        make().fit(X, y)
    except ImportError:
        return None
    walls, cpus, cores = [], [], []
    for _ in range(repeats):
        model, spent = make(), [0.0]
        with _core_timer(spent):
            start, cpu = time.perf_counter(), time.process_time()
            model.fit(X, y)
            cpus.append(time.process_time() - cpu)
            walls.append(time.perf_counter() - start)
        cores.append(spent[0] / walls[-1])
    return statistics.median(walls), statistics.median(cpus), statistics.median(cores)


def _ms(seconds):
    return f"{1e3 * seconds:.2f}"


def section_sizes(repeats, out):
    """The table of every estimator, size and depth against its baseline; return the ratios."""
    print("\n### Fit time on small data (ms, median of "
          f"{repeats}; one thread)\n", file=out)
    print("| estimator | rows | depth | dpdt wall | dpdt cpu | core share | baseline wall | "
          "baseline cpu | wall ratio | cpu ratio |", file=out)
    print("|---|---|---|---|---|---|---|---|---|---|", file=out)
    data = {n: _data(n) for n in SIZES}
    ratios = {}
    for name, target, depths, make, baseline in _cases():
        for n in SIZES:
            X, targets = data[n]
            for depth in depths:
                ours = timed(partial(make, depth), X, targets[target], repeats)
                theirs = timed(partial(baseline, depth), X, targets[target], repeats)
                row = [name, n, depth, _ms(ours[0]), _ms(ours[1]), f"{ours[2]:.0%}"]
                if theirs is None:
                    row += ["n/a", "n/a", "", ""]
                else:
                    ratios.setdefault(name, []).append(ours[0] / theirs[0])
                    row += [_ms(theirs[0]), _ms(theirs[1]), f"{ours[0] / theirs[0]:.1f}",
                            f"{ours[1] / theirs[1]:.1f}"]
                print("| " + " | ".join(str(v) for v in row) + " |", file=out, flush=True)
    print("\nMedian wall ratio to the baseline: " + ", ".join(
        f"{name} {statistics.median(r):.1f}" for name, r in ratios.items()), file=out)
    return ratios


def section_causal(data_dir, repeats, out):
    """dpdt's policy trees against econml's on the causal sets; return the ratios by depth."""
    try:
        _econml_tree(2)
    except ImportError:
        print("\n(causal sets: econml is not installed)", file=out)
        return {}
    sets = causal_sets(data_dir)
    if not sets:
        print(f"\n(no causal sets in {data_dir})", file=out)
        return {}
    print(f"\n### Policy trees on the {len(sets)} causal sets of {data_dir} (ms, median of "
          f"{repeats}; one thread)\n", file=out)
    print("| set | rows | depth | dpdt wall | core share | econml wall | wall ratio |", file=out)
    print("|---|---|---|---|---|---|---|", file=out)
    ratios = {depth: [] for depth in CAUSAL_DEPTHS}
    for data in sets:
        for depth in CAUSAL_DEPTHS:
            ours = timed(partial(dpdt.DPDTreePolicy, max_depth=depth), data.X, data.rewards,
                         repeats)
            theirs = timed(partial(_econml_tree, depth), data.X, data.rewards, repeats)
            ratios[depth].append(ours[0] / theirs[0])
            print(f"| {data.name} | {len(data.X)} | {depth} | {_ms(ours[0])} | {ours[2]:.0%} | "
                  f"{_ms(theirs[0])} | {ours[0] / theirs[0]:.1f} |", file=out, flush=True)
    print("\nMedian wall ratio dpdt / econml: " + ", ".join(
        f"depth {depth} {statistics.median(r):.2f}" for depth, r in ratios.items() if r)
        + f"; all {statistics.median([v for r in ratios.values() for v in r]):.2f}", file=out)
    return ratios


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--causal", action="store_true",
                        help="add the causal sets of the wide corpus (policy trees)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--no-sizes", dest="sizes", action="store_false",
                        help="skip the synthetic sizes' table")
    args = parser.parse_args(argv)
    out = sys.stdout
    with threadpool_limits(limits=1), warnings.catch_warnings():
        # Limits (max_states on the bounded search) warn on every fit; the times are the point.
        warnings.simplefilter("ignore")
        if args.sizes:
            section_sizes(args.repeats, out)
        if args.causal:
            section_causal(args.data, args.repeats, out)


if __name__ == "__main__":
    main()
