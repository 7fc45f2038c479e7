"""The ``dpdt`` command line."""

import argparse
import sys
import time

import numpy as np

from . import datasets
from ._classes import DPDTreeClassifier
from ._export import export_text


def format_front(estimator):
    """Return the Pareto front of a fitted estimator as a markdown table."""
    front = estimator.pareto_front_
    lines = ["| alpha from | alpha to | train accuracy | complexity | leaves | depth |",
             "|---:|---:|---:|---:|---:|---:|"]
    for row in front:
        lines.append(f"| {row['alpha_min']:.6g} | {row['alpha_max']:.6g} | "
                     f"{1 - row['train_loss']:.4f} | {row['complexity']:.4f} | "
                     f"{row['n_leaves']} | {row['depth']} |")
    return "\n".join(lines)


def _fit(args):
    if args.dataset not in datasets.list_datasets(task="classification"):
        names = ", ".join(datasets.list_datasets(task="classification"))
        raise SystemExit(f"dpdt fit: unknown classification dataset {args.dataset!r} "
                         f"(bundled: {names})")
    data = datasets.load(args.dataset)
    estimator = DPDTreeClassifier(
        max_depth=args.max_depth,
        candidates=tuple(args.candidates) if args.candidates else (7, 7, 7),
        alpha=args.alpha, complexity=args.complexity, n_jobs=args.n_jobs)
    start = time.perf_counter()
    estimator.fit(data.X_train, data.y_train)
    seconds = time.perf_counter() - start
    print(f"# {args.dataset}: {data.X_train.shape[0]} samples, {data.X_train.shape[1]} features, "
          f"{len(estimator.classes_)} classes; fitted in {seconds:.3f} s\n")
    print(f"Tree for alpha = {args.alpha:g}:\n")
    print(export_text(estimator))
    print(f"train accuracy {estimator.score(data.X_train, data.y_train):.4f}, "
          f"test accuracy {estimator.score(data.X_test, data.y_test):.4f}")
    if data.optimal_depth3_accuracy is not None and args.max_depth == 3:
        print(f"proven optimal depth-3 train accuracy {data.optimal_depth3_accuracy:.3f}")
    print("\nPareto front (one fit, every alpha):\n")
    print(format_front(estimator))
    stats = estimator.stats_
    print(f"\n{stats['states']} states, {stats['candidates']} candidate splits, "
          f"{stats['cache_hits']} cache hits")
    return 0


def build_parser():
    """Return the argument parser of the ``dpdt`` command."""
    parser = argparse.ArgumentParser(prog="dpdt", description="Non-greedy decision trees (DPDT).")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit a tree, print it and its Pareto front")
    fit.add_argument("--dataset", required=True, help="name of a bundled dataset")
    fit.add_argument("--max-depth", type=int, default=3)
    fit.add_argument("--candidates", type=int, nargs="+", help="candidate splits per depth")
    fit.add_argument("--alpha", type=float, default=0.0)
    fit.add_argument("--complexity", choices=["expected_tests", "n_splits"],
                     default="expected_tests")
    fit.add_argument("--n-jobs", type=int, default=None)
    fit.set_defaults(handler=_fit)
    return parser


def main(argv=None):
    """Run the ``dpdt`` command line."""
    args = build_parser().parse_args(argv)
    np.set_printoptions(precision=4)
    try:
        return args.handler(args)
    except ValueError as exc:
        print(f"dpdt {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:   # output piped into `head` and the like
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
