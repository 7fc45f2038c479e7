"""Text export of fitted trees."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._multiway_tree import MultiwayTree
from ._tree import TREE_LEAF, Tree


def fitted_tree(estimator):
    """Return the tree to export: ``estimator.tree_``, or ``estimator`` itself if it is a Tree.

    A bare :class:`~dpdt.Tree` is what boosting keeps in ``estimators_``; it has no classes, so
    its leaves print their values.
    """
    if isinstance(estimator, Tree):
        return estimator
    check_is_fitted(estimator)
    return estimator.tree_


def tree_estimator(estimator, caller):
    """Return the fitted tree estimator that ``estimator`` is or ends with, and its inputs.

    A scikit-learn Pipeline whose last step is a tree estimator stands for that step: its
    features are those the step sees, named by the steps before it when they name their
    outputs, and samples reach it through those steps. Returns ``(tree estimator, transform,
    feature names)``: ``transform`` makes the step's input from the pipeline's (None without
    steps before it) and the names are None when the estimator's own (or ``x[i]``) serve.
    A :class:`OneHotEncoded` model stands for its model in the same way, its encoding as the
    transform. Raises a TypeError naming ``caller`` for an estimator that holds no single tree.
    """
    from sklearn.pipeline import Pipeline

    from ._onehot import OneHotEncoded

    transform = names = None
    what = type(estimator).__name__
    if isinstance(estimator, OneHotEncoded):   # its model names the encoded columns itself
        check_is_fitted(estimator)
        transform, estimator = estimator.transform, estimator.estimator_
        what = f"a OneHotEncoded {type(estimator).__name__}"
    elif isinstance(estimator, Pipeline):
        check_is_fitted(estimator)
        head, estimator = estimator[:-1], estimator[-1]
        what = f"a Pipeline whose last step is a {type(estimator).__name__}"
        if len(head.steps) > 0:
            transform = head.transform
            if getattr(estimator, "feature_names_in_", None) is None:
                try:
                    names = [str(name) for name in head.get_feature_names_out()]
                except (AttributeError, TypeError, ValueError):   # a step that names nothing
                    names = None
    if not hasattr(estimator, "fit"):
        raise TypeError(f"{caller} takes a fitted dpdt tree estimator or a Pipeline ending "
                        f"in one, got {what}")
    check_is_fitted(estimator)
    if not hasattr(estimator, "tree_"):
        raise TypeError(f"{caller} takes a fitted dpdt tree estimator or a Pipeline ending "
                        f"in one, got {what}, which has no single tree (tree_)")
    return estimator, transform, names


# The digits of the values (leaf predictions, weights) when ``decimals`` is None.
VALUE_DECIMALS = 3


def threshold_text(threshold, decimals=None):
    """Return a threshold as exports print it.

    With ``decimals`` None, the shortest decimal that reads back as the same float (Python's
    ``repr``: ``2008``, ``2008.5``, ``0.1``) when it is no longer than three decimals would be,
    so that a threshold the data holds prints as it is; else (a midpoint such as
    ``0.2224812584918259``) three decimals without trailing zeros, as a reader wants a rule.
    With ``decimals`` given, that many digits after the point.
    """
    if decimals is not None:
        return f"{threshold:.{decimals}f}"
    rounded = f"{threshold:.{VALUE_DECIMALS}f}"
    exact = repr(float(threshold))
    exact = exact[:-2] if exact.endswith(".0") else exact
    return exact if len(exact) <= len(rounded) else rounded.rstrip("0").rstrip(".")


def export_text(estimator, *, feature_names=None, class_names=None, decimals=None,
                show_weights=False):
    """Return the rules of a fitted tree as indented text.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor, BranchesClassifier, other tree, Pipeline \
