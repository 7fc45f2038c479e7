"""How long ``plot_tree`` takes to draw trees of 50 to 500 nodes.

The time goes into measuring text: the font is the largest at which no two texts overlap, and
each font tried measures every text once (matplotlib lays it out, about a millisecond a text).
Per tree, the table gives the median time of ``plot_tree`` into a figure of its own (which grows
until the font is readable) and into a user's (8, 5) axes, the font chosen, the figure's size, and
the time to save the figure as a PNG at 100 dpi (matplotlib's rasterising, apart).

The trees fit unrelated labels on Gaussian features, so that they use their depth.

Run ``python benchmarks/plot_speed.py [--repeats 3] [--depths 5 7 9]``.
"""

import argparse
import io
import statistics
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from dpdt import DPDTreeClassifier, DPDTreeRegressor, plot_tree  # noqa: E402


def trees(depths):
    """Yield (name, fitted tree): a classifier and a regressor per depth, greedy for speed."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6))
    for depth in depths:
        yield (f"classifier, depth {depth}",
               DPDTreeClassifier(max_depth=depth, candidates=1).fit(X, rng.integers(0, 3, 3000)))
        yield (f"regressor, depth {depth}",
               DPDTreeRegressor(max_depth=depth, candidates=1).fit(X, rng.normal(size=3000)))


def draw(tree, own, repeats):
    """Return the median seconds of plot_tree, the last axes, and the seconds to save them."""
    times = []
    for _ in range(repeats):
        plt.close("all")
        ax = None if own else plt.subplots(figsize=(8, 5))[1]
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # small fonts in (8, 5) axes are the point
            ax = plot_tree(tree, ax=ax)
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    ax.figure.savefig(io.BytesIO(), format="png", dpi=100)
    return statistics.median(times), ax, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[5, 7, 9, 10])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("| tree | nodes | figure | plot_tree (s) | node font (pt) | inches | savefig (s) |")
    print("|---|---:|---|---:|---:|---|---:|")
    for name, tree in trees(args.depths):
        for own in (True, False):
            seconds, ax, save = draw(tree, own, args.repeats)
            font = max(text.get_fontsize() for text in ax.texts)
            width, height = ax.figure.get_size_inches()
            print(f"| {name} | {tree.tree_.node_count} | {'own' if own else '(8, 5)'} | "
                  f"{seconds:.2f} | {font:g} | {width:.0f} x {height:.0f} | {save:.2f} |",
                  flush=True)
    plt.close("all")


if __name__ == "__main__":
    main()
