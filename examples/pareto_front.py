"""The Pareto front of one DPDT fit, beside CART's cost-complexity pruning path.

One fit gives every tree that is optimal for some alpha; the figure shows their train
accuracy against complexity (expected tests per sample) on two bundled datasets, with the
trees that pruning a depth-3 CART yields, measured the same way.

Run ``python examples/pareto_front.py [--out DIR]``; it writes ``pareto_front.png``.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpdt import DPDTreeClassifier, datasets, plot_pareto  # noqa: E402


def main(out="."):
    """Fit, print the fronts and draw them; return the figure's path."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, name in zip(axes, ["segment", "page"], strict=True):
        data = datasets.load(name)
        clf = DPDTreeClassifier(max_depth=3).fit(data.X_train, data.y_train)
        print(f"{name}: {len(clf.pareto_front_)} trees on the front, "
              f"train accuracy {1 - clf.pareto_front_['train_loss'][0]:.3f} at alpha = 0")
        plot_pareto(clf, ax=ax, X=data.X_train, y=data.y_train)
        ax.set_title(f"{name}: DPDT front vs CART pruning (depth 3)")
    path = Path(out) / "pareto_front.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the figure")
    print("wrote", main(parser.parse_args().out))
