"""Pictures of fitted trees and of their Pareto fronts (matplotlib, the optional ``plot`` extra)."""

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ._export import category_names, display_feature_names, node_prediction, node_value
from ._multiway_tree import MultiwayTree


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install 'dpdt[plot]'") from None
    return plt


def _axes(ax, figsize):
    if ax is not None:
        return ax
    _, ax = _pyplot().subplots(figsize=figsize)
    return ax


def _children(estimator, tree, node, names, decimals):
    """Return the (edge label, child) pairs of a node, for binary and multiway trees alike."""
    if isinstance(tree, MultiwayTree):
        categories = category_names(estimator, int(tree.feature[node]))
        return [(categories[category], child) for category, child in tree.children(node)]
    if tree.feature[node] < 0:
        return []
    t = tree.threshold[node]
    return [(f"<= {t:.{decimals}f}", int(tree.children_left[node])),
            (f"> {t:.{decimals}f}", int(tree.children_right[node]))]


def plot_tree(estimator, ax=None, *, feature_names=None, class_names=None, decimals=3,
              fontsize=None):
    """Draw the current tree of a fitted estimator with matplotlib.

    Split nodes show the feature tested and their edges the threshold (or the category, for
    multiway trees); leaves show the predicted class (or value) and every node its number of
    training samples. Leaves are spread evenly and each parent is centred above its children,
    which keeps trees up to depth 5 readable.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor, BranchesClassifier or other tree
        A fitted estimator; its ``tree_`` (the tree of the current ``alpha``) is drawn.
    ax : matplotlib Axes, default=None
        Axes to draw on; None creates a figure sized to the tree.
    feature_names : list of str, default=None
        Names of the features; defaults to ``feature_names_in_`` or ``x[i]``.
    class_names : list of str, default=None
        Names of the classes; defaults to ``classes_``.
    decimals : int, default=3
        Digits of the thresholds and values.
    fontsize : float, default=None
        Font size; None chooses one from the number of leaves.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from dpdt import DPDTreeClassifier, plot_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> ax = plot_tree(DPDTreeClassifier(max_depth=2).fit(X, y),
    ...                class_names=["setosa", "versicolor", "virginica"])
    """
    check_is_fitted(estimator)
    tree = estimator.tree_
    names = display_feature_names(estimator, feature_names)
    # Layout: leaves at consecutive x positions in preorder, parents centred over children.
    position, depth, edges = {}, {}, []
    next_leaf = [0]

    def place(node, level):
        depth[node] = level
        children = _children(estimator, tree, node, names, decimals)
        if not children:
            position[node] = next_leaf[0]
            next_leaf[0] += 1
            return
        for label, child in children:
            place(child, level + 1)
            edges.append((node, child, label))
        position[node] = np.mean([position[child] for _, child in children])

    place(0, 0)
    n_leaves, max_depth = next_leaf[0], max(depth.values())
    # Wide enough for a box per leaf up to 12 leaves; beyond, the width stops growing (a
    # depth-5 tree has up to 32 leaves) and the font shrinks instead.
    ax = _axes(ax, figsize=(min(24.0, max(4.0, 1.9 * n_leaves)),
                            max(2.5, 1.6 * (max_depth + 1))))
    if fontsize is None:
        fontsize = 10 if n_leaves <= 12 else max(4.5, 10 - (n_leaves - 12) / 3)
    box = dict(boxstyle="round,pad=0.4", linewidth=0.8)
    colours = _pyplot().get_cmap("tab10")
    for node in range(tree.node_count):
        x, y = position[node], -depth[node]
        samples = f"{'samples' if n_leaves <= 12 else 'n'} = {int(tree.n_node_samples[node])}"
        if tree.feature[node] < 0:
            value = node_value(tree, node)
            text = node_prediction(estimator, value, class_names, decimals)
            if is_classifier(estimator):
                colour = colours(int(np.argmax(value)) % 10)
                style = dict(box, facecolor=colour, alpha=0.35, edgecolor=colour)
            else:
                style = dict(box, facecolor="#eeeeee", edgecolor="#888888")
            ax.text(x, y, f"{text}\n{samples}", ha="center", va="center", fontsize=fontsize,
                    bbox=style)
        else:
            ax.text(x, y, f"{names[tree.feature[node]]}\n{samples}", ha="center", va="center",
                    fontsize=fontsize, bbox=dict(box, facecolor="white", edgecolor="#333333"))
    for parent, child, label in edges:
        (x0, y0), (x1, y1) = (position[parent], -depth[parent]), (position[child], -depth[child])
        ax.plot([x0, x1], [y0 - 0.22, y1 + 0.22], color="#555555", linewidth=0.8)
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, label, ha="center", va="center",
                fontsize=fontsize * 0.85, color="#333333",
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none"))
    ax.set_xlim(-0.7, n_leaves - 0.3)
    ax.set_ylim(-max_depth - 0.6, 0.6)
    ax.set_axis_off()
    return ax