or Tree
        A fitted estimator; its current tree (``estimator.tree_``) is exported; regression
        leaves print their value (one per output). A Pipeline ending in a tree estimator
        exports that tree, its features named by the steps before it. Multiway
        trees print one ``feature = category`` line per child; a category without a line
        stops at the node above it. A :class:`~dpdt.Tree`, such as a boosting model's
        ``estimators_[i][k]``, is exported as it is: its leaves print their values, which for
        boosting are raw scores (the tree's term of the sum, before ``learning_rate``; logits
        for a classifier), not predictions.
    feature_names : list of str, default=None
        Names of the features, one per feature; defaults to ``feature_names_in_`` or ``x[i]``
        (for a Tree, pass the boosting model's ``feature_names_in_`` to name them).
    class_names : list of str, default=None
        Names of the classes, one per class in the order of ``classes_``; defaults to
        ``classes_``.
    decimals : int or None, default=None
        Digits after the point of the thresholds and values. None prints a threshold in the
        shortest form that reads back as the same number when that has at most 3 decimals
        (``2008``, ``2008.5``), else rounded to 3 decimals without trailing zeros (``0.222``),
        and values with 3 digits.
    show_weights : bool, default=False
        Also print the weighted class sums of each leaf (classification).

    Returns
    -------
    text : str
        One line per test and per leaf, indented by depth.

    Examples
    --------
    >>> from dpdt import DPDTreeClassifier, export_text
    >>> clf = DPDTreeClassifier(max_depth=1).fit([[0.0], [1.0]], ["a", "b"])
    >>> print(export_text(clf, feature_names=["x"]))
    |--- x <= 0.5
    |   |--- class: a
    |--- x >  0.5
    |   |--- class: b
    <BLANKLINE>

    A boosting model's trees print raw scores:

    >>> from dpdt import DPDTGradientBoostingRegressor
    >>> reg = DPDTGradientBoostingRegressor(n_estimators=1, max_depth=1, reg_lambda=0.0)
    >>> print(export_text(reg.fit([[0.0], [1.0]], [0.0, 2.0]).estimators_[0][0]))
    |--- x[0] <= 0
    |   |--- value: -1.000
    |--- x[0] >  0
    |   |--- value: 1.000
    <BLANKLINE>
    """
    if not isinstance(estimator, Tree):
        estimator, _, names = tree_estimator(estimator, "export_text")
        feature_names = names if feature_names is None else feature_names
    tree = fitted_tree(estimator)
    if isinstance(tree, MultiwayTree):
        return _export_multiway(estimator, feature_names, class_names)
    feature_names = display_feature_names(estimator, feature_names)
    check_class_names(estimator, class_names)
    lines = []

    digits = VALUE_DECIMALS if decimals is None else decimals

    def leaf_line(node, indent):
        value = node_value(tree, node)
        label = f"{indent}|--- {node_prediction(estimator, value, class_names, digits)}"
        if show_weights:
            weights = value * tree.weighted_n_node_samples[node]
            label += f" (weights: {np.round(weights, digits).tolist()})"
        lines.append(label)

    def walk(node, depth):
        indent = "|   " * depth
        if tree.children_left[node] == TREE_LEAF:
            leaf_line(node, indent)
            return
        name, t = feature_names[tree.feature[node]], threshold_text(tree.threshold[node], decimals)
        lines.append(f"{indent}|--- {name} <= {t}")
        walk(tree.children_left[node], depth + 1)
        lines.append(f"{indent}|--- {name} >  {t}")
        walk(tree.children_right[node], depth + 1)

    if tree.children_left[0] == TREE_LEAF:
        leaf_line(0, "")
    else:
        walk(0, 0)
    return "\n".join(lines) + "\n"


def category_names(estimator, feature):
    """Return the label of each category code of a multiway estimator's ``feature``."""
    return estimator._codes.labels(feature)


def _export_multiway(estimator, feature_names, class_names):
    tree = estimator.tree_
    feature_names = display_feature_names(estimator, feature_names)
    check_class_names(estimator, class_names)
    if class_names is None:
        class_names = [str(c) for c in estimator.classes_]
    lines = []

    def walk(node, depth):
        indent = "|   " * depth
        if tree.feature[node] < 0:
            lines.append(f"{indent}|--- class: {class_names[int(np.argmax(tree.value[node]))]}")
            return
        f = int(tree.feature[node])
        categories = category_names(estimator, f)
        for category, child in tree.children(node):
            lines.append(f"{indent}|--- {feature_names[f]} {categories[category]}")
            walk(child, depth + 1)

    walk(0, 0)
    return "\n".join(lines) + "\n"


def display_feature_names(estimator, feature_names):
    """Return the names to display for the features: ``feature_names``, or the fitted ones."""
    n_features = (estimator.n_features if isinstance(estimator, Tree)
                  else estimator.n_features_in_)
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        return ([str(n) for n in names] if names is not None
                else [f"x[{i}]" for i in range(n_features)])
    if len(feature_names) != n_features:
        raise ValueError(f"feature_names has {len(feature_names)} names, the estimator "
                         f"{n_features} features")
    return [str(n) for n in feature_names]


def check_class_names(estimator, class_names):
    """Raise a ValueError unless ``class_names`` is None or names each class of ``estimator``."""
    if class_names is None:
        return
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(f"class_names is for classifiers; {type(estimator).__name__} has no "
                         "classes")
    if len(class_names) != len(classes):
        raise ValueError(f"class_names has {len(class_names)} names, the estimator "
                         f"{len(classes)} classes (classes_)")


def _dot_label(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def node_prediction(estimator, value, class_names=None, decimals=3):
    """Return what a node predicts as text: a class, value(s), or a policy's action.

    A classifier's majority class, a regressor's value (one per output), a policy's action of
    largest mean reward and that reward.

    ``value`` is the node's row of class fractions (classification), of output means, or of
    mean rewards per action (a policy).
    """
    value = np.asarray(value).ravel()
    if hasattr(estimator, "actions_"):   # a policy: the action of largest mean reward
        best = int(np.argmax(value))
        # The tree of a budget holds the rewards less its price times the costs.
        what = "net reward" if getattr(estimator, "max_cost", None) is not None else "mean reward"
        return f"action: {estimator.actions_[best]} ({what} {value[best]:.{decimals}f})"
    if hasattr(estimator, "classes_"):
        names = class_names if class_names is not None else [str(c) for c in estimator.classes_]
        return f"class: {names[int(np.argmax(value))]}"
    if value.size == 1:
        return f"value: {value[0]:.{decimals}f}"
    return "value: [" + ", ".join(f"{v:.{decimals}f}" for v in value) + "]"


def node_value(tree, node):
    """Return a node's class fractions or output means as a 1-D array, for any tree layout."""
    value = np.asarray(tree.value[node])
    return value[0] if value.ndim == 2 and value.shape[1] > 1 else value.ravel()


def export_graphviz(estimator, out_file=None, *, feature_names=None, class_names=None,
                    decimals=None):
    r"""Return (or write) the tree of a fitted estimator in Graphviz's DOT language.

    Render it with ``dot -Tpng tree.dot -o tree.png``, or with the ``graphviz`` Python package.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor, BranchesClassifier, other tree, Pipeline \
or Tree
        A fitted estimator; its current tree (``estimator.tree_``) is exported (a Pipeline's
        last step's, as :func:`export_text` does). Multiway trees
        get one labelled edge per category. A :class:`~dpdt.Tree` (a boosting model's
        ``estimators_[i][k]``) is exported as it is, its leaves labelled with their raw scores:
        see :func:`export_text`.
    out_file : str, path-like or None, default=None
        File to write the DOT source to; None returns it as a string.
    feature_names : list of str, default=None
        Names of the features, one per feature; defaults to ``feature_names_in_`` or ``x[i]``.
    class_names : list of str, default=None
        Names of the classes, one per class in the order of ``classes_``; defaults to
        ``classes_``.
    decimals : int or None, default=None
        Digits after the point of the thresholds and values; None as in
        :func:`export_text`.

    Returns
    -------
    dot : str or None
        The DOT source when ``out_file`` is None.

    Examples
    --------
    >>> from dpdt import DPDTreeClassifier, export_graphviz
    >>> clf = DPDTreeClassifier(max_depth=1).fit([[0.0], [1.0]], ["a", "b"])
    >>> print(export_graphviz(clf, feature_names=["x"]))  # doctest: +ELLIPSIS
    digraph Tree {
    node [shape=box, style="rounded", fontname="helvetica"] ;
    edge [fontname="helvetica"] ;
    0 [label="x <= 0.5\nsamples = 2"] ;
    1 [label="class: a\nsamples = 1"] ;
    ...
    """
    if not isinstance(estimator, Tree):
        estimator, _, names = tree_estimator(estimator, "export_graphviz")
        feature_names = names if feature_names is None else feature_names
    tree = fitted_tree(estimator)
    names = display_feature_names(estimator, feature_names)
    check_class_names(estimator, class_names)
    lines = ["digraph Tree {",
             'node [shape=box, style="rounded", fontname="helvetica"] ;',
             'edge [fontname="helvetica"] ;']
    multiway = isinstance(tree, MultiwayTree)
    digits = VALUE_DECIMALS if decimals is None else decimals
    for node in range(tree.node_count):
        if tree.feature[node] < 0:
            text = node_prediction(estimator, node_value(tree, node), class_names, digits)
        elif multiway:
            text = names[tree.feature[node]]
        else:
            text = (f"{names[tree.feature[node]]} <= "
                    f"{threshold_text(tree.threshold[node], decimals)}")
        label = f"{_dot_label(text)}\\nsamples = {int(tree.n_node_samples[node])}"
        lines.append(f'{node} [label="{label}"] ;')
    for node in range(tree.node_count):
        if multiway:
            if tree.feature[node] < 0:
                continue
            categories = category_names(estimator, int(tree.feature[node]))
            for category, child in tree.children(node):
                lines.append(f'{node} -> {child} [label="{_dot_label(categories[category])}"] ;')
        elif tree.children_left[node] != TREE_LEAF:
            lines.append(f'{node} -> {tree.children_left[node]} [label="yes"] ;')
            lines.append(f'{node} -> {tree.children_right[node]} [label="no"] ;')
    lines.append("}")
    dot = "\n".join(lines) + "\n"
    if out_file is None:
        return dot
    with open(out_file, "w", encoding="utf-8") as fh:
        fh.write(dot)
    return None

