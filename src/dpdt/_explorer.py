"""The explorer page: a whole Pareto front and its trees in one self-contained HTML file.

The page is one file: the data as JSON, the script and the style inlined from the package's
``_explorer_page`` folder, the pictures drawn as SVG by the script. Nothing is fetched, so it works
offline, as an email attachment and inside a notebook's output (in an iframe, see
:class:`ExplorerReprMixin`).
"""

import copy
import html
import json
import math
from importlib import resources
from numbers import Integral
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, check_consistent_length, check_is_fitted

from ._export import category_names, display_feature_names, tree_estimator
from ._multiway_tree import MultiwayTree
from ._palette import page_colours
from ._plot import cost_front_data, pareto_data
from ._tree import TREE_LEAF

# Digits kept of what the page only shows (class fractions, means, impurities); thresholds and
# the test samples keep every digit, as the page routes the samples through the thresholds.
_SHOWN_DIGITS = 6
# Test samples embedded for the sample picker (the test curve uses all of them).
MAX_SAMPLES = 500


def _round_shown(values):
    """Round an array to the significant digits the page shows."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        magnitude = np.floor(np.log10(np.abs(values)))
        exponent = np.where(np.isfinite(magnitude), _SHOWN_DIGITS - 1 - magnitude, 0)
        # Scaled by a power of ten, rounded, scaled back: for values between 1e-16 and 1e27,
        # where the powers are exact, the double nearest the rounded decimal, which prints with
        # at most that many digits; beyond, within a unit in the last place of it.
        up = np.round(values * 10.0 ** np.maximum(exponent, 0)) / 10.0 ** np.maximum(exponent, 0)
        down = np.round(values / 10.0 ** np.maximum(-exponent, 0)) * 10.0 ** np.maximum(
            -exponent, 0)
        rounded = np.where(exponent >= 0, up, down)
    # Where the scaling leaves the doubles (subnormals, near the largest), the value as it is.
    return np.where(np.isfinite(rounded) | ~np.isfinite(values), rounded, values)


def _shown(values):
    """Round to the digits the page shows; a non-finite value becomes None (JSON's null)."""
    return _finite(_round_shown(values).ravel())


def _finite(values):
    """Return a list of floats with every digit, None where not finite."""
    return [v if math.isfinite(v) else None for v in np.asarray(values, np.float64).tolist()]


class _NodeTable:
    """The nodes of every tree of a front, each distinct subtree stored once.

    Trees of a front share most of their subtrees: a node is kept once per distinct (test,
    children, statistics), and a tree is the index of its root. Walking a tree from its root,
    left child first, numbers its nodes in preorder, as ``tree_`` does.
    """

    def __init__(self):
        self.ids = {}
        self.columns = {"f": [], "t": [], "m": [], "l": [], "r": [], "n": [], "v": [], "i": []}

    def add(self, tree):
        """Add ``tree``'s nodes; return the index of its root."""
        value = _round_shown(tree.value.reshape(tree.node_count, -1)).tolist()
        impurity = _shown(tree.impurity)
        index = [0] * tree.node_count
        # Children come after their parent in preorder: from the last node back, both children
        # of a node have their index when it is reached.
        for node in range(tree.node_count - 1, -1, -1):
            leaf = tree.children_left[node] == TREE_LEAF
            feature = -1 if leaf else int(tree.feature[node])
            threshold = 0.0 if leaf else float(tree.threshold[node])
            missing = 0 if leaf else int(tree.missing_go_to_left[node])
            left = -1 if leaf else index[tree.children_left[node]]
            right = -1 if leaf else index[tree.children_right[node]]
            key = (feature, threshold, missing, left, right, int(tree.n_node_samples[node]),
                   tuple(value[node]), impurity[node])
            found = self.ids.get(key)
            if found is None:
                found = self.ids[key] = len(self.columns["f"])
                for column, item in zip("ftmlrnvi", key, strict=True):
                    self.columns[column].append(list(item) if column == "v" else item)
            index[node] = found
        return index[0]


def _expected_tests(tree):
    """Return the expected number of tests per training sample (by weight) of ``tree``."""
    weight = tree.weighted_n_node_samples
    split = tree.children_left != TREE_LEAF
    return float(weight[split].sum() / weight[0]) if weight[0] > 0 else 0.0


def _code(estimator, model, k, variable):
    """Return the lines of Python that make ``estimator`` predict with row ``k`` of the front."""
    params = model._selecting_params(k)
    if params is None:
        return "# this tree is not selectable by alpha or max_complexity"
    text = ", ".join(f"{name}={None if value is None else float(value)!r}"
                     for name, value in params.items())
    target = f"{variable}.best_estimator_" if model is not estimator else variable
    lines = [f"{target}.set_params({text})"]
    if model is estimator:
        # The same tree by its budget, when the budget's choice is this tree.
        complexity = float(model.pareto_front_["complexity"][k])
        probe = copy.copy(model)   # shares the trees; its own parameters
        try:
            probe.select_tree(max_complexity=complexity)
        except ValueError:
            pass
        else:
            if probe._front_index(probe.alpha, probe.max_complexity) == k:
                lines.append(f"# or, the most accurate tree within its complexity:\n"
                             f"{variable}.select_tree(max_complexity={complexity!r})")
    return "\n".join(lines)


def _samples(estimator, X_test, y_test, max_samples):
    """Return the embedded test samples (features, targets; a multiway tree's paths)."""
    if X_test is None or max_samples == 0:
        return None
    multiway = isinstance(estimator.tree_, MultiwayTree)
    if multiway:
        # One tree: its paths come from the estimator itself; the page has no category codes.
        X = _safe_indexing(X_test, np.arange(min(max_samples, _num_samples(X_test))))
        samples = {"X": [[str(v) for v in row] for row in np.asarray(X, dtype=object)],
                   "paths": [_multiway_path(estimator.tree_, int(node))
                             for node in estimator.apply(X)]}
    else:
        X = estimator._validate_X_predict(X_test)[:max_samples]
        samples = {"X": [_finite(row) for row in np.asarray(X, dtype=np.float64)]}
    if y_test is not None:
        y = np.asarray(y_test)[:len(X)]
        samples["y"] = ([str(v) for v in y] if is_classifier(estimator)
                        else [_finite(np.atleast_1d(v)) for v in y])
    return samples


def _multiway_path(tree, node):
    """Return the nodes from the root to ``node`` of a multiway tree."""
    parent = np.full(tree.node_count, -1)
    for k in range(tree.node_count):
        parent[tree.edge_child[tree.edge_begin[k]:tree.edge_begin[k + 1]]] = k
    path = [node]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    return path[::-1]


def _multiway_data(estimator):
    """Return the single multiway tree of ``estimator`` as the page reads it."""
    tree = estimator.tree_
    children = []
    for node in range(tree.node_count):
        if tree.feature[node] < 0:
            children.append([])
            continue
        names = category_names(estimator, int(tree.feature[node]))
        children.append([[str(names[category]), child]
                         for category, child in tree.children(node)])
    return {"f": tree.feature.tolist(), "children": children,
            "n": tree.n_node_samples.tolist(), "v": [_shown(row) for row in tree.value]}


def explorer_data(estimator, X_test=None, y_test=None, *, X=None, y=None,
                  max_samples=MAX_SAMPLES):
    """Return what the explorer page shows, as a JSON-ready dict.

    Parameters
    ----------
    estimator : fitted dpdt tree estimator
        See :func:`export_html`.
    X_test, y_test : array-like, default=None
        Held-out data: the test curve (``y_test`` needed) and the sample picker.
    X, y : array-like, default=None
        The training data, for CART's pruning path.
    max_samples : int, default=500
        Test samples embedded for the sample picker.

    Returns
    -------
    data : dict
        The page's data; see ``_explorer_page/explorer.js`` for how it is read.
    """
    pipeline = estimator
    estimator, transform, names = tree_estimator(estimator, "export_html")
    if y_test is not None and X_test is None:
        raise ValueError("y_test needs X_test")
    if y_test is not None:
        check_consistent_length(X_test, y_test)
    if not isinstance(max_samples, Integral) or isinstance(max_samples, bool) or max_samples < 0:
        raise ValueError(f"max_samples must be an int >= 0, got {max_samples!r}")
    if transform is not None:
        # The tree sees the samples as the steps before it make them.
        X_test = None if X_test is None else transform(X_test)
        X = None if X is None else transform(X)
    classifier = is_classifier(estimator)
    data = {
        "estimator": type(estimator).__name__,
        "repr": repr(pipeline),
        "classifier": classifier,
        "features": display_feature_names(estimator, names),
        "classes": [str(c) for c in estimator.classes_] if classifier else None,
        "actions": ([str(a) for a in estimator.actions_] if hasattr(estimator, "actions_")
                    else None),
        "samples": _samples(estimator, X_test, y_test, max_samples),
        "colours": page_colours(),
    }
    if isinstance(estimator.tree_, MultiwayTree):
        data["multiway"] = _multiway_data(estimator)
        return data
    tested = X_test is not None and y_test is not None
    front_data = pareto_data(estimator, X=X, y=y, show_cart=X is not None,
                             X_test=X_test if tested else None,
                             y_test=y_test if tested else None)
    model = getattr(estimator, "best_estimator_", estimator)
    order = front_data["order"]
    trees = [model.trees_[k] for k in order]
    table = _NodeTable()
    roots = [table.add(tree) for tree in trees]
    front = front_data["front"]
    variable = ("cv" if model is not estimator else "clf" if classifier
                else "policy" if hasattr(model, "actions_") else "reg")
    if pipeline is not estimator:   # a Pipeline's last step, or a OneHotEncoded's model
        variable = "model.estimator_" if hasattr(pipeline, "encoding_") else "pipe[-1]"
    test = None if front_data["test"] is None else _shown(front_data["test"])
    data.update({
        "nodes": table.columns,
        "rows": {
            "root": roots,
            "complexity": _finite(front["complexity"]),
            "train": _shown(front["train_loss"]),
            "test": test,
            "n_leaves": front["n_leaves"].tolist(),
            "depth": front["depth"].tolist(),
            "alpha_min": _finite(front["alpha_min"]),
            "alpha_max": [None if np.isnan(a) else ("inf" if np.isinf(a) else float(a))
                          for a in front["alpha_max"]],
            "expected_tests": _shown([_expected_tests(tree) for tree in trees]),
            "code": [_code(estimator, model, int(k), variable) for k in order],
        },
        "chosen": int(np.flatnonzero(order == front_data["chosen"]["index"])[0]),
        "chosen_label": front_data["chosen"]["label"],
        "steps": front_data["steps"],
        "cart": None if front_data["cart"] is None else [_shown(p) for p in front_data["cart"]],
        "curves": [{"depth": depth, "complexity": _finite(rows["complexity"]),
                    "mean": _shown(rows["mean_score"]), "std": _shown(rows["std_score"])}
                   for depth, rows in front_data["curves"]],
        "same_scale": bool(front_data["same_scale"]),
        "xlabel": front_data["xlabel"],
        "ylabel": front_data["loss_name"],
        "validation_label": front_data["validation_label"],
        "cost": (_cost_data(estimator, table, X_test if tested else None,
                            y_test if tested else None, variable)
                 if hasattr(estimator, "cost_front_") else None),
    })
    return data


def _cost_data(policy, table, X_test, rewards_test, variable):
    """Return the budget front of a policy fitted with costs, as the page reads it.

    The fields of a front the page draws (see ``_explorer_page/explorer.js``): ``rows`` (one
    per tree, cheapest first; ``cost`` and ``train`` (value) its point, ``test`` the value on
    the held-out data, ``price_min`` and ``price_max`` the prices for which it is the best,
    ``price`` the one its tree was fitted at), the ``chosen`` row (the estimator's own, with
    ``max_cost``; else null) and the labels. Its trees join the complexity front's in
    ``table``.
    """
    data = cost_front_data(policy, X_test=X_test, rewards_test=rewards_test)
    front, order = data["front"], data["order"]
    chosen = data["chosen"]
    return {
        "rows": {
            "root": [table.add(policy.cost_trees_[k]) for k in order],
            "cost": _finite(front["cost"]),
            "train": _shown(front["value"]),
            "test": None if data["test"] is None else _shown(data["test"]),
            "n_leaves": front["n_leaves"].tolist(),
            "depth": front["depth"].tolist(),
            "price_min": _finite(front["price_min"]),
            "price_max": ["inf" if np.isinf(p) else float(p) for p in front["price_max"]],
            "price": ["inf" if np.isinf(p) else float(p) for p in front["price"]],
            "expected_tests": _shown([_expected_tests(policy.cost_trees_[k]) for k in order]),
            "code": [f"{variable}.select_tree(max_cost={float(cost)!r})"
                     for cost in front["cost"]],
        },
        "chosen": (None if chosen is None
                   else int(np.flatnonzero(order == chosen["index"])[0])),
        "chosen_label": None if chosen is None else chosen["label"],
        "xlabel": data["xlabel"],
        "ylabel": data["ylabel"],
    }


def _asset(name):
    return resources.files("dpdt").joinpath("_explorer_page", name).read_text(encoding="utf-8")


def _json_script(data):
    """Return ``data`` as JSON that an HTML ``<script>`` element holds safely."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    # "</script>" or "<!--" in a feature name would end or confuse the element.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(data, *, compact=False):
    """Return the page of ``data`` (from :func:`explorer_data`) as one HTML document."""
    title = html.escape(f"dpdt explorer: {data['estimator']}")
    mode = " compact" if compact else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<link rel="icon" href="data:,">\n'
            f"<title>{title}</title>\n<style>\n{_asset('explorer.css')}</style>\n</head>\n"
            f'<body class="dpdt-explorer{mode}">\n{_asset("explorer.html")}'
            f'<script type="application/json" id="dpdt-data">{_json_script(data)}</script>\n'
            f"<script>\n{_asset('explorer.js')}</script>\n</body>\n</html>\n")


def export_html(estimator, path=None, X_test=None, y_test=None, *, X=None, y=None,
                max_samples=MAX_SAMPLES):
    """Write the explorer page of a fitted tree: its whole Pareto front and every tree of it.

    One self-contained HTML file (no network access: script, style and SVG drawing inline). It
    plots the front, complexity against train accuracy (classifiers) or mean squared error
    (regressors), with the test curve when ``X_test`` and ``y_test`` are given, the
    cross-validation curve of the CV estimators and CART's pruning path when the training
    data ``X`` and ``y`` are given. A click on a point, the arrow keys or the slider shows
    that tree beside the front: feature names, thresholds, class colours, samples and purity
    per node, the path of a chosen test sample, the features the tree uses and its expected
    number of tests, and the code that selects it (``set_params(alpha=...)``). A
    :class:`DPDTreePolicy` fitted with ``action_costs`` also has its budget front, policy value
    against total cost (with the test value when ``X_test`` and ``y_test``, the held-out
    rewards, are given), a switch away: each point opens its tree and the code that selects
    it (``select_tree(max_cost=...)``); a policy predicting within its ``max_cost`` opens on
    it. A
    ``BranchesClassifier`` or ``MultiwayGreedyClassifier`` has one tree and no front: the page
    shows the tree.

    Parameters
    ----------
    estimator : DPDTreeClassifier, DPDTreeRegressor, DPDTreePolicy, their CV versions,
        BranchesClassifier, MultiwayGreedyClassifier, or a Pipeline ending in one
        A fitted estimator. A scikit-learn Pipeline shows its last step, its features named
        after what that step sees; ``X_test`` and ``X`` go through the steps before it.
    path : str, path-like or None, default=None
        File to write; None returns the page as a string.
    X_test : array-like of shape (n_samples, n_features), default=None
        Held-out samples: the first ``max_samples`` can be routed through the trees.
    y_test : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
        Their targets: the test curve and the true label of each sample.
    X : array-like of shape (n_samples, n_features), default=None
        The training samples, for CART's pruning path.
    y : array-like, default=None
        The training targets, for CART's pruning path.
    max_samples : int, default=500
        Test samples embedded in the page for routing (the test curve uses all).

    Returns
    -------
    page : str or None
        The page when ``path`` is None, else None.

    Raises
    ------
    TypeError
        When ``estimator`` holds no single tree (nor ends with an estimator that does).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from dpdt import DPDTreeClassifier, export_html
    >>> X, y = load_iris(return_X_y=True)
    >>> page = export_html(DPDTreeClassifier(max_depth=3).fit(X, y), X_test=X, y_test=y)
    >>> page.startswith("<!DOCTYPE html>")
    True
    """
    page = render_html(explorer_data(estimator, X_test, y_test, X=X, y=y,
                                     max_samples=max_samples))
    if path is None:
        return page
    Path(path).write_text(page, encoding="utf-8")
    return None


# Height of the page in a notebook's output.
_REPR_HEIGHT = 560


class ExplorerReprMixin:
    """A fitted estimator shows its explorer page in a notebook; an unfitted one, scikit-learn's.

    scikit-learn's ``_repr_html_`` and ``_repr_mimebundle_`` both call ``_html_repr``: this
    mixin replaces only that, and only once the estimator is fitted. The page goes in an
    iframe, so that its script and style stay apart from the notebook's and from other
    outputs'.
    """

    def _html_repr(self):
        diagram = super()._html_repr()
        try:
            check_is_fitted(self)
            page = render_html(explorer_data(self), compact=True)
        except NotFittedError:
            return diagram
        return (f'{diagram}<iframe title="dpdt explorer" srcdoc="{html.escape(page)}" '
                f'style="width: 100%; height: {_REPR_HEIGHT}px; border: 1px solid #ccc;" '
                f'sandbox="allow-scripts"></iframe>')
