"""Draw a DPDT tree with feature and class names, and the same tree through scikit-learn.

``to_sklearn`` turns the tree into a fitted ``DecisionTreeClassifier`` with the same nodes, so
scikit-learn's own ``plot_tree`` draws it too.

Run ``python examples/plot_tree.py [--out DIR]``; it writes ``tree.png``.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.datasets import load_iris  # noqa: E402
from sklearn.tree import plot_tree as sklearn_plot_tree  # noqa: E402

from dpdt import DPDTreeClassifier, export_text, plot_tree, to_sklearn  # noqa: E402


def main(out="."):
    """Fit a depth-3 tree on iris and draw it twice; return the figure's path."""
    iris = load_iris()
    features = [name.replace(" (cm)", "") for name in iris.feature_names]
    classes = list(iris.target_names)
    clf = DPDTreeClassifier(max_depth=3, alpha=0.005).fit(iris.data, iris.target)
    print(export_text(clf, feature_names=features, class_names=classes))
    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 5))
    plot_tree(clf, ax=left, feature_names=features, class_names=classes)
    left.set_title("dpdt.plot_tree")
    sklearn_plot_tree(to_sklearn(clf), ax=right, feature_names=features, class_names=classes,
                      filled=True, impurity=False, fontsize=8)
    right.set_title("sklearn.tree.plot_tree(dpdt.to_sklearn(clf))")
    path = Path(out) / "tree.png"
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the figure")
    print("wrote", main(parser.parse_args().out))
