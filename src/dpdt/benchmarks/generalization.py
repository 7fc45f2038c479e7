"""Generalisation of the tree chosen on the Pareto front (issue 8).

On the eight bundled classification datasets, in their given train/test split, at depth limits
3, 4 and 5, every method chooses its tree by 5-fold cross-validation on the train split only and
is then measured once on the test split:

- DPDT-CV: ``DPDTreeClassifierCV(max_depth=d)`` with the default candidates; alpha chosen over
  the pooled breakpoints of the folds' Pareto fronts (6 fits per dataset and depth limit);
- CART-CV: scikit-learn's CART, ``max_depth`` in 1..d and ``ccp_alpha`` on the pruning path of
  the train split at that depth, by ``GridSearchCV`` (5 folds, simplest candidates first, so
  ties go to the smaller tree as in DPDT-CV);
- Top-k: ``DPDTreeClassifierCV(max_depth=d, splitter="topk", candidates=8)`` (Blanc et al.'s
  Top-k, k = 8 at every depth), the same alpha selection;
- STreeD (optional, ``pip install pystreed``): the optimal tree of depth d for accuracy on its
  own binarisation (5 quantile thresholds per feature), 60 s time limit per fit, no pruning.

Columns: test accuracy, number of leaves, expected tests per test sample (mean number of split
nodes a test sample goes through) and total seconds (the whole selection: every CV fit and the
refit). Verdicts, per depth limit: DPDT-CV mean test accuracy above CART-CV's; DPDT-CV at least
as accurate as CART-CV with fewer expected tests on a majority of datasets; and overall, the whole
DPDT-CV column costs less time than STreeD's. Timings are reported, never asserted.

Run ``python benchmarks/generalization.py [--depths 3 4 5] [--datasets bank wilt ...]
[--no-streed]``.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from dpdt import DPDTreeClassifierCV, datasets

from ._common import progress, verdict

FOLDS = 5
STREED_TIME_LIMIT = 60.0


def _expected_tests(path_indicator):
    """Mean number of split nodes per sample: nodes on its path minus its leaf."""
    return float(np.asarray(path_indicator.sum(axis=1)).mean() - 1.0)


def _dpdt_cv(depth, **params):
    def run(X, y, X_test):
        model = DPDTreeClassifierCV(max_depth=depth, cv=FOLDS, **params).fit(X, y)
        return model, model.get_n_leaves(), _expected_tests(model.decision_path(X_test))
    return run


def _cart_cv(depth):
    def run(X, y, X_test):
        # One grid per depth with that depth's own pruning path; simplest candidates first
        # (GridSearchCV keeps the first of equal scores).
        grid = []
        for max_depth in range(1, depth + 1):
            path = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
            alphas = path.cost_complexity_pruning_path(X, y).ccp_alphas
            grid.append({"max_depth": [max_depth], "ccp_alpha": sorted(alphas, reverse=True)})
        search = GridSearchCV(DecisionTreeClassifier(random_state=0), grid,
                              cv=StratifiedKFold(FOLDS)).fit(X, y)
        tree = search.best_estimator_
        return search, tree.get_n_leaves(), _expected_tests(tree.decision_path(X_test))
    return run


def _streed_tests(model, X):
    """Mean number of split nodes a sample goes through, walking STreeD's binary tree."""
    Xb = np.asarray(model._binarize_data(X, reset=False), dtype=bool)
    total, stack = 0, [(model.get_tree(), np.arange(len(Xb)))]
    while stack:
        node, rows = stack.pop()
        if node.is_leaf_node() or rows.size == 0:
            continue
        total += rows.size
        right = Xb[rows, node.feature]
        stack += [(node.left_child, rows[~right]), (node.right_child, rows[right])]
    return total / len(Xb)


def _streed(depth):
    from pystreed import STreeDClassifier

    def run(X, y, X_test):
        model = STreeDClassifier(max_depth=depth, time_limit=STREED_TIME_LIMIT,
                                 cost_complexity=0.0).fit(X, y)
        return model, model.get_n_leaves(), _streed_tests(model, X_test)
    return run


def _methods(depth, streed):
    methods = {
        "DPDT-CV": _dpdt_cv(depth),
        "CART-CV": _cart_cv(depth),
        "Top-k k=8": _dpdt_cv(depth, splitter="topk", candidates=8),
    }
    if streed:
        methods["STreeD"] = _streed(depth)
    return methods


