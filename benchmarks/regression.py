"""DPDT against scikit-learn's CART on the bundled regression benchmarks (the paper's Table 5).

For each regression dataset and depths 3 and 5, report the train and test R² of DPDT (estimator
defaults, alpha 0) and of ``DecisionTreeRegressor(max_depth=d)``, and the median fit time of both.
R² of a multi-output dataset (carbon) is the uniform average over outputs, as ``score`` gives it.

The given test sets are small (qsar has 110 rows), and one split's test R² moves by several
hundredths with the split. So the test R² is also averaged over ``--resplits`` random splits of
the pooled train and test rows, each with the given test fraction, both learners on the same
splits: the comparison of the two learners' generalisation rests on that mean.

Run ``python benchmarks/regression.py [--repeats N] [--resplits N] [--datasets carbon fish ...]``.
Prints one markdown table and one line per target; timings are never asserted.
"""

import argparse
import statistics

import numpy as np
from sklearn.model_selection import ShuffleSplit
from sklearn.tree import DecisionTreeRegressor

import dpdt
from _common import median_fit_seconds, progress, verdict
from dpdt import DPDTreeRegressor, datasets

DEPTHS = (3, 5)


def resplit_test_r2(data, depth, resplits):
    """Mean test R² of DPDT and CART over random splits of the pooled rows.

    Parameters
    ----------
    data : Bunch
        A dataset from :func:`dpdt.datasets.load`.
    depth : int
        Maximum depth of both learners.
    resplits : int
        Number of random splits (seeded, the same for both learners).

    Returns
    -------
    dpdt_mean, cart_mean : float
        Mean test R² of each learner.
    """
    X = np.concatenate([data.X_train, data.X_test])
    y = np.concatenate([data.y_train, data.y_test])
    splits = ShuffleSplit(resplits, test_size=len(data.X_test) / len(X), random_state=0)
    dp, sk = [], []
    for train, test in splits.split(X):
        dp.append(DPDTreeRegressor(max_depth=depth).fit(X[train], y[train]).score(X[test], y[test]))
        cart = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X[train], y[train])
        sk.append(cart.score(X[test], y[test]))
    return statistics.fmean(dp), statistics.fmean(sk)


def run(names, depths, repeats, resplits=20):
    """Fit DPDT and CART on every dataset at every depth.

    Parameters
    ----------
    names : list of str
        Regression datasets from :func:`dpdt.datasets.list_datasets`.
    depths : sequence of int
        Maximum depths of both learners.
    repeats : int
        Number of timed fits per model; the median is reported.
    resplits : int, default=20
        Random splits for the averaged test R²; 0 skips them.

    Returns
    -------
    rows : list of dict
        One row per (dataset, depth).
    """
    rows = []
    for name in progress(names, "regression"):
        data = datasets.load(name)
        X, y = data.X_train, data.y_train
        for depth in depths:
            dp, dp_seconds = median_fit_seconds(
                lambda depth=depth: DPDTreeRegressor(max_depth=depth), X, y, repeats
            )
            sk, sk_seconds = median_fit_seconds(
                lambda depth=depth: DecisionTreeRegressor(max_depth=depth, random_state=0),
                X,
                y,
                repeats,
            )
            resplit = resplit_test_r2(data, depth, resplits) if resplits else (np.nan, np.nan)
            rows.append(
                dict(
                    dataset=name,
                    n=X.shape[0],
                    p=X.shape[1],
                    outputs=1 if y.ndim == 1 else y.shape[1],
                    depth=depth,
                    dpdt_train=dp.score(X, y),
                    cart_train=sk.score(X, y),
                    dpdt_test=dp.score(data.X_test, data.y_test),
                    cart_test=sk.score(data.X_test, data.y_test),
                    dpdt_resplit=resplit[0],
                    cart_resplit=resplit[1],
                    dpdt_seconds=dp_seconds,
                    cart_seconds=sk_seconds,
                )
            )
    return rows


