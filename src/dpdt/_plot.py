"""Pictures of fitted trees and of their Pareto fronts (matplotlib, the optional ``plot`` extra)."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils import check_scalar
from sklearn.utils.validation import check_is_fitted

from ._export import (
    VALUE_DECIMALS,
    category_names,
    check_class_names,
    display_feature_names,
    node_prediction,
    node_value,
    threshold_text,
    tree_estimator,
)
from ._front import held_out_figures
from ._multiway_tree import MultiwayTree
from ._optional import require
from ._palette import SERIES_COLOURS, class_colour, validation_style
from ._progress import reporter


def _pyplot(purpose="plotting"):
    return require("matplotlib.pyplot", purpose)


def _axes(ax, figsize, purpose):
    if ax is not None:
        return ax
    _, ax = _pyplot(purpose).subplots(figsize=figsize)
    return ax


def _children(estimator, tree, node, names, decimals):
    """Return the (edge label, child) pairs of a node, for binary and multiway trees alike."""
    if isinstance(tree, MultiwayTree):
        categories = category_names(estimator, int(tree.feature[node]))
        return [(categories[category], child) for category, child in tree.children(node)]
    if tree.feature[node] < 0:
        return []
    t = threshold_text(tree.threshold[node], decimals)
    return [(f"<= {t}", int(tree.children_left[node])),
            (f"> {t}", int(tree.children_right[node]))]


# Font sizes of tree pictures, in points: the largest that the figure's space allows, up to
# _LARGEST; below _READABLE a figure of our own grows instead, and a user's axes get shorter
# node text (and, if even that does not fit, the size that fits and a warning).
_LARGEST, _READABLE, _SMALLEST = 11.0, 6.0, 1.0
# Our own figure grows up to this many inches (60 000 pixels at 100 dpi: Agg draws at most
# 65 536 a side).
_WIDEST = 600.0


def _anchors(ax, texts):
    """Return the anchors of ``texts`` in pixels: they move with the axes, not with the font."""
    return ax.transData.transform([text.get_position() for text in texts])


def _measure(ax, texts):
    """Return the extents of ``texts`` around their anchors as linear functions of the font.

    Returns ``(low, high, line)``: with the node font at ``s`` points (edge labels keep their
    ratio to it), text i, its box included, reaches ``low[i] * s + line[i]`` pixels left of and
    below its anchor and ``high[i] * s + line[i]`` right of and above it. A text keeps its
    anchor when its font changes and its extent scales with the font; its box adds a pad (a
    fraction of the font) and a line of fixed width. So one measurement gives the extents at
    every font, up to the pixel rounding of small text, which callers check by measuring
    again. Measuring text is what costs (a millisecond a text); this is done once per font
    tried, not once per size of the figure. Measuring the rounded patch itself would cost ten
    times more.
    """
    renderer = ax.figure.canvas.get_renderer()
    per_point = renderer.points_to_pixels(1.0)
    sizes = np.array([text.get_fontsize() for text in texts])
    box = np.array([text.get_window_extent(renderer).extents for text in texts]).reshape(-1, 4)
    pad, line = np.zeros(len(texts)), np.zeros(len(texts))
    for k, text in enumerate(texts):
        patch = text.get_bbox_patch()
        if patch is not None:
            pad[k] = patch.get_boxstyle().pad * sizes[k] * per_point
            line[k] = patch.get_linewidth() * per_point
    anchor = _anchors(ax, texts)
    low = (anchor - box[:, :2] + pad[:, None]) / sizes.max()
    high = (box[:, 2:] - anchor + pad[:, None]) / sizes.max()
    return low, high, line


def _largest_size(ax, texts, extents):
    """Return the largest node font at which no two texts overlap, and the axis that limits it.

    ``extents`` are ``_measure``'s, so that trying another figure size measures no text. At
    the font returned every pair of texts is apart along x or along y and every text is
    inside the axes; the axis (0: x, 1: y) is the one along which the tightest constraint
    holds, the one that more space would relax.

    Like scikit-learn's tree plots, the texts are measured at one font; unlike them, every
    pair is checked rather than the largest box against the smallest spacing, which keeps the
    font as large as the actual neighbours allow.
    """
    low, high, line = extents
    anchor = _anchors(ax, texts)
    with np.errstate(divide="ignore", invalid="ignore"):
        # For the pair (i, j) with j after i along an axis: i's high side meets j's low side.
        gap = anchor[None, :, :] - anchor[:, None, :]
        slope = np.where(gap >= 0, high[:, None, :] + low[None, :, :],
                         high[None, :, :] + low[:, None, :])
        room = np.abs(gap) - line[:, None, None] - line[None, :, None]
        size = np.where(slope > 0, room / slope, np.inf)
        pair = np.max(size, axis=2)          # apart along x or along y is enough
        np.fill_diagonal(pair, np.inf)
        frame = ax.bbox.extents
        inside = np.concatenate([(anchor - frame[:2] - line[:, None]) / low,
                                 (frame[2:] - anchor - line[:, None]) / high], axis=1)
        inside = np.where(np.isfinite(inside), inside, np.inf)
    if pair.min() <= inside.min():
        i, j = np.unravel_index(np.argmin(pair), pair.shape)
        axis = int(np.argmax(size[i, j]))
    else:
        axis = int(np.argmin(inside.min(axis=0))) % 2
    return float(min(pair.min(), inside.min())), axis


def _set_node_font(texts, ratios, size):
    for text, ratio in zip(texts, ratios, strict=True):
        text.set_fontsize(size * ratio)


def _quarter(size, largest):
    """Return the quarter point at most ``size`` less 1 %, within [_SMALLEST, largest].

    Quarter points: the sizes met again while a figure grows reuse matplotlib's text cache;
    1 % under the computed font leaves room for the rounding of small text.
    """
    return max(_SMALLEST, min(largest, np.floor(4 * size * 0.99) / 4))


def _fit_fonts(ax, texts, largest, extents=None):
    """Set the largest node font under ``largest`` at which no two texts overlap.

    Edge labels keep their ratio to the node font (85 %). The font is computed from the
    extents measured at the current font (``extents``, or measured here), then measured at
    that font: small text is not exactly proportional to its font (rounding to pixels), so a
    font that does not fit is shrunk, and one that fits with more than 5 % to spare grown,
    each measured again. Returns the font and the extents measured at it.
    """
    ratios = np.array([text.get_fontsize() for text in texts])
    ratios = ratios / ratios.max()
    if extents is None:
        extents = _measure(ax, texts)
    best, failed = None, np.inf      # (font, extents) that fits; the smallest font that did not
    size = _quarter(_largest_size(ax, texts, extents)[0], largest)
    for _ in range(6):
        _set_node_font(texts, ratios, size)
        extents = _measure(ax, texts)
        fits, _ = _largest_size(ax, texts, extents)
        if fits >= size:
            best = (size, extents)
            # Not worth measuring again: little room to spare, or a readable font that would
            # gain less than half a point (text widths jitter by some 5 % from one quarter
            # point to the next, so a climb goes one quarter at a time).
            if fits < 1.05 * size or size == largest or (size >= _READABLE
                                                         and fits < size + 0.5):
                break
        else:
            failed = min(failed, size)
        if size == _SMALLEST and best is None:
            best = (size, extents)       # the smallest font there is, fitting or not
            break
        following = max(_SMALLEST, min(_quarter(fits, largest), failed - 0.25))
        if best is not None and following <= best[0]:
            break
        size = following
    if best is None:
        best = (size, extents)
    if best[0] != size:
        _set_node_font(texts, ratios, best[0])
    return best


def _grow(ax, texts, extents, target):
    """Grow our own figure until the font ``target`` fits, up to ``_WIDEST`` inches a side.

    Along the axis that limits the font, by arithmetic on the measured extents: the anchors
    move with the figure, the texts' pixels do not. Returns whether the figure grew.
    """
    figure = ax.figure
    grew = False
    for _ in range(20):
        size, axis = _largest_size(ax, texts, extents)
        if size >= target:
            break
        width_height = figure.get_size_inches()
        if width_height[axis] >= _WIDEST:
            break
        width_height[axis] = min(_WIDEST, width_height[axis] * target / max(size, _SMALLEST)
                                 * 1.02)
        figure.set_size_inches(width_height)
        grew = True
    return grew


# The text of a subtree that plot_tree(max_depth=...) leaves out, as scikit-learn draws it.
_TRUNCATED = "(...)"


def _layout(estimator, tree, names, decimals, max_depth):
    """Return the node positions, the (parent, child, label) edges and the truncated nodes.

    Leaves take consecutive x in preorder, parents are centred over their children, y = -depth.
    A node deeper than ``max_depth`` is drawn as a leaf standing for its subtree.
    """
    position, edges, truncated = {}, [], set()
    next_leaf = [0]

    def place(node, level):
        children = _children(estimator, tree, node, names, decimals)
        if max_depth is not None and level > max_depth:
            truncated.add(node)
            children = []
        if not children:
            position[node] = (next_leaf[0], -level)
            next_leaf[0] += 1
            return
        for label, child in children:
            place(child, level + 1)
            edges.append((node, child, label))
        position[node] = (np.mean([position[child][0] for _, child in children]), -level)

    place(0, 0)
    return position, edges, truncated


def _node_texts(estimator, tree, nodes, truncated, names, class_names, decimals, short):
    """Return the text of each of ``nodes``; ``short`` drops the words the picture can spare."""
    texts = []
    for node in nodes:
        if node in truncated:
            texts.append(_TRUNCATED)
            continue
        samples = f"{'n' if short else 'samples'} = {int(tree.n_node_samples[node])}"
        if tree.feature[node] < 0:
            digits = VALUE_DECIMALS if decimals is None else decimals
            text = node_prediction(estimator, node_value(tree, node), class_names, digits)
            if short:
                text = text.split(": ", 1)[1]
        else:
            text = names[tree.feature[node]]
        texts.append(f"{text}\n{samples}")
    return texts


def _box_style(estimator, tree, node, truncated, colours):
    """Return the box of a node: tinted by class (or a policy's action) for the leaves."""
    box = dict(boxstyle="round,pad=0.3", linewidth=0.8)
    if node in truncated:
        return dict(box, facecolor="white", edgecolor="#aaaaaa", linestyle="--")
    if tree.feature[node] < 0 and (is_classifier(estimator) or hasattr(estimator, "actions_")):
        colour = colours(int(np.argmax(node_value(tree, node))))
        # Opaque tints, so that the edges drawn centre to centre hide behind the boxes.
        tint = 0.65 + 0.35 * np.array(colour)[:3]
        return dict(box, facecolor=np.append(tint, 1.0), edgecolor=colour)
    if tree.feature[node] < 0:
        return dict(box, facecolor="#eeeeee", edgecolor="#888888")
    return dict(box, facecolor="white", edgecolor="#333333")


def plot_tree(estimator, ax=None, *, max_depth=None, feature_names=None, class_names=None,
              decimals=None, fontsize=None):
    """Draw the current tree of a fitted estimator with matplotlib.

    Split nodes show the feature tested and their edges the threshold (or the category, for
    multiway trees); leaves show the predicted class (or value) and every node its number of
    training samples. Leaves are spread evenly and each parent is centred above its children.

    The font is the largest (up to 11 pt) at which no two texts overlap, measured on the
    figure. When ``ax`` is None the figure is sized to the tree and widened until the font is
    at least 6 pt. In a given ``ax`` whose space does not allow 6 pt, nodes show shorter text
    (``n = 50`` for ``samples = 50``, the class without ``class:``); if even that does not fit,
    the font that fits is used and a warning says so: a full depth-6 tree has 64 leaves, which a
    (8, 5) figure can only show at about 2 pt. ``max_depth`` draws the top of a deep tree
    instead, readable.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor, BranchesClassifier, other tree or Pipeline
        A fitted estimator; its ``tree_`` (the tree of the current ``alpha``) is drawn. A
        scikit-learn Pipeline whose last step is one draws that step's tree, its features
        named after what the step sees (the names the steps before it give their outputs).
    ax : matplotlib Axes, default=None
        Axes to draw on; None creates a figure sized to the tree.
    max_depth : int, default=None
        Draw the nodes down to this depth (the root is at depth 0); each subtree below is a
        ``(...)`` box under its edge, as in :func:`sklearn.tree.plot_tree`. None draws the
        whole tree.
    feature_names : list of str, default=None
        Names of the features; defaults to ``feature_names_in_`` or ``x[i]``.
    class_names : list of str, default=None
        Names of the classes; defaults to ``classes_``.
    decimals : int or None, default=None
        Digits of the thresholds and values; None as in :func:`export_text`.
    fontsize : float, default=None
        Font size of the nodes (edge labels get 85 % of it); None chooses the largest that
        fits. A given size is used as it is, overlaps or not.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Warns
    -----
    UserWarning
        When the text would be smaller than 6 pt: in the figure plot_tree makes, if the tree
        is too large even for a 600-inch figure; in a given ``ax``, if even the shorter text
        does not fit. The message names the size.

    Raises
    ------
    TypeError
        When ``estimator`` holds no single tree (nor ends with an estimator that does).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from dpdt import DPDTreeClassifier, plot_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> ax = plot_tree(DPDTreeClassifier(max_depth=2).fit(X, y),
    ...                class_names=["setosa", "versicolor", "virginica"])
    >>> ax = plot_tree(DPDTreeClassifier(max_depth=4).fit(X, y), max_depth=1)
    >>> sum(text.get_text() == "(...)" for text in ax.texts)
    4
    """
    estimator, _, names = tree_estimator(estimator, "plot_tree")
    feature_names = names if feature_names is None else feature_names
    check_class_names(estimator, class_names)
    if max_depth is not None:
        check_scalar(max_depth, "max_depth", Integral, min_val=0)
    tree = estimator.tree_
    names = display_feature_names(estimator, feature_names)
    position, edges, truncated = _layout(estimator, tree, names, decimals, max_depth)
    drawn = sorted(position)
    n_leaves = 1 + max(x for x, _ in position.values())
    depth = -min(y for _, y in position.values())
    ours = ax is None
    ax = _axes(ax, figsize=(min(24.0, _WIDEST, max(4.0, 1.2 * n_leaves)),
                            max(2.5, 1.4 * (depth + 1))), purpose="plot_tree")
    from matplotlib.collections import LineCollection
    from matplotlib.colors import to_rgba

    def colours(k):
        return to_rgba(class_colour(k))

    nodes = [ax.text(*position[node], text, ha="center", va="center", zorder=3,
                     fontsize=fontsize or _LARGEST,
                     bbox=_box_style(estimator, tree, node, truncated, colours))
             for node, text in zip(drawn, _node_texts(estimator, tree, drawn, truncated, names,
                                                      class_names, decimals, short=False),
                                   strict=True)]
    # One collection for every edge: a Line2D each costs more than all the text drawn.
    ax.add_collection(LineCollection([[position[parent], position[child]]
                                      for parent, child, _ in edges],
                                     colors="#555555", linewidths=0.8, zorder=1))
    labels, siblings_before = [], {}
    for parent, child, label in edges:
        # The edges of a parent come in the order of its children.
        sibling = siblings_before.get(parent, 0)
        siblings_before[parent] = sibling + 1
        (x0, y0), (x1, y1) = position[parent], position[child]
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
    ax.set_ylim(-depth - 0.5, 0.5)
    ax.set_axis_off()
    if fontsize is not None:
        return ax
    texts = nodes + labels
    extents = _measure(ax, texts)
    if ours:
        # Our own figure grows until the font is readable, along the axis that limits it (a
        # little beyond, for the rounding of the font to quarter points).
        _grow(ax, texts, extents, _READABLE / 0.98)
    elif _largest_size(ax, texts, extents)[0] < _READABLE:
        short = _node_texts(estimator, tree, drawn, truncated, names, class_names, decimals,
                            short=True)
        for text, label in zip(nodes, short, strict=True):
            text.set_text(label)
        extents = _measure(ax, texts)
    size, extents = _fit_fonts(ax, texts, _LARGEST, extents)
    for _ in range(3):
        # Text measured at the font chosen can be a pixel wider than computed: grow again.
        if size >= _READABLE or not ours or not _grow(ax, texts, extents, _READABLE):
            break
        size, extents = _fit_fonts(ax, texts, _LARGEST, extents)
    if size < _READABLE and ours:
        width, height = ax.figure.get_size_inches()
        warnings.warn(f"plot_tree: the tree ({n_leaves} leaves, depth {depth}) is drawn at "
                      f"{size:.1f} pt in a {width:.0f} x {height:.0f} inch figure, the largest "
                      "it gets; pass max_depth= to draw its top, or fontsize= to choose",
                      UserWarning, stacklevel=2)
    elif size < _READABLE:
        warnings.warn(f"plot_tree: the tree ({n_leaves} leaves, depth {depth}) fits "
                      f"these axes only at {size:.1f} pt; give it a larger figure, let "
                      "plot_tree make its own (ax=None), or pass max_depth= to draw its "
                      "top", UserWarning, stacklevel=2)
    return ax


def _cart_path(estimator, X, y):
    """Return (complexity, train loss) of each tree of CART's cost-complexity pruning path.

    The CART tree has the estimator's depth and is measured with the estimator's own loss and
    complexity (including ``feature_costs``), so that its points are comparable with the front.
    CART is fitted once: the tree of each alpha of the path is that fit pruned (see
    :func:`_pruning_steps`), the tree a fit with ``ccp_alpha`` set to that alpha would give.
    """
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    classifier = is_classifier(estimator)
    depth = getattr(estimator, "max_depth_", None) or estimator.max_depth
    cart_class = DecisionTreeClassifier if classifier else DecisionTreeRegressor
    progress = reporter(getattr(estimator, "verbose", 0), "CART pruning path", "trees",
                        pending="fitting CART")
    with progress:
        tree = cart_class(max_depth=depth, random_state=0).fit(X, y).tree_
        alphas, pruned, ends = _pruning_steps(tree)
        # A fit with ccp_alpha prunes the steps in turn until one's alpha exceeds it; with
        # ccp_alpha = 0 it does not prune at all (scikit-learn's _prune_tree).
        later = alphas[None, 1:] > alphas[:, None]
        n_steps = np.where(later.any(axis=1), later.argmax(axis=1), len(pruned))
        n_steps[alphas == 0.0] = 0
        progress.update(total=len(np.unique(n_steps)))
        costs = getattr(estimator, "feature_costs", None)
        cost = (np.ones(tree.n_features) if costs is None
                else np.asarray(costs, dtype=float))[np.maximum(tree.feature, 0)]
        expected_tests = getattr(estimator, "complexity", "expected_tests") == "expected_tests"
        leaf = tree.apply(np.asarray(X, dtype=np.float32))
        if classifier:
            labels, codes = np.unique(y, return_inverse=True)
            node_class = np.argmax(tree.value[:, 0], axis=1)
        else:
            targets = np.asarray(y, dtype=float).reshape(len(leaf), -1)
        weight = tree.weighted_n_node_samples
        split = tree.children_left >= 0
        # owner[node]: the node whose leaf, in the pruned tree, holds what reached ``node``.
        owner = np.arange(tree.node_count)
        done, points = 0, set()
        for steps in np.unique(n_steps):
            for node in pruned[done:steps]:
                split[ends[node][0]:ends[node][1]] = False
                owner[ends[node][0]:ends[node][1]] = node
            done = steps
            # The expressions of the pruned tree's arrays, whose nodes keep their order.
            if expected_tests:
                complexity = float(np.sum(weight[split] / weight[0] * cost[split]))
            else:
                complexity = float(np.sum(cost[split]))
            node = owner[leaf]
            if classifier:
                loss = float(np.mean(node_class[node] != codes))
            else:
                loss = float(np.sum(np.mean((tree.value[node, :, 0] - targets) ** 2, axis=0)))
            points.add((complexity, loss))
            progress.update(advance=1)
        progress.finish()
    return np.array(sorted(points))


def _pruning_steps(tree):
    """Return the weakest-link pruning of a fitted scikit-learn tree, step by step.

    Returns ``(alphas, pruned, ends)``: ``alphas`` as ``ccp_alphas`` of scikit-learn's
    ``cost_complexity_pruning_path`` (0, then the effective alpha of each step), ``pruned``
    the node each step turns into a leaf, and ``ends[node]`` the range ``[node, end)`` of the
    node and its descendants in the tree's preorder numbering. The arithmetic is that of
    scikit-learn's ``_cost_complexity_prune``, operation for operation, so that each step
    prunes the node it prunes.
    """
    left, right = tree.children_left, tree.children_right
    n_nodes = tree.node_count
    # A fitted tree numbers its nodes in preorder, left child first: a subtree is a range.
    size = np.ones(n_nodes, dtype=np.intp)
    for node in range(n_nodes - 1, -1, -1):
        if left[node] >= 0:
            if left[node] != node + 1 or right[node] != node + 1 + size[left[node]]:
                raise ValueError("the tree's nodes are not numbered in preorder")
            size[node] += size[left[node]] + size[right[node]]
    ends = np.column_stack([np.arange(n_nodes), np.arange(n_nodes) + size])
    parent = np.full(n_nodes, -1)
    internal = left >= 0
    parent[left[internal]] = np.flatnonzero(internal)
    parent[right[internal]] = np.flatnonzero(internal)
    weight = tree.weighted_n_node_samples
    r_node = weight * tree.impurity / weight[0]
    r_branch = np.zeros(n_nodes)
    n_leaves = np.zeros(n_nodes, dtype=np.intp)

    def ancestors(node):
        found = []
        while parent[node] >= 0:
            node = parent[node]
            found.append(node)
        return found

    # Each leaf's weighted impurity bubbles up to its ancestors, leaves in index order.
    for leaf in np.flatnonzero(~internal):
        r_branch[leaf] = r_node[leaf]
        up = ancestors(leaf)
        for node in up:
            r_branch[node] += r_node[leaf]
        n_leaves[up] += 1
    candidate = internal.copy()
    alphas, pruned = [0.0], []
    while candidate[0]:
        rows = np.flatnonzero(candidate)
        subtree_alpha = (r_node[rows] - r_branch[rows]) / (n_leaves[rows] - 1)
        node = rows[np.argmin(subtree_alpha)]   # the first of the smallest, as scikit-learn
        start, end = ends[node]
        candidate[start:end] = False
        r_diff = r_node[node] - r_branch[node]
        r_branch[node] = r_node[node]
        up = ancestors(node)
        n_leaves[up] -= n_leaves[node] - 1
        n_leaves[node] = 0
        r_branch[up] += r_diff
        alphas.append(float(subtree_alpha.min()))
        pruned.append(node)
    return np.array(alphas), pruned, ends


def plot_pareto(estimator, ax=None, *, show_cart=True, X=None, y=None, X_test=None,
                y_test=None):
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
    standard deviation, against complexity. With held-out data, each tree's test accuracy (or
    mean squared error) is drawn next to its training one. The tree the estimator predicts
    with (its ``alpha``, or the CV estimators' ``alpha_``) is starred on every curve, its
    alpha in the legend.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor, their CV versions, or a Pipeline
        A fitted estimator with a ``pareto_front_``, or a scikit-learn Pipeline ending in one
        (``X`` and ``X_test`` then go through the steps before it).
    ax : matplotlib Axes, default=None
        Axes to draw on; None creates a figure.
    show_cart : bool, default=True
        Draw CART's pruning path; needs ``X`` and ``y``.
    X : array-like of shape (n_samples, n_features), default=None
        The training samples, for CART's path.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
        The training targets, for CART's path.
    X_test : array-like of shape (n_samples, n_features), default=None
        Held-out samples: draws the test curve (with ``y_test``).
    y_test : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
        Held-out targets.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    See Also
    --------
    plot_cost_front : A policy's front of value against total cost, after a fit with
        ``action_costs``.

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
    estimator, transform, _ = tree_estimator(estimator, "plot_pareto")
    if transform is not None:
        X = None if X is None else transform(X)
        X_test = None if X_test is None else transform(X_test)
    data = pareto_data(estimator, X=X, y=y, show_cart=show_cart, X_test=X_test,
                       y_test=y_test)
    classifier = data["classifier"]
    front = data["front"]
    ours = ax is None
    ax = _axes(ax, figsize=(7.0, 4.5), purpose="plot_pareto")

    def metric(loss):
        return 1.0 - loss if classifier else loss

    # A convex front is the lower hull of (complexity, loss): straight segments between its
    # trees show that a point beyond the hull (e.g. CART's) loses for every alpha. A Pareto
    # front's trees are all there is below the steps.
    steps = {"drawstyle": "steps-post"} if data["steps"] else {}
    ax.plot(front["complexity"], metric(front["train_loss"]), color=SERIES_COLOURS["front"],
            linewidth=1.5,
            marker="o", label="DPDT Pareto front", **steps)
    cart = data["cart"]
    if cart is not None:
        ax.plot(cart[:, 0], metric(cart[:, 1]), color=SERIES_COLOURS["cart"], linewidth=1.0,
                marker="s",
                markersize=4, linestyle="--", label="CART pruning path")
    test = data["test"]
    if test is not None:
        # Accuracy or MSE, as the front's metric; NaN for a tree no alpha selects.
        drawn = ~np.isnan(test)
        ax.plot(front["complexity"][drawn], test[drawn], color=SERIES_COLOURS["test"],
                linewidth=1.2,
                marker="D", markersize=4, label="test (held out)", **steps)
    curves = data["curves"]
    same_scale = data["same_scale"]
    target = ax
    if curves:
        target = ax if same_scale else ax.twinx()
        for k, (depth, rows) in enumerate(curves):
            colour, dashed = validation_style(k)
            target.plot(rows["complexity"], rows["mean_score"], color=colour, marker=".",
                        linestyle="--" if dashed else "-", label=f"validation (depth {depth})")
            target.fill_between(rows["complexity"], rows["mean_score"] - rows["std_score"],
                                rows["mean_score"] + rows["std_score"], color=colour, alpha=0.15)
    _mark_chosen(data, ax, target, metric)
    ax.set_xlabel(data["xlabel"])
    shown = ["train"] + (["validation"] if curves and same_scale else []) + (
        ["test"] if test is not None else [])
    what = data["loss_name"]
    ax.set_ylabel(f"{what} ({', '.join(shown)})" if len(shown) > 1 else f"train {what}")
    ax.grid(True, alpha=0.3)
    ax.set_title("Pareto front (numbers: leaves)", fontsize=10)
    if target is ax:
        ax.legend(loc="best", fontsize=8)
    else:
        # A legend inside would lie on the curves of one of the two scales, which "best" of
        # either axes cannot see both of: one legend, below the axes.
        target.set_ylabel(data["validation_label"])
        _legend_below(ax, [ax, target], ours)
    _label_leaves(ax, front["complexity"], metric(front["train_loss"]), front["n_leaves"])
    return ax


def _legend_below(ax, axes, ours):
    """Draw one legend of the series of ``axes`` under ``ax``'s x label, centred.

    A figure of our own grows at the bottom to hold it, its axes keeping their size.
    """
    figure = ax.figure
    renderer = figure.canvas.get_renderer()
    figure.canvas.draw()
    handles, labels = [], []
    for a in axes:
        more = a.get_legend_handles_labels()
        handles += more[0]
        labels += more[1]
    bottom = min(a.get_tightbbox(renderer).y0 for a in axes) - 4   # pixels
    anchor = ax.transAxes.inverted().transform((0, bottom))[1]
    legend = ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, anchor),
                       ncol=2, fontsize=8)
    if not ours:
        return
    figure.canvas.draw()
    missing = (4 - legend.get_window_extent(renderer).y0) / figure.dpi   # inches
    if missing > 0:
        width, height = figure.get_size_inches()
        params = figure.subplotpars
        figure.set_size_inches(width, height + missing)
        figure.subplots_adjust(bottom=(params.bottom * height + missing) / (height + missing),
                               top=(params.top * height + missing) / (height + missing))


