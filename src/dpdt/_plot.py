"""Pictures of fitted trees and of their Pareto fronts (matplotlib, the optional ``plot`` extra)."""

import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ._export import (
    category_names,
    check_class_names,
    display_feature_names,
    node_prediction,
    node_value,
)
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


# Font sizes of tree pictures, in points: the largest that the figure's space allows, up to
# _LARGEST; below _READABLE a figure of our own grows instead, and a user's axes get shorter
# node text (and, if even that does not fit, the size that fits and a warning).
_LARGEST, _READABLE, _SMALLEST = 11.0, 6.0, 1.0
# Our own figure grows up to this many inches (60 000 pixels at 100 dpi: Agg draws at most
# 65 536 a side).
_WIDEST = 600.0


def _extents(texts, renderer):
    """Return the window extents (x0, y0, x1, y1) in pixels of texts, their bbox patch included.

    A patch's extent is the text's grown by the box's pad (a fraction of the font size) and its
    line: measuring the rounded path itself costs ten times more.
    """
    boxes = []
    for text in texts:
        x0, y0, x1, y1 = text.get_window_extent(renderer).extents
        patch = text.get_bbox_patch()
        grow = 0.0
        if patch is not None:
            points = patch.get_boxstyle().pad * text.get_fontsize() + patch.get_linewidth()
            grow = renderer.points_to_pixels(points)
        boxes.append((x0 - grow, y0 - grow, x1 + grow, y1 + grow))
    return np.array(boxes).reshape(-1, 4)


def _largest_scale(ax, texts):
    """Return how much the font of ``texts`` can grow before two overlap, and along which axis.

    The scale is how much the font can grow (below 1: must shrink) before two texts overlap or
    one leaves the axes; the axis (0: x, 1: y) is the one along which that limit holds.

    Like scikit-learn's tree plots, the texts are measured at their current font; unlike them,
    every pair is checked rather than the largest box against the smallest spacing, which keeps
    the font as large as the actual neighbours allow. A text keeps its anchor when its font
    changes and its extent scales with the font, so a pair stays apart up to the scale where
    its extents would meet along x or along y.
    """
    renderer = ax.figure.canvas.get_renderer()
    box = _extents(texts, renderer)
    anchor = ax.transData.transform([text.get_position() for text in texts])
    # Extents relative to the anchors, which stay fixed when the font scales.
    low, high = box[:, :2] - anchor, box[:, 2:] - anchor
    with np.errstate(divide="ignore", invalid="ignore"):
        # For the pair (i, j) with j after i along an axis: i's high side meets j's low side.
        gap = anchor[None, :, :] - anchor[:, None, :]
        reach = np.where(gap >= 0, high[:, None, :] - low[None, :, :],
                         high[None, :, :] - low[:, None, :])
        scale = np.where(reach > 0, np.abs(gap) / reach, np.inf)
        pair = np.max(scale, axis=2)          # apart along x or along y is enough
        np.fill_diagonal(pair, np.inf)
        frame = ax.get_window_extent(renderer).extents
        inside = np.concatenate([(anchor - frame[:2]) / -low, (frame[2:] - anchor) / high], axis=1)
        inside = np.where(np.isfinite(inside) & (inside > 0), inside, np.inf)
    # The axis along which the tightest constraint holds: the one more space would relax.
    if pair.min() <= inside.min():
        i, j = np.unravel_index(np.argmin(pair), pair.shape)
        axis = int(np.argmax(scale[i, j]))
    else:
        axis = int(np.argmin(inside.min(axis=0))) % 2
    return float(min(pair.min(), inside.min())), axis