def _markdown_table(rows):
    header = (
        "| dataset | n | p | outputs | depth | DPDT train R² | CART train R² "
        "| DPDT test R² | CART test R² | DPDT resplit test R² | CART resplit test R² "
        "| DPDT fit (s) | CART fit (s) |"
    )
    lines = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['n']} | {r['p']} | {r['outputs']} | {r['depth']} "
            f"| {r['dpdt_train']:.4f} | {r['cart_train']:.4f} "
            f"| {r['dpdt_test']:.4f} | {r['cart_test']:.4f} "
            f"| {r['dpdt_resplit']:.4f} | {r['cart_resplit']:.4f} "
            f"| {r['dpdt_seconds']:.4f} | {r['cart_seconds']:.4f} |"
        )
    return "\n".join(lines)


def summarise(rows):
    """Return one line per target, each ending in PASS or FAIL with the offenders.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run`.

    Returns
    -------
    lines : list of str
        Human-readable verdicts.
    """
    lines = []
    bad = [
        f"{r['dataset']} d{r['depth']} {r['dpdt_train']:.4f} < {r['cart_train']:.4f}"
        for r in rows
        if r["dpdt_train"] < r["cart_train"]
    ]
    lines.append("DPDT train R² >= CART's on every dataset and depth: " + verdict(not bad, bad))
    if rows:
        dp = statistics.fmean(r["dpdt_test"] for r in rows)
        sk = statistics.fmean(r["cart_test"] for r in rows)
        per_depth = ", ".join(
            f"depth {d}: {statistics.fmean(r['dpdt_test'] for r in rows if r['depth'] == d):.4f}"
            f" vs {statistics.fmean(r['cart_test'] for r in rows if r['depth'] == d):.4f}"
            for d in sorted({r["depth"] for r in rows})
        )
        lines.append(
            f"mean test R² on the given splits DPDT {dp:.4f} >= CART {sk:.4f} ({per_depth}): "
            + verdict(dp >= sk, [f"{dp - sk:+.4f}"])
        )
        if not np.isnan(rows[0]["dpdt_resplit"]):
            dp = statistics.fmean(r["dpdt_resplit"] for r in rows)
            sk = statistics.fmean(r["cart_resplit"] for r in rows)
            lines.append(
                f"mean test R² over random resplits DPDT {dp:.4f} >= CART {sk:.4f}: "
                + verdict(dp >= sk, [f"{dp - sk:+.4f}"])
            )
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
    names = datasets.list_datasets("regression")
    parser = argparse.ArgumentParser(
        prog="regression",
        description="Train/test R² and fit time of DPDT vs scikit-learn CART on the bundled "
        "regression benchmarks.",
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed fits per model (median reported)"
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        choices=names,
        default=names,
        metavar="NAME",
        help=f"datasets to run (default: all of {', '.join(names)})",
    )
    parser.add_argument(
        "--depths",
        nargs="+",
        type=int,
        default=list(DEPTHS),
        metavar="D",
        help="maximum depths (default: 3 5)",
    )
    parser.add_argument(
        "--resplits",
        type=int,
        default=20,
        help="random train/test splits for the averaged test R² (default: 20; 0 skips them)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    if args.resplits < 0:
        parser.error("--resplits must be >= 0")
    if min(args.depths) < 1:
        parser.error("--depths must be >= 1")

    rows = run(args.datasets, args.depths, args.repeats, args.resplits)
    print(
        f"dpdt {getattr(dpdt, '__version__', '?')}: DPDTreeRegressor defaults "
        f"(candidates={DPDTreeRegressor().candidates}, alpha 0) vs "
        f"DecisionTreeRegressor(max_depth=d, random_state=0); median of {args.repeats} fits; "
        f"resplit test R²: mean over {args.resplits} random splits of train + test\n"
    )
    print(_markdown_table(rows))
    print("\n### targets\n")
    for line in summarise(rows):
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
