"""Text export of fitted trees."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._tree import TREE_LEAF


def export_text(estimator, *, feature_names=None, class_names=None, decimals=3, show_weights=False):
    """Return the rules of a fitted tree as indented text.

    Parameters
    ----------
    estimator : DPDTreeClassifier
        A fitted estimator; its current tree (``estimator.tree_``) is exported.
    feature_names : list of str, default=None
        Names of the features; defaults to ``feature_names_in_`` or ``x[i]``.
    class_names : list of str, default=None
        Names of the classes; defaults to ``classes_``.
    decimals : int, default=3
        Digits of the thresholds.
    show_weights : bool, default=False
        Also print the weighted class sums of each leaf.

    Returns
    -------
    text : str
        One line per test and per leaf, indented by depth.

    Examples
    --------
    >>> from dpdt import DPDTreeClassifier, export_text
    >>> clf = DPDTreeClassifier(max_depth=1).fit([[0.0], [1.0]], ["a", "b"])
    >>> print(export_text(clf, feature_names=["x"]))
    |--- x <= 0.500
    |   |--- class: a
    |--- x >  0.500
    |   |--- class: b
    <BLANKLINE>
    """
    check_is_fitted(estimator)
    tree = estimator.tree_
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = ([str(n) for n in names] if names is not None
                         else [f"x[{i}]" for i in range(estimator.n_features_in_)])
    elif len(feature_names) != estimator.n_features_in_:
        raise ValueError(f"feature_names has {len(feature_names)} names, the estimator "
                         f"{estimator.n_features_in_} features")
    if class_names is None:
        class_names = [str(c) for c in estimator.classes_]
    lines = []

    def leaf_line(node, indent):
        fractions = tree.value[node, 0]
        label = f"{indent}|--- class: {class_names[int(np.argmax(fractions))]}"
        if show_weights:
            weights = fractions * tree.weighted_n_node_samples[node]
            label += f" (weights: {np.round(weights, decimals).tolist()})"
        lines.append(label)

    def walk(node, depth):
        indent = "|   " * depth
        if tree.children_left[node] == TREE_LEAF:
            leaf_line(node, indent)
            return
        name, t = feature_names[tree.feature[node]], tree.threshold[node]
        lines.append(f"{indent}|--- {name} <= {t:.{decimals}f}")
        walk(tree.children_left[node], depth + 1)
        lines.append(f"{indent}|--- {name} >  {t:.{decimals}f}")
        walk(tree.children_right[node], depth + 1)

    if tree.children_left[0] == TREE_LEAF:
        leaf_line(0, "")
    else:
        walk(0, 0)
    return "\n".join(lines) + "\n"
