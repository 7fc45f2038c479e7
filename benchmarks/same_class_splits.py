"""Should the alpha = 0 tree keep splits whose leaves all predict the same class?

Such a split changes no prediction; it lowers the training impurity, which is how the search breaks
ties between trees of equal training loss (issue 32, item 3). Collapsing every subtree whose leaves
all predict one class into a leaf keeps every prediction by construction, so the test accuracy
cannot move; what moves is the size of the tree and its probabilities. This script fits the
default ``DPDTreeClassifier(max_depth=d)`` at ``alpha=0`` on the bundled sets (their own splits)
and on scikit-learn's breast cancer, wine and digits (70/30 stratified splits), and prints, per
fit, the splits, how many of them a collapse removes, and the test log-loss of both trees
(probabilities clipped at 1e-15, as scikit-learn's log_loss does).

Run ``python benchmarks/same_class_splits.py [--depths 3 4 5]``.
"""

import argparse

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from dpdt import DPDTreeClassifier, datasets

CLIP = 1e-15


def same_class_anchors(tree):
    """Return, per node, the highest ancestor (or itself) whose leaves all predict one class."""
    left, right = tree.children_left, tree.children_right
    value = tree.value.reshape(len(left), -1)
    single = np.full(len(left), -1)   # the class all leaves below predict, -1 if they differ
    for node in reversed(range(len(left))):   # children come after their parent
        if left[node] < 0:
            single[node] = int(np.argmax(value[node]))
        elif single[left[node]] == single[right[node]] >= 0:
            single[node] = single[left[node]]
    anchor = np.arange(len(left))
    stack = [(0, -1)]
    while stack:
        node, above = stack.pop()
        here = above if above >= 0 else (node if single[node] >= 0 else -1)
        anchor[node] = node if here < 0 else here
        if left[node] >= 0:
            stack += [(left[node], here), (right[node], here)]
    return anchor, int(np.sum((left >= 0) & (single >= 0)))


def data_sets():
    for name in datasets.list_datasets("classification"):
        d = datasets.load(name)
        yield name, d.X_train, d.y_train, d.X_test, d.y_test
    for name, loader in (("breast_cancer", load_breast_cancer), ("wine", load_wine),
                         ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                            stratify=y)
        yield name, X_train, y_train, X_test, y_test


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 4, 5])
    args = parser.parse_args()
    print("| data set | depth | splits | removable | test log-loss | collapsed | change | "
          "select_tree() splits | its log-loss | its accuracy change |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    changes, simplest = [], []
    for name, X_train, y_train, X_test, y_test in data_sets():
        for depth in args.depths:
            clf = DPDTreeClassifier(max_depth=depth, random_state=0).fit(X_train, y_train)
            tree = clf.tree_
            anchor, removable = same_class_anchors(tree)
            value = tree.value.reshape(tree.node_count, -1)[anchor[clf.apply(X_test)]]
            collapsed = value / value.sum(axis=1, keepdims=True)
            assert (clf.classes_[collapsed.argmax(axis=1)] == clf.predict(X_test)).all()
            full = log_loss(y_test, np.clip(clf.predict_proba(X_test), CLIP, 1),
                            labels=clf.classes_)
            kept = log_loss(y_test, np.clip(collapsed, CLIP, 1), labels=clf.classes_)
            splits = int((tree.children_left >= 0).sum())
            accuracy = clf.score(X_test, y_test)
            clf.select_tree()
            assert same_class_anchors(clf.tree_)[1] == 0
            chosen = log_loss(y_test, np.clip(clf.predict_proba(X_test), CLIP, 1),
                              labels=clf.classes_)
            chosen_splits = int((clf.tree_.children_left >= 0).sum())
            accuracy_change = clf.score(X_test, y_test) - accuracy
            print(f"| {name} | {depth} | {splits} | {removable} | {full:.4f} | {kept:.4f} | "
                  f"{kept - full:+.4f} | {chosen_splits} | {chosen:.4f} | "
                  f"{accuracy_change:+.4f} |", flush=True)
            if removable:
                changes.append(kept - full)
            if chosen_splits < splits:
                simplest.append((chosen - full, accuracy_change))
    changes = np.array(changes)
    print(f"\nFits with a removable split: {len(changes)}; collapsing lowers the test log-loss in "
          f"{int((changes < 0).sum())}, raises it in {int((changes > 0).sum())}; mean change "
          f"{changes.mean():+.4f}.")
    simplest = np.array(simplest).reshape(-1, 2)
    print(f"Fits where select_tree() is simpler: {len(simplest)}; its test log-loss is lower in "
          f"{int((simplest[:, 0] < 0).sum())}, higher in {int((simplest[:, 0] > 0).sum())} (mean "
          f"change {simplest[:, 0].mean():+.4f}); its test accuracy mean change "
          f"{simplest[:, 1].mean():+.4f}, lower in {int((simplest[:, 1] < 0).sum())}.")


if __name__ == "__main__":
    main()