def run(names, depths, streed):
    """Fit and measure every method on every dataset and depth limit.

    Returns
    -------
    rows : list of dict
        One row per (depth, dataset) with, per method, ``accuracy``, ``leaves``, ``tests`` and
        ``seconds``.
    """
    rows = []
    for depth in depths:
        for name in progress(names, f"depth {depth}"):
            data = datasets.load(name)
            row = dict(depth=depth, dataset=name)
            for method, fit in _methods(depth, streed).items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # classes with < 5 members in some folds
                    model, leaves, tests = fit(data.X_train, data.y_train, data.X_test)
                seconds = time.perf_counter() - start
                row[method] = dict(accuracy=model.score(data.X_test, data.y_test),
                                   leaves=int(leaves), tests=tests, seconds=seconds)
                print(f"  depth {depth} {name:10s} {method:10s} "
                      f"acc {row[method]['accuracy']:.4f} leaves {leaves:3d} "
                      f"tests {tests:.2f} {seconds:6.2f} s", flush=True)
            rows.append(row)
    return rows


def report(rows, methods):
    """Print the markdown table and the verdicts."""
    head = "| depth | dataset | " + " | ".join(
        f"{m} acc | {m} leaves | {m} tests | {m} s" for m in methods) + " |"
    print(head)
    print("|" + "---|" * (2 + 4 * len(methods)))
    for row in rows:
        cells = [str(row["depth"]), row["dataset"]]
        for m in methods:
            r = row[m]
            cells += [f"{r['accuracy']:.4f}", str(r["leaves"]), f"{r['tests']:.2f}",
                      f"{r['seconds']:.2f}"]
        print("| " + " | ".join(cells) + " |")
    for depth in sorted({row["depth"] for row in rows}):
        at = [row for row in rows if row["depth"] == depth]
        means = {m: np.mean([row[m]["accuracy"] for row in at]) for m in methods}
        print(f"| {depth} | **mean** | " + " | ".join(
            f"{means[m]:.4f} | {np.mean([row[m]['leaves'] for row in at]):.1f} | "
            f"{np.mean([row[m]['tests'] for row in at]):.2f} | "
            f"{sum(row[m]['seconds'] for row in at):.1f}" for m in methods) + " |")

    print()
    for depth in sorted({row["depth"] for row in rows}):
        at = [row for row in rows if row["depth"] == depth]
        dpdt, cart = (np.mean([row[m]["accuracy"] for row in at]) for m in ("DPDT-CV", "CART-CV"))
        print(f"depth {depth}: DPDT-CV mean test accuracy {dpdt:.4f} > CART-CV {cart:.4f}: "
              + verdict(dpdt > cart, [f"{dpdt - cart:+.4f}"]))
        better = [row["dataset"] for row in at
                  if row["DPDT-CV"]["accuracy"] >= row["CART-CV"]["accuracy"]
                  and row["DPDT-CV"]["tests"] < row["CART-CV"]["tests"]]
        others = [row["dataset"] for row in at if row["dataset"] not in better]
        print(f"depth {depth}: DPDT-CV as accurate with fewer expected tests than CART-CV on "
              f"{len(better)}/{len(at)} datasets ({', '.join(better) or 'none'}): "
              + verdict(2 * len(better) > len(at), others))
    if "STreeD" in methods:
        total = {m: sum(row[m]["seconds"] for row in rows) for m in ("DPDT-CV", "STreeD")}
        print(f"time: DPDT-CV column {total['DPDT-CV']:.1f} s < STreeD column "
              f"{total['STreeD']:.1f} s: "
              + verdict(total["DPDT-CV"] < total["STreeD"], [f"{total['DPDT-CV']:.1f} s"]))
    else:
        print("time: STreeD not run (pip install pystreed, or drop --no-streed): n/a")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--datasets", nargs="+", default=datasets.list_datasets("classification"))
    parser.add_argument("--no-streed", action="store_true", help="skip the optional STreeD column")
    args = parser.parse_args(argv)
    streed = not args.no_streed
    if streed:
        try:
            import pystreed  # noqa: F401
        except ImportError:
            print("pystreed is not installed: the STreeD column is skipped")
            streed = False
    rows = run(args.datasets, args.depths, streed)
    report(rows, list(_methods(args.depths[0], streed)))


if __name__ == "__main__":
    main()
