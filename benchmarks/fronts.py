"""The price of the whole Pareto front: ``front="pareto"`` against the convex front.

On the bundled classification datasets, with the default candidates and alpha 0, each depth limit
and each complexity (expected tests, split counts) is fitted with ``front="convex"`` (the trees of
the lower convex hull, which some alpha selects) and ``front="pareto"`` (also every tree between
them that no other beats on both complexity and loss). Reports the number of trees in each front,
the median fit times and their ratio.

Run ``python benchmarks/fronts.py [--depths 3 4 5] [--datasets fault ...] [--repeats N]``
(``--depths 10 --datasets fault`` for a deep front). Timings are reported, never asserted.
"""

import argparse

import dpdt
from _common import median_fit_seconds, progress
from dpdt import DPDTreeClassifier, datasets

COMPLEXITIES = ("expected_tests", "n_splits")


def run(names, depths, repeats):
    """Fit both fronts for every dataset, depth and complexity; return one row per case."""
    rows = []
    for name in progress(names, "fronts"):
        data = datasets.load(name)
        for depth in depths:
            for complexity in COMPLEXITIES:
                row = dict(dataset=name, depth=depth, complexity=complexity)
                for front in ("convex", "pareto"):
                    params = dict(max_depth=depth, complexity=complexity, front=front)
                    model, seconds = median_fit_seconds(
                        lambda params=params: DPDTreeClassifier(**params),
                        data.X_train, data.y_train, repeats)
                    row[front] = (len(model.pareto_front_), seconds)
                rows.append(row)
    return rows


def markdown_table(rows):
    """Return the rows as one markdown table."""
    lines = ["| dataset | depth | complexity | convex trees | Pareto trees | convex fit (s) "
             "| Pareto fit (s) | time ratio |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        (n_convex, t_convex), (n_pareto, t_pareto) = r["convex"], r["pareto"]
        lines.append(f"| {r['dataset']} | {r['depth']} | {r['complexity']} | {n_convex} "
                     f"| {n_pareto} | {t_convex:.3f} | {t_pareto:.3f} "
                     f"| {t_pareto / t_convex:.2f} |")
    return "\n".join(lines)


def summarise(rows):
    """Return, per depth and complexity, the largest Pareto front and the largest time ratio."""
    lines = []
    for depth in sorted({r["depth"] for r in rows}):
        for complexity in COMPLEXITIES:
            at = [r for r in rows if r["depth"] == depth and r["complexity"] == complexity]
            if at:
                ratio = max(at, key=lambda r: r["pareto"][1] / r["convex"][1])
                trees = max(at, key=lambda r: r["pareto"][0])
                lines.append(
                    f"depth {depth}, {complexity}: Pareto fit up to "
                    f"{ratio['pareto'][1] / ratio['convex'][1]:.2f}x the convex one "
                    f"({ratio['dataset']}), up to {trees['pareto'][0]} trees ({trees['dataset']})")
    return lines


def main(argv=None):
    """Print the table and the summary lines."""
    names = datasets.list_datasets("classification")
    parser = argparse.ArgumentParser(prog="fronts", description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--datasets", nargs="+", choices=names, default=names, metavar="NAME",
                        help=f"datasets to run (default: all of {', '.join(names)})")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed fits per model (median reported)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    rows = run(args.datasets, args.depths, args.repeats)
    print(f"dpdt {getattr(dpdt, '__version__', '?')}: default candidates, alpha 0, median of "
          f"{args.repeats} fits\n")
    print(markdown_table(rows))
    print()
    for line in summarise(rows):
        print(f"- {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