def _fit_fonts(ax, texts, largest):
    """Set the largest font under ``largest`` at which no two texts overlap; return it.

    Edge labels keep 85 % of the node font. Text extents scale with the font only up to
    rounding, so the result is measured again and shrunk until it holds.
    """
    ratios = np.array([text.get_fontsize() for text in texts])
    ratios = ratios / ratios.max()
    # Quarter points: the sizes met again while a figure grows reuse matplotlib's text cache.
    size = min(largest, texts[0].get_fontsize() / ratios[0] * _largest_scale(ax, texts)[0])
    best = None
    for _ in range(6):
        size = max(_SMALLEST, min(largest, np.floor(4 * size * 0.98) / 4))
        for text, ratio in zip(texts, ratios, strict=True):
            text.set_fontsize(size * ratio)
        # Small text is not exactly proportional to its font (rounding to pixels): measured
        # again, the size moves up or down until it fits with little room to spare.
        scale, _ = _largest_scale(ax, texts)
        if scale >= 1.0:
            best = size if best is None else max(best, size)
        if (1.0 <= scale < 1.05 or (scale >= 1.0 and size == largest)
                or (scale < 1.0 and size == _SMALLEST)):
            break
        size *= scale
    if best is not None and best != size:
        size = best
        for text, ratio in zip(texts, ratios, strict=True):
            text.set_fontsize(size * ratio)
    return size


def _layout(estimator, tree, names, decimals):
    """Return the node positions and the (parent, child, label) edges.

    Leaves take consecutive x in preorder, parents are centred over their children, y = -depth.
    """
    position, edges = {}, []
    next_leaf = [0]

    def place(node, level):
        children = _children(estimator, tree, node, names, decimals)
        if not children:
            position[node] = (next_leaf[0], -level)
            next_leaf[0] += 1
            return
        for label, child in children:
            place(child, level + 1)
            edges.append((node, child, label))
        position[node] = (np.mean([position[child][0] for _, child in children]), -level)

    place(0, 0)
    return position, edges


def _node_texts(estimator, tree, names, class_names, decimals, short):
    """Return the text of every node; ``short`` drops the words that the picture can spare."""
    texts = []
    for node in range(tree.node_count):
        samples = f"{'n' if short else 'samples'} = {int(tree.n_node_samples[node])}"
        if tree.feature[node] < 0:
            text = node_prediction(estimator, node_value(tree, node), class_names, decimals)
            if short:
                text = text.split(": ", 1)[1]
        else:
            text = names[tree.feature[node]]
        texts.append(f"{text}\n{samples}")
    return texts


