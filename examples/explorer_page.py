"""The explorer page: a whole Pareto front and every tree of it, in one offline HTML file.

A depth-6 front on scikit-learn's breast cancer data (named features), with the held-out
samples for the test curve and the sample picker, and the training data for CART's pruning
path. Open the page in any browser: click the front or press the arrow keys to see each tree.

Run ``python examples/explorer_page.py [--out DIR]``; it writes ``explorer.html``.
"""

import argparse
from pathlib import Path

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from dpdt import DPDTreeClassifier, export_html


def main(out="."):
    """Fit, write the page; return its path."""
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    y = y.map({0: "malignant", 1: "benign"})
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    clf = DPDTreeClassifier(max_depth=6, front="pareto").fit(X_train, y_train)
    path = Path(out) / "explorer.html"
    export_html(clf, path, X_test, y_test, X=X_train, y=y_train)
    print(f"{len(clf.pareto_front_)} trees on the front, page of "
          f"{path.stat().st_size / 1e3:.0f} kB")
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="directory of the page")
    print("wrote", main(parser.parse_args().out))
