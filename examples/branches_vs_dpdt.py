"""BRANCHES on categorical data: a certified optimal multiway tree, against DPDT's binary tree.

The data is the whole MONK-1 problem (432 combinations of six categorical attributes; the class
is ``a1 == a2 or a5 == 1``). BRANCHES proves its tree optimal for accuracy - lam x splits;
DPDT, on the same integer codes, searches binary threshold trees of bounded depth.

Run ``python examples/branches_vs_dpdt.py [--out DIR]``; it writes ``branches_tree.png``.
"""

import argparse
import itertools
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from dpdt import BranchesClassifier, DPDTreeClassifier, plot_tree  # noqa: E402

DOMAINS = {"a1": 3, "a2": 3, "a3": 2, "a4": 3, "a5": 4, "a6": 2}


def monk1():
    """Return every MONK-1 sample as a DataFrame of category strings, and its labels."""
    rows = np.array(list(itertools.product(*[range(1, n + 1) for n in DOMAINS.values()])))
    X = pd.DataFrame(rows, columns=list(DOMAINS)).astype(str)
    y = ((rows[:, 0] == rows[:, 1]) | (rows[:, 4] == 1)).astype(int)
    return X, y


def main(out="."):
    """Fit both, print their sizes and accuracy, draw the BRANCHES tree; return its path."""
    X, y = monk1()
    branches = BranchesClassifier(lam=0.005).fit(X, y)
    print(f"BRANCHES: optimal={branches.is_optimal_}, {branches.tree_.n_splits} splits, "
          f"{branches.tree_.n_leaves} leaves, accuracy {branches.score(X, y):.3f}")
    codes = X.astype(int).to_numpy()
    for depth in (3, 4):
        dpdt_tree = DPDTreeClassifier(max_depth=depth).fit(codes, y)
        print(f"DPDT depth {depth}: {dpdt_tree.get_n_leaves()} leaves, "
              f"accuracy {dpdt_tree.score(codes, y):.3f}")
    ax = plot_tree(branches, class_names=["no", "yes"])
    ax.set_title("MONK-1: the certified optimal BRANCHES tree")
    path = Path(out) / "branches_tree.png"
    ax.figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(ax.figure)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the figure")
    print("wrote", main(parser.parse_args().out))
