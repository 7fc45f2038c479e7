"""Table 1 of the DPDT paper (Kohler, Akrour and Preux, KDD 2025) on the bundled datasets.

Depth 3, alpha 0, on the train split of the eight classification datasets: train accuracy,
operations and fit seconds of

- CART: scikit-learn's ``DecisionTreeClassifier(max_depth=3)``;
- DPDT light / full: the CART split generator with budgets (7, 1, 1) / (7, 7, 7);
- Top-B light / full: the B (feature, threshold) pairs of highest impurity decrease, same budgets;
- Top-k, k = 4 and 8 (Blanc et al., NeurIPS 2023): the k best features, each at its best
  threshold, at every depth;

against the proven optimal depth-3 accuracy (Quant-BnB), bundled with the datasets.

Operations are the candidate splits the generators offered (``stats_["candidates"]``; the last
level, searched exactly, is not counted); for CART, the number of splits it chose (one greedy
split search per internal node). Run ``python benchmarks/table1.py [--repeats N] [--datasets
bank wilt ...]``; timings are reported, never asserted.

The exhaustive solver is dpdt's ``splitter="exhaustive", full_front=False`` (branch and bound
for the tree of one alpha), one thread, fitted once per dataset under ``--exhaustive-limit``
seconds: its accuracy, whether it certified optimality (``is_optimal_``), its seconds and their
ratio to Quant-BnB's published time for the same proven optimum (``QUANT_BNB_SECONDS``). A
last section runs it at depth 4 on ``--depth4`` datasets (default bank and raisin).

Second table (``--table 2``): depth 4 and 5 on the binary CP4IM datasets of
``data/binary`` (the DL8.5 / MurTree / Top-k benchmark), train accuracy on the whole set,
5-fold test accuracy (``StratifiedKFold(shuffle=True, random_state=0)``, mean) and fit seconds
of the whole-set fit for

- CART: scikit-learn's ``DecisionTreeClassifier(max_depth=d)``;
- Top-k, k = 8 at every depth;
- DPDT: the CART generator with the default budgets;
- exhaustive: dpdt's ``splitter="exhaustive"`` under ``--time-limit`` seconds, with whether it
  certified optimality (``is_optimal_``);
- STreeD: pystreed's ``STreeDClassifier`` (accuracy objective, no complexity penalty) under the
  same time limit, the external optimal reference (``bench`` extra; "n/a" when missing).

``--quick`` runs depth 4 on four small datasets with a 10 s limit (about 10 s). Six fits per
(method, dataset, depth) and the exhaustive solver hitting its limit on about half the sets make
the default run long: depth 4 on all 18 sets with ``--time-limit 10`` took 11.5 min on 2 cores,
so the default (depths 4 and 5, 60 s) should be expected to take a few hours.
"""

import argparse
import contextlib
import io
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

import dpdt
from _common import median_fit_seconds, progress
from dpdt import DPDTreeClassifier, datasets

DEPTH = 3

# Column -> estimator parameters (None: scikit-learn's CART).
METHODS = {
    "CART": None,
    "DPDT light": dict(splitter="cart", candidates=(7, 1, 1)),
    "DPDT full": dict(splitter="cart", candidates=(7, 7, 7)),
    "Top-B light": dict(splitter="topb", candidates=(7, 1, 1)),
    "Top-B full": dict(splitter="topb", candidates=(7, 7, 7)),
    "Top-k k=4": dict(splitter="topk", candidates=(4, 4, 4)),
    "Top-k k=8": dict(splitter="topk", candidates=(8, 8, 8)),
}
# Pairs compared at equal budget in the summary.
EQUAL_BUDGET = (("DPDT light", "Top-B light"), ("DPDT full", "Top-B full"))
# Quant-BnB's published seconds for the proven depth-3 optima (none published for fault).
QUANT_BNB_SECONDS = dict(bank=4.4, occupancy=106, page=471, raisin=167, rice=1340, segment=153,
                         wilt=67)
DEPTH4_DATASETS = ("bank", "raisin")


