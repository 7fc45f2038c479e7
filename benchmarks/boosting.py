"""Gradient boosting with DPDT trees against the usual boosting libraries.

On each bundled classification dataset, every method fits ``--n-estimators`` trees (150 by
default) of depth 3 with learning rate 0.1 on the train split and is scored on the test split:
DPDT boosting with candidate budgets (3, 3, 3) and (7, 7, 7), scikit-learn's
GradientBoostingClassifier and HistGradientBoostingClassifier (no early stopping), XGBoost and
LightGBM. Every other parameter keeps its library's default (DPDT, HGB and LightGBM all search
histograms of at most 255 bins per feature); every method runs on ``--n-jobs``
threads (1 by default, so that fit times compare the algorithms, not the thread pools).
XGBoost and LightGBM are optional: a column is skipped, with a note, when its import fails.

Run ``python benchmarks/boosting.py [--datasets bank wilt ...] [--n-estimators N]``.
Prints one markdown table and summary lines; timings are never asserted.
"""

import argparse
import statistics
import sys
import time

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

import dpdt
from _common import progress
from dpdt import DPDTGradientBoostingClassifier, datasets

DEPTH = 3
LEARNING_RATE = 0.1
DPDT_METHODS = ("DPDT (3,3,3)", "DPDT (7,7,7)")
REFERENCE = "LightGBM"          # the fit-time yardstick
MAX_RATIO_TO_REFERENCE = 10.0


def _dpdt(candidates):
    def make(n_estimators, n_jobs):
        return DPDTGradientBoostingClassifier(
            n_estimators=n_estimators, learning_rate=LEARNING_RATE, max_depth=DEPTH,
            candidates=candidates, n_jobs=n_jobs, random_state=0)
    return make


def _sklearn_gb(n_estimators, n_jobs):
    return GradientBoostingClassifier(n_estimators=n_estimators, learning_rate=LEARNING_RATE,
                                      max_depth=DEPTH, random_state=0)


def _sklearn_hgb(n_estimators, n_jobs):
    # HistGradientBoosting threads through OpenMP; threadpoolctl limits it in run().
    return HistGradientBoostingClassifier(max_iter=n_estimators, learning_rate=LEARNING_RATE,
                                          max_depth=DEPTH, early_stopping=False, random_state=0)


def _xgboost(n_estimators, n_jobs):
    from xgboost import XGBClassifier

    return XGBClassifier(n_estimators=n_estimators, learning_rate=LEARNING_RATE,
                         max_depth=DEPTH, n_jobs=n_jobs, random_state=0)


def _lightgbm(n_estimators, n_jobs):
    from lightgbm import LGBMClassifier

    # num_leaves=2**DEPTH: the depth limit, not LightGBM's leaf budget, shapes the trees.
    return LGBMClassifier(n_estimators=n_estimators, learning_rate=LEARNING_RATE,
                          max_depth=DEPTH, num_leaves=2**DEPTH, n_jobs=n_jobs, random_state=0,
                          verbose=-1)


METHODS = {
    "DPDT (3,3,3)": _dpdt((3, 3, 3)),
    "DPDT (7,7,7)": _dpdt((7, 7, 7)),
    "sklearn GB": _sklearn_gb,
    "sklearn HGB": _sklearn_hgb,
    "XGBoost": _xgboost,
    "LightGBM": _lightgbm,
}
OPTIONAL_IMPORTS = {"XGBoost": "xgboost", "LightGBM": "lightgbm"}


def available_methods():
    """The methods that can run here, and a note for each one skipped.

    Returns
    -------
    methods : list of str
        Names from :data:`METHODS` whose library imports.
    notes : list of str
        Why each other method was skipped.
    """
    methods, notes = [], []
    for name in METHODS:
        module = OPTIONAL_IMPORTS.get(name)
        if module is not None:
            try:
                __import__(module)
            except ImportError as exc:   # an optional benchmark extra, not a dpdt dependency
                notes.append(f"{name} skipped: cannot import {module} ({exc})")
                continue
        methods.append(name)
    return methods, notes


def run(names, methods, n_estimators, n_jobs):
    """Fit and score every method on every dataset.

    Parameters
    ----------
    names : list of str
        Classification datasets from :func:`dpdt.datasets.list_datasets`.
    methods : list of str
        Keys of :data:`METHODS`.
    n_estimators : int
        Boosting rounds of every method.
    n_jobs : int
        Threads given to every method.

    Returns
    -------
    rows : list of dict
        One row per (dataset, method) with the test accuracy and the fit seconds.
    """
    from threadpoolctl import threadpool_limits

    rows = []
    for name in progress(names, "boosting"):
        data = datasets.load(name)
        # Labels as 0..K-1 (XGBoost requires it), one encoding for train and test.
        classes, codes = np.unique(np.concatenate([data.y_train, data.y_test]),
                                   return_inverse=True)
        y_train, y_test = codes[: len(data.y_train)], codes[len(data.y_train):]
        X_train = np.ascontiguousarray(data.X_train, dtype=np.float64)
        X_test = np.ascontiguousarray(data.X_test, dtype=np.float64)
        for method in methods:
            model = METHODS[method](n_estimators, n_jobs)
            with threadpool_limits(limits=n_jobs):
                start = time.perf_counter()
                model.fit(X_train, y_train)
                seconds = time.perf_counter() - start
            accuracy = float(np.mean(model.predict(X_test) == y_test))
            rows.append(dict(dataset=name, method=method, n=X_train.shape[0],
                             p=X_train.shape[1], K=len(classes), accuracy=accuracy,
                             seconds=seconds))
            print(f"  {name:<10} {method:<13} test acc {accuracy:.4f}  fit {seconds:7.2f} s",
                  file=sys.stderr, flush=True)
    return rows


