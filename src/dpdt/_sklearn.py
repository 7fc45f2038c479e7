"""Conversion of fitted dpdt trees into fitted scikit-learn trees."""

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.tree._tree import NODE_DTYPE
from sklearn.tree._tree import Tree as SklearnTree
from sklearn.utils.validation import check_is_fitted

from ._classes import DPDTreeClassifier, DPDTreeRegressor
from ._multiway_tree import MultiwayTree


def _sklearn_tree(tree, n_classes):
    """Return a scikit-learn ``Tree`` holding the arrays of a dpdt :class:`~dpdt.Tree`.

    scikit-learn pickles its Cython ``Tree`` as (n_features, n_classes, n_outputs) plus a state
    dict of the node records and values; building one the same way gives a tree that is in
    every respect a fitted scikit-learn tree.
    """
    nodes = np.zeros(tree.node_count, dtype=NODE_DTYPE)
    nodes["left_child"] = tree.children_left
    nodes["right_child"] = tree.children_right
    nodes["feature"] = tree.feature
    nodes["threshold"] = tree.threshold
    nodes["impurity"] = tree.impurity
    nodes["n_node_samples"] = tree.n_node_samples
    nodes["weighted_n_node_samples"] = tree.weighted_n_node_samples
    nodes["missing_go_to_left"] = tree.missing_go_to_left
    n_outputs = tree.value.shape[1]
    result = SklearnTree(tree.n_features, np.asarray(n_classes, dtype=np.intp), n_outputs)
    result.__setstate__({"max_depth": tree.max_depth, "node_count": tree.node_count,
                         "nodes": nodes, "values": np.ascontiguousarray(tree.value)})
    return result


def _copy_input_attributes(source, target):
    target.n_features_in_ = source.n_features_in_
    if hasattr(source, "feature_names_in_"):
        target.feature_names_in_ = source.feature_names_in_


def to_sklearn(estimator):
    """Return a fitted scikit-learn tree with the same nodes as a dpdt tree.

    The result is a genuine :class:`~sklearn.tree.DecisionTreeClassifier` or
    :class:`~sklearn.tree.DecisionTreeRegressor` whose ``tree_`` arrays (children, features,
    thresholds, values, impurities, sample counts) are those of ``estimator.tree_``, the tree of
    the estimator's current ``alpha``. Everything built on scikit-learn trees then works on it:
    :func:`sklearn.tree.plot_tree`, :func:`sklearn.tree.export_graphviz`, skl2onnx, treelite,
    shap's ``TreeExplainer``.

    Parameters
    ----------
    estimator : DPDTreeClassifier or DPDTreeRegressor
        A fitted estimator with binary splits.

    Returns
    -------
    tree : DecisionTreeClassifier or DecisionTreeRegressor
        The fitted scikit-learn estimator; it should not be refitted (its hyper-parameters
        only describe the tree's shape).

    Raises
    ------
    TypeError
        For estimators that are not a single binary tree: multiway trees
        (:class:`~dpdt.BranchesClassifier`, :class:`~dpdt.MultiwayGreedyClassifier`), whose
        nodes have one child per category, and boosted ensembles.

    Notes
    -----
    Both libraries send a sample left when ``x <= threshold``, so the conversion is exact for
    the same input. scikit-learn's ``predict`` however first casts ``X`` to float32: a float64
    value within float32 rounding (a relative 6e-8) of a threshold can then land on the other
    side, including a value exactly equal to the threshold. Inputs that float32 represents
    exactly (float32 data, integers below 2**24, ...) are routed identically; for others, pass
    ``X.astype(np.float32)`` to the dpdt estimator too, or compare predictions once.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from dpdt import DPDTreeClassifier, to_sklearn
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    >>> skl = to_sklearn(clf)
    >>> bool((skl.predict(X) == clf.predict(X)).all())
    True
    """
    if not isinstance(estimator, DPDTreeClassifier | DPDTreeRegressor):
        tree = getattr(estimator, "tree_", None)
        if isinstance(tree, MultiwayTree):
            raise TypeError(f"{type(estimator).__name__} has multiway splits (one child per "
                            "category), which a scikit-learn binary tree cannot represent")
        raise TypeError("to_sklearn converts a fitted DPDTreeClassifier or DPDTreeRegressor, "
                        f"got {type(estimator).__name__}")
    check_is_fitted(estimator)
    tree = estimator.tree_
    if isinstance(estimator, DPDTreeClassifier):
        criterion = "gini" if estimator.criterion == "gini" else "entropy"
        result = DecisionTreeClassifier(criterion=criterion, max_depth=estimator.max_depth)
        result.classes_ = estimator.classes_
        result.n_classes_ = int(estimator.n_classes_)
        result.n_outputs_ = 1
        n_classes = [estimator.n_classes_]
    else:
        result = DecisionTreeRegressor(max_depth=estimator.max_depth)
        result.n_outputs_ = int(estimator.n_outputs_)
        n_classes = [1] * estimator.n_outputs_
    _copy_input_attributes(estimator, result)
    result.max_features_ = estimator.n_features_in_
    result.tree_ = _sklearn_tree(tree, n_classes)
    return result