def fit_exhaustive(X, y, depth, time_limit):
    """Fit the bounded exhaustive solver once on one thread; return (model, seconds)."""
    model = DPDTreeClassifier(max_depth=depth, splitter="exhaustive", full_front=False,
                              max_bins=None, time_limit=time_limit, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(X, y)
    return model, time.perf_counter() - start


def run_exhaustive(names, depth, time_limit):
    """The exhaustive solver on the train split of each dataset.

    Parameters
    ----------
    names : list of str
        Classification datasets from :func:`dpdt.datasets.list_datasets`.
    depth : int
        Maximum depth.
    time_limit : float
        Seconds allowed per fit.

    Returns
    -------
    results : dict
        Per dataset: train ``accuracy``, ``certified`` and ``seconds``.
    """
    results = {}
    for name in progress(names, f"exhaustive depth {depth}"):
        data = datasets.load(name)
        model, seconds = fit_exhaustive(data.X_train, data.y_train, depth, time_limit)
        results[name] = dict(accuracy=model.score(data.X_train, data.y_train),
                             certified=bool(model.is_optimal_), seconds=seconds)
    return results


def summarise_exhaustive(rows, exhaustive):
    """Verdict lines: proven optima reproduced and certified, speed against Quant-BnB.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run` (for the proven optima).
    exhaustive : dict
        Output of :func:`run_exhaustive` at depth 3.

    Returns
    -------
    lines : list of str
        Human-readable counts.
    """
    reproduced = [r["dataset"] for r in rows
                  if exhaustive[r["dataset"]]["certified"]
                  and round(exhaustive[r["dataset"]]["accuracy"], 3) == r["optimum"]]
    timed = [name for name in exhaustive if name in QUANT_BNB_SECONDS]
    faster = [name for name in timed if exhaustive[name]["certified"]
              and exhaustive[name]["seconds"] < QUANT_BNB_SECONDS[name]]
    return [
        f"exhaustive solver: proven optimum reproduced and certified on "
        f"{len(reproduced)}/{len(rows)} datasets",
        f"exhaustive solver: faster than Quant-BnB's published time on {len(faster)}/{len(timed)} "
        f"datasets with a published time ({', '.join(faster)})",
    ]


def _make(params):
    if params is None:
        return DecisionTreeClassifier(max_depth=DEPTH, random_state=0)
    return DPDTreeClassifier(max_depth=DEPTH, alpha=0.0, **params)


def _operations(model):
    if isinstance(model, DecisionTreeClassifier):
        return int(model.tree_.node_count - model.tree_.n_leaves)
    return int(model.stats_["candidates"])


def run(names, repeats):
    """Fit every method on every dataset.

    Parameters
    ----------
    names : list of str
        Classification datasets from :func:`dpdt.datasets.list_datasets`.
    repeats : int
        Number of timed fits per model; the median is reported.

    Returns
    -------
    rows : list of dict
        One row per dataset: its size, the proven optimum and, per method, the train
        ``accuracy``, ``operations`` and ``seconds``.
    """
    rows = []
    for name in progress(names, "table1"):
        data = datasets.load(name)
        X, y = data.X_train, data.y_train
        row = dict(
            dataset=name,
            n=X.shape[0],
            p=X.shape[1],
            optimum=data.optimal_depth3_accuracy,
            methods={},
        )
        for method, params in METHODS.items():
            model, seconds = median_fit_seconds(lambda p=params: _make(p), X, y, repeats)
            row["methods"][method] = dict(
                accuracy=model.score(X, y), operations=_operations(model), seconds=seconds
            )
        rows.append(row)
    return rows


def _table(rows, key, fmt, extra=()):
    header = "| dataset | n | p | " + " | ".join(METHODS) + "".join(f" | {e}" for e, _ in extra)
    lines = [header + " |", "|---" * (3 + len(METHODS) + len(extra)) + "|"]
    for r in rows:
        cells = [format(r["methods"][m][key], fmt) for m in METHODS]
        cells += [value(r) for _, value in extra]
        lines.append(f"| {r['dataset']} | {r['n']} | {r['p']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summarise(rows):
    """One line per equal-budget comparison: on how many datasets DPDT >= Top-B.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run`.

    Returns
    -------
    lines : list of str
        Human-readable counts, with the datasets where DPDT is below Top-B.
    """
    lines = []
    for dpdt_name, topb_name in EQUAL_BUDGET:
        worse = [
            r["dataset"]
            for r in rows
            if r["methods"][dpdt_name]["accuracy"] < r["methods"][topb_name]["accuracy"]
        ]
        line = (
            f"{dpdt_name} >= {topb_name} (train accuracy) on "
            f"{len(rows) - len(worse)}/{len(rows)} datasets"
        )
        lines.append(line + (f"; below on: {', '.join(worse)}" if worse else ""))
    return lines


BINARY_DATA = Path(__file__).parent / "data" / "binary"
BINARY_DEPTHS = (4, 5)
BINARY_METHODS = ("CART", "Top-k k=8", "DPDT", "exhaustive", "STreeD")
QUICK_DATASETS = ("zoo-1", "lymph", "primary-tumor", "tic-tac-toe")
N_FOLDS = 5


def binary_names():
    """Return the names of the bundled binary datasets, sorted."""
    return sorted(path.stem for path in BINARY_DATA.glob("*.npz"))


def load_binary(name):
    """Return ``(X, y)`` of a dataset of ``data/binary``."""
    with np.load(BINARY_DATA / f"{name}.npz") as data:
        return data["X"].astype(np.float64), data["y"]


def _make_binary(method, depth, time_limit):
    if method == "CART":
        return DecisionTreeClassifier(max_depth=depth, random_state=0)
    if method == "Top-k k=8":
        return DPDTreeClassifier(max_depth=depth, splitter="topk", candidates=(8,) * depth)
    if method == "DPDT":
        return DPDTreeClassifier(max_depth=depth)
    if method == "exhaustive":
        return DPDTreeClassifier(max_depth=depth, splitter="exhaustive", full_front=False,
                                 time_limit=time_limit)
    from pystreed import STreeDClassifier

    return STreeDClassifier(max_depth=depth, time_limit=time_limit, cost_complexity=0.0)


def _certified(model):
    """Whether the fit proved its tree optimal (None for the heuristics)."""
    if hasattr(model, "fit_result"):  # pystreed
        return bool(model.fit_result.is_optimal())
    if isinstance(model, DPDTreeClassifier) and model.splitter == "exhaustive":
        return bool(model.is_optimal_)
    return None


def _fit(make, X, y):
    """Fit quietly (time-limit warnings and pystreed's prints are reported in the table)."""
    model = make()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
    return model, seconds


def _have_pystreed():
    try:
        import pystreed  # noqa: F401
    except ImportError:
        return False
    return True


def run_binary(names, depths, time_limit):
    """Fit every method of the binary table on every dataset and depth.

    Parameters
    ----------
    names : list of str
        Datasets of ``data/binary``.
    depths : list of int
        Maximum depths.
    time_limit : float
        Seconds allowed to the exhaustive solver and to STreeD, per fit.

    Returns
    -------
    rows : list of dict
        One row per (dataset, depth): its size and, per method, the whole-set ``train``
        accuracy, its fit ``seconds``, the mean 5-fold ``test`` accuracy, ``certified`` (None
        for heuristics) and ``folds_certified`` (how many fold fits were certified). A method
        that cannot run (pystreed missing) is absent.
    """
    methods = [m for m in BINARY_METHODS if m != "STreeD" or _have_pystreed()]
    folds = StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=0)
    rows = []
    for name, depth in progress([(n, d) for d in depths for n in names], "table2"):
        X, y = load_binary(name)
        row = dict(dataset=name, depth=depth, n=X.shape[0], p=X.shape[1], methods={})
        for method in methods:
            make = lambda m=method, d=depth: _make_binary(m, d, time_limit)  # noqa: E731
            model, seconds = _fit(make, X, y)
            test, folds_certified = [], 0
            for train_idx, test_idx in folds.split(X, y):
                fold_model, _ = _fit(make, X[train_idx], y[train_idx])
                test.append(fold_model.score(X[test_idx], y[test_idx]))
                folds_certified += bool(_certified(fold_model))
            row["methods"][method] = dict(
                train=model.score(X, y),
                test=float(np.mean(test)),
                seconds=seconds,
                certified=_certified(model),
                folds_certified=folds_certified,
            )
        rows.append(row)
    return rows


def _binary_table(rows, depth, key, fmt):
    rows = [r for r in rows if r["depth"] == depth]
    methods = [m for m in BINARY_METHODS if m in rows[0]["methods"]]
    lines = [
        "| dataset | n | p | " + " | ".join(methods) + " |",
        "|---" * (3 + len(methods)) + "|",
    ]
    for r in rows:
        cells = []
        for m in methods:
            res = r["methods"][m]
            cell = format(res[key], fmt)
            if res["certified"] is not None and key in ("train", "seconds"):
                # "*": the whole-set fit was proven optimal; "(t)": it hit the time limit.
                cell += "*" if res["certified"] else " (t)"
            elif res["certified"] is not None and key == "test":
                cell += f" ({res['folds_certified']}/{N_FOLDS}*)"
            cells.append(cell)
        lines.append(f"| {r['dataset']} | {r['n']} | {r['p']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summarise_binary(rows):
    """Verdict lines of the binary table: DPDT against the proven optimum, certifications.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run_binary`.

    Returns
    -------
    lines : list of str
        Per depth: on how many datasets the optimum is known (proven by STreeD or by the
        exhaustive solver), how often DPDT, Top-k and CART reach it on the train set, how
        often each exact solver certified, and whether they agree.
    """
    lines = []
    for depth in sorted({r["depth"] for r in rows}):
        at = [r for r in rows if r["depth"] == depth]
        known, reached = 0, dict.fromkeys(("DPDT", "Top-k k=8", "CART"), 0)
        missed = []
        for r in at:
            proven = [
                r["methods"][m]["train"]
                for m in ("STreeD", "exhaustive")
                if m in r["methods"] and r["methods"][m]["certified"]
            ]
            if not proven:
                continue
            known += 1
            optimum = max(proven)
            for m in reached:
                if r["methods"][m]["train"] >= optimum - 1e-12:
                    reached[m] += 1
                elif m == "DPDT":
                    missed.append(f"{r['dataset']} {r['methods'][m]['train']:.4f}<{optimum:.4f}")
        counts = ", ".join(f"{m} {k}/{known}" for m, k in reached.items())
        line = f"depth {depth}: optimal train accuracy reached on {counts} datasets"
        line += f" (proven optimum known on {known}/{len(at)})"
        if missed:
            line += f"; DPDT below on {', '.join(missed)}"
        lines.append(line)
        for m in ("exhaustive", "STreeD"):
            if m in at[0]["methods"]:
                cert = sum(bool(r["methods"][m]["certified"]) for r in at)
                lines.append(
                    f"depth {depth}: {m} certified optimality on {cert}/{len(at)} datasets"
                )
        if "STreeD" in at[0]["methods"]:
            both = [
                r
                for r in at
                if r["methods"]["STreeD"]["certified"] and r["methods"]["exhaustive"]["certified"]
            ]
            agree = sum(
                abs(r["methods"]["STreeD"]["train"] - r["methods"]["exhaustive"]["train"]) < 1e-12
                for r in both
            )
            lines.append(
                f"depth {depth}: exhaustive and STreeD agree on {agree}/{len(both)} datasets "
                "both certified"
            )
    return lines


def print_binary(rows, time_limit):
    """Print the binary table's markdown and its verdict lines."""
    print(
        f"dpdt {getattr(dpdt, '__version__', '?')}: binary CP4IM datasets, alpha 0, "
        f"exhaustive and STreeD limited to {time_limit:g} s per fit\n"
    )
    for depth in sorted({r["depth"] for r in rows}):
        print(f"### Depth {depth}: train accuracy (whole set; * proven optimal, (t) time limit)\n")
        print(_binary_table(rows, depth, "train", ".4f"))
        print(f"\n### Depth {depth}: {N_FOLDS}-fold test accuracy (mean; k/5* folds certified)\n")
        print(_binary_table(rows, depth, "test", ".4f"))
        print(f"\n### Depth {depth}: fit seconds (whole set)\n")
        print(_binary_table(rows, depth, "seconds", ".3f"))
        print()
    for line in summarise_binary(rows):
        print(line)


def main(argv=None):
    """Run the benchmark from the command line.

    Parameters
    ----------
    argv : list of str or None, default=None
        Command-line arguments; None reads ``sys.argv``.

    Returns
    -------
    status : int
        Always 0: nothing is enforced.
    """
    names = datasets.list_datasets("classification")
    parser = argparse.ArgumentParser(
        prog="table1",
        description="DPDT paper's Table 1: depth-3 train accuracy, operations and fit time of "
        "CART, DPDT, Top-B and Top-k on the bundled classification datasets.",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed fits per model (median reported)"
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        choices=names,
        default=names,
        metavar="NAME",
        help=f"datasets to run (default: all of {', '.join(names)})",
    )
    binary = binary_names()
    parser.add_argument(
        "--table",
        choices=("1", "2", "both"),
        default="both",
        help="1: depth-3 continuous table; 2: depth 4-5 binary CP4IM table (default: both)",
    )
    parser.add_argument(
        "--binary-datasets",
        nargs="+",
        choices=binary,
        default=None,
        metavar="NAME",
        help=f"binary datasets of table 2 (default: all of {', '.join(binary)})",
    )
    parser.add_argument(
        "--depths",
        nargs="+",
        type=int,
        default=None,
        help=f"depths of table 2 (default: {' '.join(map(str, BINARY_DEPTHS))})",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="seconds per fit for the exhaustive solver and STreeD in table 2 (default: 60)",
    )
    parser.add_argument(
        "--exhaustive-limit",
        type=float,
        default=1800.0,
        help="seconds per fit for the exhaustive solver of table 1 (default: 1800)",
    )
    parser.add_argument(
        "--depth4",
        nargs="*",
        choices=names,
        default=list(DEPTH4_DATASETS),
        metavar="NAME",
        help=f"datasets of the depth-4 exhaustive run (default: {' '.join(DEPTH4_DATASETS)}; "
        "none to skip)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"table 2 only, depth 4, on {', '.join(QUICK_DATASETS)}, 10 s limit "
        "(explicit options still win)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    if args.quick:
        args.table = "2"
    default_binary = (
        (list(QUICK_DATASETS), [4], 10.0) if args.quick else (binary, BINARY_DEPTHS, 60.0)
    )
    names2 = args.binary_datasets or default_binary[0]
    depths = args.depths or list(default_binary[1])
    time_limit = args.time_limit if args.time_limit is not None else default_binary[2]
    if min(depths) < 1 or time_limit <= 0:
        parser.error("--depths must be >= 1 and --time-limit > 0")

    if args.table in ("1", "both"):
        rows = run(args.datasets, args.repeats)
        exhaustive = run_exhaustive(args.datasets, DEPTH, args.exhaustive_limit)
        depth4 = run_exhaustive(args.depth4, DEPTH + 1, args.exhaustive_limit)
        _print_table1(rows, args.repeats, exhaustive, depth4, args.exhaustive_limit)
    if args.table == "both":
        print()
    if args.table in ("2", "both"):
        print_binary(run_binary(names2, depths, time_limit), time_limit)
    return 0


def _print_table1(rows, repeats, exhaustive, depth4, time_limit):
    print(
        f"dpdt {getattr(dpdt, '__version__', '?')}: depth {DEPTH}, alpha 0, train split, "
        f"median of {repeats} fits\n"
    )
    print("### Train accuracy\n")
    print(
        _table(
            rows,
            "accuracy",
            ".4f",
            extra=(
                ("optimum (Quant-BnB)", lambda r: f"{r['optimum']:.3f}"),
                ("exhaustive solver", lambda r: _exhaustive_cell(exhaustive[r["dataset"]])),
            ),
        )
    )
    print("\n### Operations (candidate splits generated; CART: splits chosen)\n")
    print(_table(rows, "operations", "d"))
    print("\n### Fit seconds\n")
    print(_table(rows, "seconds", ".4f"))
    print(
        "\noperations exclude the exact last level (every threshold of every feature is scanned "
        "at each state with one split left, for every DPDT-engine method alike).\n"
    )
    for line in summarise(rows):
        print(line)
    print(f"\n### Exhaustive solver (one thread, one fit, limit {time_limit:g} s; "
          "* certified optimal)\n")
    print("| dataset | depth | train accuracy | seconds | Quant-BnB seconds | speed-up |")
    print("|---|---|---|---|---|---|")
    for depth, results in ((DEPTH, exhaustive), (DEPTH + 1, depth4)):
        for name, res in results.items():
            published = QUANT_BNB_SECONDS.get(name) if depth == DEPTH else None
            ratio = f"{published / res['seconds']:.1f}x" if published else "n/a"
            print(f"| {name} | {depth} | {_exhaustive_cell(res)} | {res['seconds']:.2f} | "
                  f"{published if published else 'n/a'} | {ratio} |")
    print()
    for line in summarise_exhaustive(rows, exhaustive):
        print(line)
    for name, res in depth4.items():
        print(f"exhaustive solver, depth {DEPTH + 1}: {name} "
              f"{'certified' if res['certified'] else 'NOT certified'} in {res['seconds']:.1f} s")


def _exhaustive_cell(res):
    return f"{res['accuracy']:.4f}" + ("*" if res["certified"] else " (t)")


if __name__ == "__main__":
    raise SystemExit(main())