def markdown_table(rows, methods):
    """One line per dataset, one "test accuracy / fit seconds" cell per method, then the means.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run`.
    methods : list of str
        The methods, in column order.

    Returns
    -------
    table : str
        The markdown table.
    """
    cell = {(r["dataset"], r["method"]): r for r in rows}
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    lines = ["| dataset | n | p | K | " + " | ".join(methods) + " |",
             "|---|---:|---:|---:|" + "---:|" * len(methods)]
    for name in names:
        first = cell[(name, methods[0])]
        cells = [f"{cell[(name, m)]['accuracy']:.4f} / {cell[(name, m)]['seconds']:.2f}s"
                 for m in methods]
        lines.append(f"| {name} | {first['n']} | {first['p']} | {first['K']} | "
                     + " | ".join(cells) + " |")
    means = [f"**{statistics.fmean(cell[(n, m)]['accuracy'] for n in names):.4f}** / "
             f"{sum(cell[(n, m)]['seconds'] for n in names):.2f}s total" for m in methods]
    lines.append("| **mean acc / total fit** | | | | " + " | ".join(means) + " |")
    return "\n".join(lines)


def summarise(rows, methods):
    """Summary lines: mean test accuracy per method, then one verdict line per target.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run`.
    methods : list of str
        The methods that ran.

    Returns
    -------
    lines : list of str
        Human-readable lines; targets end in PASS or FAIL with the offenders.
    """
    names = list(dict.fromkeys(r["dataset"] for r in rows))
    acc = {m: statistics.fmean(r["accuracy"] for r in rows if r["method"] == m) for m in methods}
    secs = {m: {r["dataset"]: r["seconds"] for r in rows if r["method"] == m} for m in methods}
    lines = ["mean test accuracy: " + ", ".join(f"{m} {acc[m]:.4f}" for m in methods)]
    competitors = [m for m in methods if m not in DPDT_METHODS]
    for d in (m for m in DPDT_METHODS if m in methods):
        better = [f"{c} {acc[c]:.4f}" for c in competitors if acc[c] > acc[d]]
        lines.append(f"{d} mean test accuracy {acc[d]:.4f} >= every competitor: "
                     + ("PASS" if not better else "FAIL (" + ", ".join(better) + ")"))
    if REFERENCE not in methods:
        lines.append(f"fit time vs {REFERENCE}: not measured ({REFERENCE} skipped)")
        return lines
    ref_total = sum(secs[REFERENCE].values())
    for d in (m for m in DPDT_METHODS if m in methods):
        ratios = {n: secs[d][n] / secs[REFERENCE][n] for n in names}
        total = sum(secs[d].values()) / ref_total
        worst = max(ratios, key=ratios.get)
        lines.append(
            f"{d} fit time {total:.1f}x {REFERENCE}'s over all datasets (per dataset "
            f"{min(ratios.values()):.1f}x to {ratios[worst]:.1f}x, worst {worst}) "
            f"<= {MAX_RATIO_TO_REFERENCE:.0f}x: "
            + ("PASS" if total <= MAX_RATIO_TO_REFERENCE else f"FAIL ({total:.1f}x)"))
    return lines


def main(argv=None):
    """Run the benchmark from the command line.

    Parameters
    ----------
    argv : list of str or None, default=None
        Command-line arguments; None reads ``sys.argv``.

    Returns
    -------
    status : int
        Always 0: targets are reported, not enforced.
    """
    names = datasets.list_datasets("classification")
    parser = argparse.ArgumentParser(
        prog="boosting",
        description="Test accuracy and fit time of DPDT boosting against boosting libraries.",
    )
    parser.add_argument("--datasets", nargs="+", choices=names, default=names, metavar="NAME",
                        help=f"datasets to run (default: all of {', '.join(names)})")
    parser.add_argument("--n-estimators", type=int, default=150,
                        help="boosting rounds of every method (default: 150)")
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="threads given to every method (default: 1)")
    args = parser.parse_args(argv)
    if args.n_estimators < 1:
        parser.error("--n-estimators must be >= 1")
    if args.n_jobs < 1:
        parser.error("--n-jobs must be >= 1")

    methods, notes = available_methods()
    print(f"dpdt {getattr(dpdt, '__version__', '?')}: {args.n_estimators} trees of depth {DEPTH}, "
          f"learning rate {LEARNING_RATE}, {args.n_jobs} thread(s) per method; "
          "fit on X_train, accuracy on X_test\n")
    for note in notes:
        print(f"- note: {note}")
    rows = run(args.datasets, methods, args.n_estimators, args.n_jobs)
    print("\ncell = test accuracy / fit seconds\n")
    print(markdown_table(rows, methods))
    print()
    for line in summarise(rows, methods):
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