def _cart_path(estimator, X, y):
    """Return (complexity, train loss) of each tree of CART's cost-complexity pruning path.

    The CART tree has the estimator's depth and is measured with the estimator's own loss and
    complexity (including ``feature_costs``), so that its points are comparable with the front.
    """
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    classifier = is_classifier(estimator)
    depth = getattr(estimator, "max_depth_", None) or estimator.max_depth
    cart_class = DecisionTreeClassifier if classifier else DecisionTreeRegressor
    path = cart_class(max_depth=depth, random_state=0).cost_complexity_pruning_path(X, y)
    costs = getattr(estimator, "feature_costs", None)
    points = []
    for ccp_alpha in path.ccp_alphas:
        tree = cart_class(max_depth=depth, random_state=0, ccp_alpha=ccp_alpha).fit(X, y).tree_
        split = tree.children_left >= 0
        cost = (np.ones(tree.n_features) if costs is None
                else np.asarray(costs, dtype=float))[tree.feature[split]]
        if getattr(estimator, "complexity", "expected_tests") == "expected_tests":
            weights = tree.weighted_n_node_samples[split] / tree.weighted_n_node_samples[0]
            complexity = float(np.sum(weights * cost))
        else:
            complexity = float(np.sum(cost))
        leaf = tree.apply(np.asarray(X, dtype=np.float32))
        if classifier:
            predicted = np.take(np.unique(y), np.argmax(tree.value[leaf, 0], axis=1))
            loss = float(np.mean(predicted != np.asarray(y)))
        else:
            targets = np.asarray(y, dtype=float).reshape(len(leaf), -1)
            loss = float(np.sum(np.mean((tree.value[leaf, :, 0] - targets) ** 2, axis=0)))
        points.append((complexity, loss))
    return np.array(sorted(set(points)))


def plot_pareto(estimator, ax=None, *, show_cart=True, X=None, y=None):
    """Plot the Pareto front of a fitted DPDT estimator: accuracy (or loss) against complexity.

    Every tree of ``pareto_front_`` is a point (complexity, train accuracy) for classifiers or
    (complexity, train mean squared error) for regressors, numbered by its leaves. The segments
    between them are the lower convex hull of (complexity, loss): no tree built from the
    candidate splits lies beyond it. A front of ``front="pareto"`` is drawn as steps: at each
    complexity, the best tree of at most that complexity. With the training data, CART's
    cost-complexity pruning path (same depth, measured with the same loss and complexity) is
    drawn beside it.
    Estimators that carry a ``validation_curve_`` (the cross-validated ``DPDTreeClassifierCV``
    and ``DPDTreeRegressorCV``) also show the mean validation score, with a band of one
    standard deviation, against complexity.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor or their CV versions
        A fitted estimator with a ``pareto_front_``.
    ax : matplotlib Axes, default=None
        Axes to draw on; None creates a figure.
    show_cart : bool, default=True
        Draw CART's pruning path; needs ``X`` and ``y``.
    X : array-like of shape (n_samples, n_features), default=None
        The training samples, for CART's path.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
        The training targets, for CART's path.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dpdt import DPDTreeClassifier, datasets, plot_pareto
    >>> data = datasets.load("bank")
    >>> clf = DPDTreeClassifier(max_depth=3).fit(data.X_train, data.y_train)
    >>> ax = plot_pareto(clf, X=data.X_train, y=data.y_train)
    >>> ax.get_ylabel()
    'train accuracy'
    """
    check_is_fitted(estimator)
    if not hasattr(estimator, "pareto_front_"):
        raise TypeError(f"{type(estimator).__name__} has no pareto_front_ to plot")
    if show_cart and (X is None) != (y is None):
        raise ValueError("CART's pruning path needs both X and y")
    classifier = is_classifier(estimator)
    front = np.sort(estimator.pareto_front_, order="complexity")
    ax = _axes(ax, figsize=(7.0, 4.5))

    def metric(loss):
        return 1.0 - loss if classifier else loss

    # A convex front is the lower hull of (complexity, loss): straight segments between its
    # trees show that a point beyond the hull (e.g. CART's) loses for every alpha. A Pareto
    # front's trees are all there is below the steps.
    steps = {"drawstyle": "steps-post"} if getattr(estimator, "front", "convex") == "pareto" else {}
    ax.plot(front["complexity"], metric(front["train_loss"]), color="C0", linewidth=1.5,
            marker="o", label="DPDT Pareto front", **steps)
    for row in front:
        ax.annotate(f"{row['n_leaves']}", (row["complexity"], metric(row["train_loss"])),
                    textcoords="offset points", xytext=(4, 4), fontsize=7, color="C0")
    if show_cart and X is not None:
        cart = _cart_path(estimator, X, y)
        ax.plot(cart[:, 0], metric(cart[:, 1]), color="C3", linewidth=1.0, marker="s",
                markersize=4, linestyle="--", label="CART pruning path")
    curve = getattr(estimator, "validation_curve_", None)
    scoring = getattr(estimator, "scoring", None)
    same_scale = classifier and scoring in (None, "accuracy")
    if curve is not None:
        target = ax if same_scale else ax.twinx()
        for k, depth in enumerate(np.unique(curve["max_depth"])):
            rows = np.sort(curve[curve["max_depth"] == depth], order="complexity")
            colour = f"C{2 + k}"
            target.plot(rows["complexity"], rows["mean_score"], color=colour, marker=".",
                        label=f"validation (depth {depth})")
            target.fill_between(rows["complexity"], rows["mean_score"] - rows["std_score"],
                                rows["mean_score"] + rows["std_score"], color=colour, alpha=0.15)
        if not same_scale:
            target.set_ylabel(f"validation {scoring or 'R²'}")
            target.legend(loc="center right", fontsize=8)
    what = "expected tests per sample" if getattr(estimator, "complexity", "") == \
        "expected_tests" else "number of splits"
    ax.set_xlabel(f"complexity ({what})")
    if curve is not None and same_scale:
        ax.set_ylabel("accuracy (train, validation)")
    else:
        ax.set_ylabel("train accuracy" if classifier else "train mean squared error")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title("Pareto front (numbers: leaves)", fontsize=10)
    return ax
