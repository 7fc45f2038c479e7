"""The README's picture: the default depth-3 tree of the bundled bank dataset.

``bank`` is UCI's Banknote Authentication: four statistics of a wavelet transform of a banknote's
image, and the note's class (genuine or forged, coded 0 and 1).

Run ``python examples/readme_tree.py [--out DIR]``; it writes ``readme_tree.png`` (the README
shows ``docs/img/readme_tree.png``, made with ``--out docs/img``).
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpdt import DPDTreeClassifier, datasets, plot_tree  # noqa: E402


def main(out="."):
    """Fit the default depth-3 tree on bank, draw it, and return the figure's path."""
    bank = datasets.load("bank")
    clf = DPDTreeClassifier(max_depth=3).fit(bank.X_train, bank.y_train)
    print(f"bank: train accuracy {clf.score(bank.X_train, bank.y_train):.4f}, test accuracy "
          f"{clf.score(bank.X_test, bank.y_test):.4f}, {clf.get_n_leaves()} leaves")
    fig, ax = plt.subplots(figsize=(9, 4.5))
    plot_tree(clf, ax=ax, feature_names=bank.feature_names)
    path = Path(out) / "readme_tree.png"
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".", help="folder to write readme_tree.png in")
    print(main(parser.parse_args().out))
