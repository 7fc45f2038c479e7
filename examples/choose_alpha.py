"""Choose alpha (and the depth) by cross-validation, without refitting a tree per alpha.

``DPDTreeClassifierCV`` fits each fold once, reads the validation score of every tree of the
fold's front, and keeps the alpha of best mean score. The figure shows the training front of
the chosen depth and the validation curve (mean ± one standard deviation) of each depth.

Run ``python examples/choose_alpha.py [--out DIR]``; it writes ``choose_alpha.png``.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from dpdt import DPDTreeClassifierCV, plot_pareto  # noqa: E402


def main(out="."):
    """Cross-validate alpha and depth on breast cancer; return the figure's path."""
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                        stratify=y)
    cv = DPDTreeClassifierCV(max_depths=[2, 3, 4], candidates=(5, 3, 2), cv=5)
    cv.fit(X_train, y_train)
    print(f"chosen depth {cv.max_depth_}, alpha {cv.alpha_:.4g}: {cv.get_n_leaves()} leaves, "
          f"validation accuracy {cv.best_score_:.3f}, test accuracy "
          f"{cv.score(X_test, y_test):.3f}")
    ax = plot_pareto(cv, X=X_train, y=y_train)
    ax.set_title("breast cancer: train front and validation curves")
    path = Path(out) / "choose_alpha.png"
    ax.figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(ax.figure)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the figure")
    print("wrote", main(parser.parse_args().out))