def pareto_data(estimator, *, X=None, y=None, show_cart=True, X_test=None, y_test=None):
    """Return what a picture of the front shows, as arrays: :func:`plot_pareto`'s data.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor or their CV versions
        A fitted estimator with a ``pareto_front_``.
    X, y : array-like, default=None
        The training data, for CART's pruning path.
    show_cart : bool, default=True
        Compute CART's path (when ``X`` and ``y`` are given).
    X_test, y_test : array-like, default=None
        Held-out data, for the test curve.

    Returns
    -------
    data : dict
        ``classifier`` (bool); ``front`` (``pareto_front_`` sorted by complexity) and
        ``order`` (the indices that sort it, into ``pareto_front_`` and ``trees_``); ``steps``
        (True for ``front="pareto"``: drawn as steps); ``cart`` (array of (complexity, train
        loss) rows, or None); ``test`` (each tree's held-out accuracy or mean squared error,
        in the order of ``front``, NaN for a tree no alpha selects; None without held-out
        data); ``curves`` (a list of (max_depth, rows of ``validation_curve_`` sorted by
        complexity)); ``same_scale`` (the validation score is an accuracy, on the train
        accuracy's scale); ``chosen`` (the tree the estimator predicts with: its ``index``
        into ``pareto_front_`` and its ``row``, the parameter ``name`` and value ``alpha``
        choosing it, its ``label`` and its ``curve_point`` (complexity, score) or None);
        ``xlabel`` and ``validation_label``.
    """
    check_is_fitted(estimator)
    if not hasattr(estimator, "pareto_front_"):
        raise TypeError(f"{type(estimator).__name__} has no pareto_front_ to plot")
    if show_cart and (X is None) != (y is None):
        raise ValueError("CART's pruning path needs both X and y")
    if (X_test is None) != (y_test is None):
        raise ValueError("the test curve needs both X_test and y_test")
    classifier = is_classifier(estimator)
    curve = getattr(estimator, "validation_curve_", None)
    curves = [] if curve is None else [
        (int(depth), np.sort(curve[curve["max_depth"] == depth], order="complexity"))
        for depth in np.unique(curve["max_depth"])]
    scoring = getattr(estimator, "scoring", None)
    what = "expected tests per sample" if getattr(estimator, "complexity", "") == \
        "expected_tests" else "number of splits"
    order = np.argsort(estimator.pareto_front_, order="complexity", kind="stable")
    model = getattr(estimator, "best_estimator_", estimator)
    return {
        "classifier": classifier,
        "loss_name": "accuracy" if classifier else model._objective.loss_name,
        "order": order,
        "front": estimator.pareto_front_[order],
        "steps": getattr(estimator, "front", "convex") == "pareto",
        "cart": _cart_path(estimator, X, y) if show_cart and X is not None else None,
        "test": None if X_test is None else held_out_figures(estimator, X_test, y_test)[order],
        "curves": curves,
        "same_scale": classifier and scoring in (None, "accuracy"),
        "chosen": _chosen(estimator),
        "xlabel": f"complexity ({what})",
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


def _mark_chosen(data, ax, target, metric):
    """Mark the chosen tree (see :func:`pareto_data`) by a star on the front.

    Further stars, with no legend entry of their own, mark it on its depth's validation curve
    and on the test curve.
    """
    chosen = data["chosen"]
    row = chosen["row"]
    star = dict(marker="*", markersize=13, color=SERIES_COLOURS["chosen"],
                markeredgecolor="black", markeredgewidth=0.8, linestyle="none", zorder=5)
    ax.plot([row["complexity"]], [metric(row["train_loss"])], label=chosen["label"], **star)
    if chosen["curve_point"] is not None:
        complexity, score = chosen["curve_point"]
        target.plot([complexity], [score], label="_chosen", **star)
    if data["test"] is not None:
        at = np.flatnonzero(data["order"] == chosen["index"])[0]
        ax.plot([row["complexity"]], [data["test"][at]], label="_chosen", **star)


def _label_leaves(ax, x, y, n_leaves):
    """Label the front's points with their number of leaves, no two labels overlapping.

    Each label goes to the first place beside its point (a corner, above, below) where it
    meets no other label, no point of a curve, the legend or the axes' edge; a label with no
    such place is left out (its neighbours, a few leaves apart, tell it).
    """
    figure = ax.figure
    renderer = figure.canvas.get_renderer()
    figure.canvas.draw()   # final limits and legend, so that the extents below are the drawn ones
    legend = ax.get_legend()
    taken = [legend.get_window_extent(renderer)] if legend is not None else []
    # Nor over a point of any curve: each marker's box, in pixels (but the chosen tree's star,
    # whose leaves the legend names).
    from matplotlib.transforms import Bbox

    for line in (line for a in figure.axes for line in a.lines):
        if line.get_marker() in ("None", "", " ", None, "*"):
            continue
        half = line.get_markersize() * figure.dpi / 72 / 2
        xy = line.get_transform().transform(line.get_xydata())
        taken += [Bbox([[px - half, py - half], [px + half, py + half]])
                  for px, py in xy if np.isfinite(px) and np.isfinite(py)]
    frame = ax.get_window_extent(renderer)
    places = [((4, 4), "left", "bottom"), ((4, -4), "left", "top"),
              ((-4, 4), "right", "bottom"), ((-4, -4), "right", "top"),
              ((0, 6), "center", "bottom"), ((0, -6), "center", "top")]
    # The simplest trees first: they are the ones a reader looks for.
    for xi, yi, leaves in sorted(zip(x, y, n_leaves, strict=True), key=lambda p: p[2]):
        for offset, ha, va in places:
            label = ax.annotate(f"{leaves}", (xi, yi), textcoords="offset points", xytext=offset,
                                ha=ha, va=va, fontsize=7, color=SERIES_COLOURS["front"])
            box = label.get_window_extent(renderer)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 \
                and box.y1 <= frame.y1
            if inside and not any(box.overlaps(other) for other in taken):
                taken.append(box)
                break
            label.remove()


def cost_front_data(estimator, *, X_test=None, rewards_test=None, max_cost=None):
    """Return what a picture of the budget front shows, as arrays: :func:`plot_cost_front`'s data.

    Parameters
    ----------
    estimator : DPDTreePolicy
        A policy fitted with ``action_costs`` (it has a ``cost_front_``).
    X_test, rewards_test : array-like, default=None
        Held-out samples and their rewards, for each tree's test value.
    max_cost : float or None, default=None
        A budget: the row that ``select_tree(max_cost=max_cost)`` selects is ``chosen``. None:
        the estimator's own ``max_cost``, if set.

    Returns
    -------
    data : dict
        ``front`` (``cost_front_`` sorted by cost, cheapest first) and ``order`` (the indices
        that sort it, into ``cost_front_`` and ``cost_trees_``); ``test`` (each tree's value on
        the held-out data, in the order of ``front``; None without it); ``chosen`` (None
        without a budget, else the tree the budget selects: its ``index`` into
        ``cost_front_``, its ``row``, the ``budget`` and a ``label``); ``xlabel`` and
        ``ylabel``.
    """
    check_is_fitted(estimator)
    if not hasattr(estimator, "actions_"):
        raise TypeError(f"{type(estimator).__name__} has no cost front: a DPDTreePolicy "
                        "fitted with action_costs has one")
    if not hasattr(estimator, "cost_front_"):
        raise ValueError("this policy was fitted without action_costs: fit(X, rewards, "
                         "action_costs=...) finds cost_front_, the front of value against cost")
    if (X_test is None) != (rewards_test is None):
        raise ValueError("the test values need both X_test and rewards_test")
    order = np.argsort(estimator.cost_front_["cost"], kind="stable")
    front = estimator.cost_front_[order]
    test = None
    if X_test is not None:
        # Each tree as select_tree chooses it, scored by the estimator's own score: a
        # DataFrame's columns are matched to the actions by name there.
        test = np.array([_budget_twin(estimator, float(cost)).score(X_test, rewards_test)
                         for cost in front["cost"]])
    chosen = None
    if max_cost is not None or estimator.max_cost is not None:
        # The row a budget given here selects, else the one the estimator predicts with.
        twin = estimator if max_cost is None else _budget_twin(estimator, max_cost)
        budget = float(estimator.max_cost if max_cost is None else max_cost)
        index = twin._cost_row()
        row = estimator.cost_front_[index]
        chosen = {"index": index, "row": row, "budget": budget,
                  "label": f"chosen tree (max_cost = {budget:.6g}): cost {row['cost']:.6g}, "
                           f"value {row['value']:.4g}, {row['n_leaves']} leaves"}
    return {
        "order": order,
        "front": front,
        "test": test,
        "chosen": chosen,
        "xlabel": "total cost (action_costs summed over the training samples)",
        "ylabel": "policy value (mean reward of its actions)",
    }


def _budget_twin(estimator, max_cost):
    """Return a copy of ``estimator`` (sharing its trees) that ``select_tree(max_cost)`` set."""
    import copy

    return copy.copy(estimator).select_tree(max_cost=max_cost)


def plot_cost_front(estimator, ax=None, *, X_test=None, rewards_test=None, max_cost=None):
    """Plot the budget front of a policy fitted with costs: policy value against total cost.

    Every tree of ``cost_front_`` is a point (total cost, value), numbered by its leaves: the
    vertices of the upper convex hull of (cost, value), the policies that some price of a unit
    of cost makes the best. They are joined as steps, which is what a budget buys: a budget
    between two points gets the cheaper one (:meth:`DPDTreePolicy.select_tree`), so the value
    stays flat until the budget reaches the next point. With held-out data, each tree's value
    on it is drawn at the same cost. With a budget (``max_cost``, or the estimator's own), the
    tree it selects is starred and the budget drawn as a vertical line.

    Parameters
    ----------
    estimator : DPDTreePolicy, or a Pipeline or OneHotEncoded ending in one
        A policy fitted with ``action_costs``.
    ax : matplotlib Axes, default=None
        Axes to draw on; None creates a figure.
    X_test : array-like of shape (n_samples, n_features), default=None
        Held-out samples: draws each tree's test value (with ``rewards_test``).
    rewards_test : array-like or DataFrame of shape (n_samples, n_actions), default=None
        Their rewards, as :meth:`DPDTreePolicy.score` takes them.
    max_cost : float or None, default=None
        A budget, in the unit of the front's costs (see the ``max_cost`` parameter of
        :class:`DPDTreePolicy`): the tree that ``select_tree(max_cost=max_cost)`` selects is
        starred. None: the estimator's own ``max_cost``, if set. The estimator is not changed.

    Returns
    -------
    ax : matplotlib Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        When the policy was fitted without ``action_costs``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from dpdt import DPDTreePolicy, plot_cost_front
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((200, 2))
    >>> rewards = np.column_stack([np.zeros(200), X[:, 0] - 0.3])
    >>> policy = DPDTreePolicy(max_depth=2).fit(X, rewards, action_costs=[0.0, 0.1])
    >>> ax = plot_cost_front(policy, max_cost=5.0)
    >>> ax.get_ylabel()
    'policy value (mean reward of its actions)'
    """
    estimator, transform, _ = tree_estimator(estimator, "plot_cost_front")
    if transform is not None and X_test is not None:
        X_test = transform(X_test)
    data = cost_front_data(estimator, X_test=X_test, rewards_test=rewards_test,
                           max_cost=max_cost)
    front = data["front"]
    ax = _axes(ax, figsize=(7.0, 4.5), purpose="plot_cost_front")
    # Steps: a budget between two points buys the cheaper one's value.
    ax.plot(front["cost"], front["value"], color=SERIES_COLOURS["front"], linewidth=1.5,
            marker="o", drawstyle="steps-post", label="cost front (train)")
    if data["test"] is not None:
        ax.plot(front["cost"], data["test"], color=SERIES_COLOURS["test"], linewidth=1.2,
                marker="D", markersize=4, drawstyle="steps-post", label="test (held out)")
    chosen = data["chosen"]
    if chosen is not None:
        ax.axvline(chosen["budget"], color="black", linestyle=":", linewidth=1.0,
                   label="budget")
        star = dict(marker="*", markersize=13, color=SERIES_COLOURS["chosen"],
                    markeredgecolor="black", markeredgewidth=0.8, linestyle="none", zorder=5)
        row = chosen["row"]
        ax.plot([row["cost"]], [row["value"]], label=chosen["label"], **star)
        if data["test"] is not None:
            at = np.flatnonzero(data["order"] == chosen["index"])[0]
            ax.plot([row["cost"]], [data["test"][at]], label="_chosen", **star)
    ax.set_xlabel(data["xlabel"])
    ax.set_ylabel(data["ylabel"] if data["test"] is None
                  else "policy value, train and test (mean reward of its actions)")
    ax.grid(True, alpha=0.3)
    ax.set_title("Budget front (numbers: leaves)", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    _label_leaves(ax, front["cost"], front["value"], front["n_leaves"])
    return ax