def plot_tree(estimator, ax=None, *, feature_names=None, class_names=None, decimals=3,
              fontsize=None):
    """Draw the current tree of a fitted estimator with matplotlib.

    Split nodes show the feature tested and their edges the threshold (or the category, for
    multiway trees); leaves show the predicted class (or value) and every node its number of
    training samples. Leaves are spread evenly and each parent is centred above its children.

    The font is the largest (up to 11 pt) at which no two texts overlap, measured on the
    figure. When ``ax`` is None the figure is sized to the tree and widened until the font is
    at least 6 pt. In a given ``ax`` whose space does not allow 6 pt, nodes show shorter text
    (``n = 50`` for ``samples = 50``, the class without ``class:``); if even that does not fit,
    the font that fits is used and a warning says so: a full depth-6 tree has 64 leaves, which a
    (8, 5) figure can only show at about 2 pt.

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
        Font size of the nodes (edge labels get 85 % of it); None chooses the largest that
        fits. A given size is used as it is, overlaps or not.

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
    check_class_names(estimator, class_names)
    tree = estimator.tree_
    names = display_feature_names(estimator, feature_names)
    position, edges = _layout(estimator, tree, names, decimals)
    n_leaves = 1 + max(x for x, _ in position.values())
    max_depth = -min(y for _, y in position.values())
    ours = ax is None
    ax = _axes(ax, figsize=(min(24.0, _WIDEST, max(4.0, 1.2 * n_leaves)),
                            max(2.5, 1.4 * (max_depth + 1))))
    colours = _pyplot().get_cmap("tab10")
    box = dict(boxstyle="round,pad=0.3", linewidth=0.8)
    nodes = []
    for node, text in enumerate(_node_texts(estimator, tree, names, class_names, decimals,
                                            short=False)):
        if tree.feature[node] < 0 and is_classifier(estimator):
            colour = colours(int(np.argmax(node_value(tree, node))) % 10)
            # Opaque tints, so that the edges drawn centre to centre hide behind the boxes.
            tint = 0.65 + 0.35 * np.array(colour)[:3]
            style = dict(box, facecolor=np.append(tint, 1.0), edgecolor=colour)
        elif tree.feature[node] < 0:
            style = dict(box, facecolor="#eeeeee", edgecolor="#888888")
        else:
            style = dict(box, facecolor="white", edgecolor="#333333")
        nodes.append(ax.text(*position[node], text, ha="center", va="center", zorder=3,
                             fontsize=fontsize or _LARGEST, bbox=style))
    labels, siblings_before = [], {}
    for parent, child, label in edges:
        # The edges of a parent come in the order of its children.
        sibling = siblings_before.get(parent, 0)
        siblings_before[parent] = sibling + 1
        (x0, y0), (x1, y1) = position[parent], position[child]
        ax.plot([x0, x1], [y0, y1], color="#555555", linewidth=0.8, zorder=1)
        # Siblings' labels go 35 %, 65 % (and 50 %, for a third) of the way down, in turn, so
        # that labels of neighbouring edges are apart vertically when they are close
        # horizontally, and away from the boxes at both ends.
        t = (0.35, 0.65, 0.5)[sibling % 3]
        labels.append(ax.text(x0 + t * (x1 - x0), y0 + t * (y1 - y0), label, ha="center",
                              va="center", fontsize=0.85 * (fontsize or _LARGEST),
                              color="#333333", zorder=2,
                              bbox=dict(boxstyle="round,pad=0.1", facecolor="white",
                                        edgecolor="none")))
    ax.set_xlim(-0.5, n_leaves - 0.5)
    ax.set_ylim(-max_depth - 0.5, 0.5)
    ax.set_axis_off()
    if fontsize is not None:
        return ax
    texts = nodes + labels
    size = _fit_fonts(ax, texts, _LARGEST)
    if size < _READABLE and ours:
        # Our own figure grows until the font is readable, along the axis that limits it.
        figure = ax.figure
        for _ in range(4):
            _, axis = _largest_scale(ax, texts)
            width_height = figure.get_size_inches()
            if width_height[axis] >= _WIDEST:
                break
            width_height[axis] = min(_WIDEST, width_height[axis] * _READABLE / size * 1.02)
            figure.set_size_inches(width_height)
            size = _fit_fonts(ax, texts, _LARGEST)
            if size >= _READABLE:
                break
    if size < _READABLE and ours:
        width, height = ax.figure.get_size_inches()
        warnings.warn(f"plot_tree: the tree ({n_leaves} leaves, depth {max_depth}) is drawn at "
                      f"{size:.1f} pt in a {width:.0f} x {height:.0f} inch figure, the largest "
                      "it gets; pass fontsize= to choose", UserWarning, stacklevel=2)
    elif size < _READABLE:
        short = _node_texts(estimator, tree, names, class_names, decimals, short=True)
        for text, label in zip(nodes, short, strict=True):
            text.set_text(label)
        size = _fit_fonts(ax, texts, _LARGEST)
        if size < _READABLE:
            warnings.warn(f"plot_tree: the tree ({n_leaves} leaves, depth {max_depth}) fits "
                          f"these axes only at {size:.1f} pt; give it a larger figure, or "
                          "let plot_tree make its own (ax=None)", UserWarning, stacklevel=2)
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
    data = pareto_data(estimator, X=X, y=y, show_cart=show_cart)
    classifier = data["classifier"]
    front = data["front"]
    ax = _axes(ax, figsize=(7.0, 4.5))
    # One colour per series: the front, CART's path, the chosen tree, then the validation
    # curves in colours none of those has.
    validation_colours = ["C2", "C1", "C4", "C5", "C6", "C8", "C9", "C7"]

    def metric(loss):
        return 1.0 - loss if classifier else loss

    # A convex front is the lower hull of (complexity, loss): straight segments between its
    # trees show that a point beyond the hull (e.g. CART's) loses for every alpha. A Pareto
    # front's trees are all there is below the steps.
    steps = {"drawstyle": "steps-post"} if data["steps"] else {}
    ax.plot(front["complexity"], metric(front["train_loss"]), color="C0", linewidth=1.5,
            marker="o", label="DPDT Pareto front", **steps)
    cart = data["cart"]
    if cart is not None:
        ax.plot(cart[:, 0], metric(cart[:, 1]), color="C3", linewidth=1.0, marker="s",
                markersize=4, linestyle="--", label="CART pruning path")
    curves = data["curves"]
    same_scale = data["same_scale"]
    target = ax
    if curves:
        target = ax if same_scale else ax.twinx()
        n_rows = sum(len(rows) for _, rows in curves)
        for k, (depth, rows) in enumerate(curves):
            colour = validation_colours[k % len(validation_colours)] \
                if k < len(validation_colours) else _pyplot().get_cmap("viridis")(k / n_rows)
            target.plot(rows["complexity"], rows["mean_score"], color=colour, marker=".",
                        label=f"validation (depth {depth})")
            target.fill_between(rows["complexity"], rows["mean_score"] - rows["std_score"],
                                rows["mean_score"] + rows["std_score"], color=colour, alpha=0.15)
    _mark_chosen(data["chosen"], ax, target, metric)
    if curves and not same_scale:
        target.set_ylabel(data["validation_label"])
        target.legend(loc="center right", fontsize=8)
    ax.set_xlabel(data["xlabel"])
    if curves and same_scale:
        ax.set_ylabel("accuracy (train, validation)")
    else:
        ax.set_ylabel(data["ylabel"])
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.set_title("Pareto front (numbers: leaves)", fontsize=10)
    _label_leaves(ax, front["complexity"], metric(front["train_loss"]), front["n_leaves"])
    return ax


def pareto_data(estimator, *, X=None, y=None, show_cart=True):
    """Return what a picture of the front shows, as arrays: :func:`plot_pareto`'s data.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor or their CV versions
        A fitted estimator with a ``pareto_front_``.
    X, y : array-like, default=None
        The training data, for CART's pruning path.
    show_cart : bool, default=True
        Compute CART's path (when ``X`` and ``y`` are given).

    Returns
    -------
    data : dict
        ``classifier`` (bool); ``front`` (``pareto_front_`` sorted by complexity) and
        ``order`` (the indices that sort it, into ``pareto_front_`` and ``trees_``); ``steps``
        (True for ``front="pareto"``: drawn as steps); ``cart`` (array of (complexity, train
        loss) rows, or None); ``curves`` (a list of (max_depth, rows of ``validation_curve_``
        sorted by complexity)); ``same_scale`` (the validation score is an accuracy, on the
        train accuracy's scale); ``chosen`` (the tree the estimator predicts with: its
        ``row`` of the front, the parameter ``name`` and value ``alpha`` choosing it, its
        ``label`` and its ``curve_point`` (complexity, score) or None); ``xlabel``,
        ``ylabel`` and ``validation_label``.
    """
    check_is_fitted(estimator)
    if not hasattr(estimator, "pareto_front_"):
        raise TypeError(f"{type(estimator).__name__} has no pareto_front_ to plot")
    if show_cart and (X is None) != (y is None):
        raise ValueError("CART's pruning path needs both X and y")
    classifier = is_classifier(estimator)
    curve = getattr(estimator, "validation_curve_", None)
    curves = [] if curve is None else [
        (int(depth), np.sort(curve[curve["max_depth"] == depth], order="complexity"))
        for depth in np.unique(curve["max_depth"])]
    scoring = getattr(estimator, "scoring", None)
    what = "expected tests per sample" if getattr(estimator, "complexity", "") == \
        "expected_tests" else "number of splits"
    order = np.argsort(estimator.pareto_front_, order="complexity", kind="stable")
    return {
        "classifier": classifier,
        "order": order,
        "front": estimator.pareto_front_[order],
        "steps": getattr(estimator, "front", "convex") == "pareto",
        "cart": _cart_path(estimator, X, y) if show_cart and X is not None else None,
        "curves": curves,
        "same_scale": classifier and scoring in (None, "accuracy"),
        "chosen": _chosen(estimator),
        "xlabel": f"complexity ({what})",
        "ylabel": "train accuracy" if classifier else "train mean squared error",
        "validation_label": f"validation {scoring or 'R²'}",
    }


def _chosen(estimator):
    """Return the tree the estimator predicts with, where it is on the front and on the curve."""
    if hasattr(estimator, "alpha_"):
        model, name, alpha = estimator.best_estimator_, "alpha_", estimator.alpha_
    else:
        model, name, alpha = estimator, "alpha", estimator.alpha
    index = model._front_index(alpha, getattr(model, "max_complexity", None))
    row = model.pareto_front_[index]
    depth = f"depth {estimator.max_depth_}, " if hasattr(estimator, "max_depth_") else ""
    curve = getattr(estimator, "validation_curve_", None)
    point = None
    if curve is not None:
        depth_limit = getattr(estimator, "max_depth_", getattr(estimator, "max_depth", None))
        rows = curve[(curve["max_depth"] == depth_limit) & (curve["alpha"] == alpha)]
        if len(rows):
            point = (float(rows["complexity"][0]), float(rows["mean_score"][0]))
    return {"index": index, "row": row, "name": name, "alpha": alpha, "curve_point": point,
            "label": f"chosen tree ({name} = {alpha:.3g}, {depth}{row['n_leaves']} leaves)"}


def _mark_chosen(chosen, ax, target, metric):
    """Mark the chosen tree (see :func:`pareto_data`) by a star on the front.

    A second star, with no legend entry of its own, marks it on its depth's validation curve.
    """
    row = chosen["row"]
    star = dict(marker="*", markersize=13, color="gold", markeredgecolor="black",
                markeredgewidth=0.8, linestyle="none", zorder=5)
    ax.plot([row["complexity"]], [metric(row["train_loss"])], label=chosen["label"], **star)
    if chosen["curve_point"] is not None:
        complexity, score = chosen["curve_point"]
        target.plot([complexity], [score], label="_chosen", **star)


def _label_leaves(ax, x, y, n_leaves):
    """Label the front's points with their number of leaves, no two labels overlapping.

    Each label goes to the first corner beside its point where it meets no other label, the
    legend or the axes' edge; a label with no such place is left out (its neighbours, a few
    leaves apart, tell it).
    """
    figure = ax.figure
    renderer = figure.canvas.get_renderer()
    figure.canvas.draw()   # final limits and legend, so that the extents below are the drawn ones
    legend = ax.get_legend()
    taken = [legend.get_window_extent(renderer)] if legend is not None else []
    frame = ax.get_window_extent(renderer)
    places = [((4, 4), "left", "bottom"), ((4, -4), "left", "top"),
              ((-4, 4), "right", "bottom"), ((-4, -4), "right", "top")]
    # The simplest trees first: they are the ones a reader looks for.
    for xi, yi, leaves in sorted(zip(x, y, n_leaves, strict=True), key=lambda p: p[2]):
        for offset, ha, va in places:
            label = ax.annotate(f"{leaves}", (xi, yi), textcoords="offset points", xytext=offset,
                                ha=ha, va=va, fontsize=7, color="C0")
            box = label.get_window_extent(renderer)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 \
                and box.y1 <= frame.y1
            if inside and not any(box.overlaps(other) for other in taken):
                taken.append(box)
                break
            label.remove()
