"""plot_tree, plot_pareto and plot_cost_front: what they draw, and the PNG files they produce."""

import copy
import itertools
import os
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.transforms import Bbox
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris

from dpdt import (
    BranchesClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreePolicy,
    DPDTreeRegressor,
    OneHotEncoded,
    datasets,
    load,
    plot_cost_front,
    plot_pareto,
    plot_tree,
)
from dpdt._plot import _cart_path

matplotlib.use("Agg")

IRIS_FEATURES = ["sepal length", "sepal width", "petal length", "petal width"]
IRIS_CLASSES = ["setosa", "versicolor", "virginica"]
# Where the measured pictures are written, to be looked at as well (DPDT_PLOTS=/some/dir).
PICTURES = os.environ.get("DPDT_PLOTS")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_plot_tree_draws_every_node_and_edge(tmp_path):
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    ax = plot_tree(clf, feature_names=IRIS_FEATURES, class_names=IRIS_CLASSES, decimals=3)
    tree = clf.tree_
    texts = _texts(ax)
    splits = np.flatnonzero(tree.feature >= 0)
    leaves = np.flatnonzero(tree.feature < 0)
    # One box per node, one label per edge.
    assert len(texts) == tree.node_count + 2 * len(splits)
    for node in splits:
        assert f"{IRIS_FEATURES[tree.feature[node]]}\nsamples = {tree.n_node_samples[node]}" \
            in texts
        assert f"<= {tree.threshold[node]:.3f}" in texts
        assert f"> {tree.threshold[node]:.3f}" in texts
    for node in leaves:
        label = IRIS_CLASSES[int(np.argmax(tree.value[node, 0]))]
        assert f"class: {label}\nsamples = {tree.n_node_samples[node]}" in texts
    path = tmp_path / "tree.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 10_000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_tree_prints_thresholds_as_short_as_they_read_back():
    # Binned thresholds are training values (a year reads "2008", not "2008.000"); exact ones
    # are midpoints, printed with three decimals at most.
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(1990, 2020, 400), rng.uniform(0, 1, 400)]).astype(float)
    y = (X[:, 0] > 2008) ^ (X[:, 1] > 0.3)
    for max_bins in (16, None):
        clf = DPDTreeClassifier(max_depth=3, max_bins=max_bins).fit(X, y)
        texts = _texts(plot_tree(clf, feature_names=["year", "u"]))
        plt.close("all")
        tree = clf.tree_
        for f, t in zip(tree.feature, tree.threshold, strict=True):
            if f < 0:
                continue
            label = next(text for text in texts if text.startswith("<= ")
                         and abs(float(text[3:]) - t) <= 5e-4)
            digits = label[3:].partition(".")[2]
            assert len(digits) <= 3 and not digits.endswith("0"), label
            if max_bins is not None and f == 0:   # a year, as the training data holds it
                assert float(label[3:]) == t, label


def test_plot_tree_depth_five_regression_and_multiway(tmp_path):
    data = datasets.load("concrete")
    reg = DPDTreeRegressor(max_depth=5, candidates=(2, 2, 1)).fit(data.X_train, data.y_train)
    ax = plot_tree(reg)
    assert sum(t.startswith("value: ") for t in _texts(ax)) == reg.get_n_leaves()
    ax.figure.savefig(tmp_path / "reg.png")
    assert (tmp_path / "reg.png").stat().st_size > 10_000

    cat = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "green", "green"] * 3,
                        "size": ["s", "l", "s", "l", "s", "l"] * 3})
    branches = BranchesClassifier(lam=0.01).fit(cat, [0, 0, 1, 1, 0, 1] * 3)
    _, ax = plt.subplots()
    assert plot_tree(branches, ax=ax) is ax
    texts = _texts(ax)
    assert {"= blue", "= green", "= red", "= s", "= l"} <= set(texts)
    assert len(texts) == branches.tree_.node_count + (branches.tree_.node_count - 1)


def test_plot_pareto_draws_the_front_and_cart_path(tmp_path):
    data = datasets.load("bank")
    clf = DPDTreeClassifier(max_depth=3).fit(data.X_train, data.y_train)
    ax = plot_pareto(clf, X=data.X_train, y=data.y_train)
    front_line, cart_line = ax.lines[:2]
    order = np.argsort(clf.pareto_front_["complexity"])
    assert_allclose(front_line.get_xdata(), clf.pareto_front_["complexity"][order])
    assert_allclose(front_line.get_ydata(), 1 - clf.pareto_front_["train_loss"][order])
    assert ax.get_ylabel() == "train accuracy"
    path = tmp_path / "front.png"
    ax.figure.savefig(path)
    assert path.stat().st_size > 10_000


@pytest.mark.parametrize("name", ["segment", "concrete"])
def test_cart_path_is_never_better_than_the_front(name):
    """DPDT's guarantee, seen on the plotted points: for every alpha, the best tree of the front
    has an objective no worse than every tree of CART's pruning path."""
    data = datasets.load(name)
    cls = DPDTreeClassifier if data.task == "classification" else DPDTreeRegressor
    est = cls(max_depth=3).fit(data.X_train, data.y_train)
    cart = _cart_path(est, data.X_train, data.y_train)
    assert cart[-1, 0] == 0.0 or cart[0, 0] == 0.0   # the single leaf is on the path
    front = est.pareto_front_
    for alpha in np.concatenate([[0.0], front["alpha_min"][1:], np.geomspace(1e-4, 1, 20)]):
        best_front = np.min(front["train_loss"] + alpha * front["complexity"])
        best_cart = np.min(cart[:, 1] + alpha * cart[:, 0])
        assert best_front <= best_cart + 1e-9, alpha


def test_cart_path_matches_scikit_learn_scores():
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=2, complexity="n_splits").fit(X, y)
    from sklearn.tree import DecisionTreeClassifier

    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    path = _cart_path(clf, X, y)
    # The unpruned CART tree is the most complex point of the path.
    assert path[-1, 0] == cart.tree_.node_count // 2
    assert_allclose(path[-1, 1], 1 - cart.score(X, y))


def _refit_cart_path(estimator, X, y, classifier):
    """CART's path the plain way: one fit per alpha of the path, with ccp_alpha set to it."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    cart_class = DecisionTreeClassifier if classifier else DecisionTreeRegressor
    alphas = cart_class(max_depth=estimator.max_depth, random_state=0) \
        .cost_complexity_pruning_path(X, y).ccp_alphas
    costs = estimator.feature_costs
    cost = np.ones(X.shape[1]) if costs is None else np.asarray(costs, dtype=float)
    points = set()
    for alpha in alphas:
        cart = cart_class(max_depth=estimator.max_depth, random_state=0, ccp_alpha=alpha)
        tree = cart.fit(X, y).tree_
        split = tree.children_left >= 0
        if estimator.complexity == "expected_tests":
            complexity = np.sum(tree.weighted_n_node_samples[split]
                                / tree.weighted_n_node_samples[0] * cost[tree.feature[split]])
        else:
            complexity = np.sum(cost[tree.feature[split]])
        if classifier:
            loss = np.mean(cart.predict(X) != y)
        else:
            loss = np.sum(np.mean((cart.predict(X).reshape(len(X), -1)
                                   - np.reshape(y, (len(X), -1))) ** 2, axis=0))
        points.add((float(complexity), float(loss)))
    return np.array(sorted(points))


def _cart_cases():
    from sklearn.datasets import load_breast_cancer, load_diabetes, make_regression

    rng = np.random.RandomState(0)
    grid = np.round(rng.rand(400, 3), 1)   # many ties: splits of equal gain, pure nodes
    X_reg, y_reg = make_regression(200, 4, n_targets=2, noise=10.0, random_state=0)
    return {
        "breast cancer": (DPDTreeClassifier, {}, *load_breast_cancer(return_X_y=True)),
        "iris, splits": (DPDTreeClassifier, {"complexity": "n_splits"},
                         *load_iris(return_X_y=True)),
        "diabetes": (DPDTreeRegressor, {}, *load_diabetes(return_X_y=True)),
        "two outputs, costs": (DPDTreeRegressor, {"feature_costs": [1.0, 2.0, 0.5, 3.0]},
                               X_reg, y_reg),
        "ties": (DPDTreeClassifier, {"feature_costs": [1.0, 2.0, 3.0]}, grid,
                 (grid[:, 0] > 0.5) ^ (grid[:, 1] > 0.3)),
        "categories": (DPDTreeClassifier, {}, rng.randint(0, 3, (300, 5)).astype(float),
                       rng.randint(0, 3, 300)),
    }


@pytest.mark.parametrize("depth", [1, 3, 6, 40])
@pytest.mark.parametrize("name", list(_cart_cases()))
def test_cart_path_is_the_refit_path(name, depth):
    """One CART fit, pruned per alpha, gives the points of one fit per alpha, to the bit."""
    cls, params, X, y = _cart_cases()[name]
    estimator = cls(max_depth=depth, **params)
    assert_array_equal(_cart_path(estimator, X, y),
                       _refit_cart_path(estimator, X, y, cls is DPDTreeClassifier))


def test_cart_path_reports_its_progress(caplog):
    X, y = load_iris(return_X_y=True)
    with caplog.at_level("INFO", logger="dpdt"):
        _cart_path(DPDTreeClassifier(max_depth=3, verbose=1), X, y)
    assert any(record.getMessage().startswith("CART pruning path: ") for record in caplog.records)
    caplog.clear()
    with caplog.at_level("INFO", logger="dpdt"):
        _cart_path(DPDTreeClassifier(max_depth=3), X, y)
    assert not caplog.records


def test_plot_pareto_draws_a_validation_curve():
    """An estimator carrying ``validation_curve_`` (as the CV estimators do) gets mean ± std."""
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    curve = np.zeros(4, dtype=[("max_depth", np.int64), ("alpha", np.float64),
                               ("complexity", np.float64), ("mean_score", np.float64),
                               ("std_score", np.float64)])
    curve["max_depth"] = [3, 3, 2, 2]
    curve["complexity"] = [2.0, 0.5, 1.5, 0.0]
    curve["mean_score"] = [0.9, 0.6, 0.85, 0.33]
    curve["std_score"] = [0.05, 0.1, 0.02, 0.0]
    clf.validation_curve_ = curve
    ax = plot_pareto(clf, show_cart=False)
    labels = [line.get_label() for line in ax.lines]
    # The curves, then the chosen tree (alpha = 0) on the front and on its depth's curve.
    assert labels == ["DPDT Pareto front", "validation (depth 2)", "validation (depth 3)",
                      "chosen tree (alpha = 0, 8 leaves)", "_chosen"]
    assert_array_equal(ax.lines[4].get_xdata(), [2.0])
    depth3 = ax.lines[2]
    assert_array_equal(depth3.get_xdata(), [0.5, 2.0])
    assert_array_equal(depth3.get_ydata(), [0.6, 0.9])
    band = ax.collections[-1].get_paths()[0].vertices
    assert_allclose(band[:, 1].max(), 0.95)
    assert_allclose(band[:, 1].min(), 0.5)
    assert ax.get_ylabel() == "accuracy (train, validation)"


def test_plot_pareto_bad_input():
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="both X and y"):
        plot_pareto(clf, X=X)
    with pytest.raises(TypeError, match="no pareto_front_"):
        plot_pareto(BranchesClassifier().fit(X.astype(int), y))


# --- Measured pictures: no two texts overlap, whatever the tree and the figure. ---------------

def _boxes(ax):
    """Window extents of every drawn text of ax, its bbox patch included (as drawn)."""
    renderer = ax.figure.canvas.get_renderer()
    boxes = []
    for text in ax.texts:
        if not text.get_visible() or not text.get_text():
            continue
        box = text.get_window_extent(renderer)
        if text.get_bbox_patch() is not None:
            # Where drawing would put the patch, without drawing the whole figure.
            text.update_bbox_position_size(renderer)
            box = Bbox.union([box, text.get_bbox_patch().get_window_extent(renderer)])
        boxes.append((text.get_text(), box))
    return boxes


def _assert_no_overlap(ax, others=()):
    """No two texts (nor a text and one of ``others``) overlap by more than a pixel."""
    boxes = _boxes(ax) + [("<other>", other) for other in others]
    assert len(boxes) >= 2
    for (name_a, a), (name_b, b) in itertools.combinations(boxes, 2):
        overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
        overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
        assert overlap_x <= 1.0 or overlap_y <= 1.0, (name_a, name_b, a, b)
    figure = ax.figure.bbox
    for name, box in boxes:
        assert figure.x0 - 1 <= box.x0 and box.x1 <= figure.x1 + 1, (name, box)
        assert figure.y0 - 1 <= box.y0 and box.y1 <= figure.y1 + 1, (name, box)


def _node_font(ax):
    return max(text.get_fontsize() for text in ax.texts)


def _tree(kind, depth):
    """A small tree of the given kind that uses its depth (leaves at every level)."""
    rng = np.random.default_rng(depth)
    if kind == "branches":
        X = pd.DataFrame({name: rng.choice(["red", "green", "blue"], 50)
                          for name in ["colour", "size", "city", "shape", "tone", "kind"]})
        y = (X["colour"] == "red") ^ (X["size"] == "blue") ^ (X["city"] == "green") \
            ^ (rng.random(50) < 0.15)
        return BranchesClassifier(lam=0.001, max_depth=depth).fit(X, y)
    # Labels unrelated to X: the trees use all their depth.
    X = rng.normal(size=(40, 4))
    if kind == "classifier":
        return DPDTreeClassifier(max_depth=depth).fit(X, rng.integers(0, 3, 40))
    return DPDTreeRegressor(max_depth=depth).fit(X, rng.normal(size=40))


@pytest.mark.parametrize("kind", ["classifier", "regressor", "branches"])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_plot_tree_texts_never_overlap(kind, depth):
    """Into a figure of its own and into a user's (8, 5) axes: no two text boxes overlap and
    all stay in the figure; the own figure's font is readable (>= 6 pt), and a user's axes get
    either a readable font or a warning that names the size."""
    est = _tree(kind, depth)
    assert est.tree_.max_depth == depth or kind == "branches"
    ax = plot_tree(est)
    _assert_no_overlap(ax)
    assert _node_font(ax) >= 6.0
    if PICTURES:
        ax.figure.savefig(f"{PICTURES}/tree_{kind}_{depth}_own.png")
    _, ax = plt.subplots(figsize=(8, 5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plot_tree(est, ax=ax)
    _assert_no_overlap(ax)
    if _node_font(ax) < 6.0:
        assert len(caught) == 1 and f"{_node_font(ax):.1f} pt" in str(caught[0].message)
    else:
        assert not caught
    if PICTURES:
        ax.figure.savefig(f"{PICTURES}/tree_{kind}_{depth}_user.png")


def test_plot_tree_shortens_node_text_in_small_axes():
    est = _tree("classifier", 4)
    _, ax = plt.subplots(figsize=(4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plot_tree(est, ax=ax)
    texts = _texts(ax)
    assert not any("samples" in text or "class:" in text for text in texts)
    assert sum(text.startswith("x[") and "\nn = " in text for text in texts) \
        == np.sum(est.tree_.feature >= 0)
    _assert_no_overlap(ax)


def test_plot_tree_keeps_a_given_fontsize():
    ax = plot_tree(_tree("classifier", 2), fontsize=7)
    sizes = {text.get_fontsize() for text in ax.texts}
    assert sizes == {7, 7 * 0.85}


def _series(ax):
    """The labelled lines of ax (and of a twin y axis), as drawn in the legend."""
    axes = [ax, *[other for other in ax.figure.axes if other is not ax]]
    return [line for a in axes for line in a.lines if not line.get_label().startswith("_")]


def test_plot_pareto_series_colours_chosen_tree_and_labels():
    X, y = load_iris(return_X_y=True)
    cv = DPDTreeClassifierCV(max_depths=(2, 3, 4), cv=3).fit(X, y)
    ax = plot_pareto(cv, X=X, y=y)
    series = _series(ax)
    labels = [line.get_label() for line in series]
    assert labels[:2] == ["DPDT Pareto front", "CART pruning path"]
    assert sum(label.startswith("validation (depth") for label in labels) == 3
    colours = [matplotlib.colors.to_rgba(line.get_color()) for line in series]
    assert len(set(colours)) == len(colours), labels
    # The chosen tree: a star on the front at the complexity and accuracy of cv.tree_, with a
    # legend entry naming alpha_.
    chosen = [line for line in series if line.get_label().startswith("chosen tree")]
    assert len(chosen) == 1 and f"alpha_ = {cv.alpha_:.3g}" in chosen[0].get_label()
    assert chosen[0].get_label() in [t.get_text() for t in ax.get_legend().get_texts()]
    front = cv.pareto_front_
    row = front[front["n_leaves"] == cv.get_n_leaves()]
    assert chosen[0].get_xdata()[0] in row["complexity"]
    assert_allclose(chosen[0].get_ydata()[0], cv.score(X, y))   # train accuracy of cv.tree_
    # Leaf-count labels: one per front point at most, none over another or over the legend.
    numbers = [t for t in ax.texts if t.get_text().isdigit()]
    assert 1 <= len(numbers) <= len(front)
    ax.figure.canvas.draw()
    _assert_no_overlap(ax, others=[ax.get_legend().get_window_extent()])
    if PICTURES:
        ax.figure.savefig(f"{PICTURES}/pareto_cv.png")


def test_plot_pareto_marks_the_current_tree_of_a_plain_estimator():
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    clf.select_tree(max_leaves=3)
    ax = plot_pareto(clf, show_cart=False)
    chosen = [line for line in ax.lines if line.get_label().startswith("chosen tree")]
    assert len(chosen) == 1 and "3 leaves" in chosen[0].get_label()
    assert_allclose(chosen[0].get_ydata(), [clf.score(X, y)])


def test_plot_tree_own_figure_stops_growing_at_its_largest(monkeypatch):
    """A tree too wide for the largest figure plot_tree makes is drawn small, apart, and said."""
    monkeypatch.setattr("dpdt._plot._WIDEST", 5.0)
    with pytest.warns(UserWarning, match=r"drawn at \d\.\d pt in a 5 x \d+ inch figure"):
        ax = plot_tree(_tree("regressor", 5))
    assert ax.figure.get_size_inches()[0] <= 5.0
    assert _node_font(ax) < 6.0
    _assert_no_overlap(ax)


def test_plot_tree_refuses_class_names_of_the_wrong_length():
    # As export_text does: a clear ValueError, not an IndexError while drawing.
    X = np.arange(40.0).reshape(20, 2)
    clf = DPDTreeClassifier(max_depth=2).fit(X, np.arange(20) % 3)
    with pytest.raises(ValueError, match="class_names"):
        plot_tree(clf, class_names=["a"])


def _depths(tree):
    """The depth of every node of a tree_, from its child arrays."""
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):   # children come after their parent
        for child in (tree.children_left[node], tree.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    return depth


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3])
def test_plot_tree_max_depth_draws_the_top_and_truncated_boxes(max_depth):
    est = _tree("classifier", 6)
    tree = est.tree_
    depth = _depths(tree)
    ax = plot_tree(est, max_depth=max_depth)
    texts = _texts(ax)
    nodes = [t for t in texts if "\n" in t]
    # Every node down to max_depth, one "(...)" box for each node one level below, one label
    # per edge drawn, nothing deeper.
    assert len(nodes) == np.sum(depth <= max_depth)
    assert texts.count("(...)") == np.sum(depth == max_depth + 1)
    edge_labels = [t for t in texts if t.startswith(("<=", ">"))]
    assert len(edge_labels) == np.sum((depth >= 1) & (depth <= max_depth + 1))
    for node in np.flatnonzero((depth <= max_depth) & (tree.feature >= 0)):
        assert f"x[{tree.feature[node]}]\nsamples = {tree.n_node_samples[node]}" in texts
    _assert_no_overlap(ax)
    assert _node_font(ax) >= 6.0
    # The top of a depth-6 tree reads in a user's (8, 5) axes where the whole tree cannot.
    _, ax = plt.subplots(figsize=(8, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_tree(est, ax=ax, max_depth=max_depth)
    _assert_no_overlap(ax)
    assert _node_font(ax) >= 6.0
    if PICTURES:
        ax.figure.savefig(f"{PICTURES}/tree_max_depth_{max_depth}.png")


def test_plot_tree_max_depth_beyond_the_tree_draws_it_all():
    est = _tree("regressor", 3)
    full = _texts(plot_tree(est))
    assert _texts(plot_tree(est, max_depth=3)) == full
    assert _texts(plot_tree(est, max_depth=10)) == full
    assert "(...)" not in full


def test_plot_tree_max_depth_of_a_multiway_tree():
    est = _tree("branches", 4)
    depth = np.zeros(est.tree_.node_count, dtype=int)
    for node in range(est.tree_.node_count):
        for _, child in est.tree_.children(node):
            depth[child] = depth[node] + 1
    assert depth.max() >= 2
    ax = plot_tree(est, max_depth=1)
    assert _texts(ax).count("(...)") == np.sum(depth == 2)
    _assert_no_overlap(ax)


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (1.5, TypeError), ("2", TypeError)])
def test_plot_tree_refuses_a_bad_max_depth(bad, error):
    with pytest.raises(error, match="max_depth"):
        plot_tree(_tree("classifier", 2), max_depth=bad)


@pytest.mark.parametrize("name", ["bank", "concrete"])
def test_plot_pareto_draws_the_test_curve_beside_train(name):
    data = datasets.load(name)
    cls = DPDTreeClassifier if data.task == "classification" else DPDTreeRegressor
    est = cls(max_depth=3).fit(data.X_train, data.y_train)
    est.select_tree(max_leaves=4)
    ax = plot_pareto(est, X=data.X_train, y=data.y_train, X_test=data.X_test,
                     y_test=data.y_test)
    series = _series(ax)
    test = [line for line in series if line.get_label() == "test (held out)"]
    assert len(test) == 1
    colours = [matplotlib.colors.to_rgba(line.get_color()) for line in series]
    assert len(set(colours)) == len(colours)
    # Point by point, each tree of the front scored on the test set, as Python scores it.
    front = est.pareto_front_
    order = np.argsort(front["complexity"], kind="stable")
    assert_allclose(test[0].get_xdata(), front["complexity"][order])
    kept = est.get_params()
    expected = []
    for row in front[order]:
        est.set_params(alpha=(row["alpha_min"] + min(row["alpha_max"], 1e9)) / 2,
                       max_complexity=None)
        expected.append(est.score(data.X_test, data.y_test) if cls is DPDTreeClassifier
                        else np.mean((est.predict(data.X_test) - data.y_test) ** 2))
    est.set_params(**kept)
    assert_allclose(test[0].get_ydata(), expected)
    # The chosen tree (4 leaves at most) is starred on the test curve too, and the estimator
    # is left as it was.
    stars = [line for line in ax.lines if line.get_marker() == "*"]
    assert len(stars) == 2 and est.get_n_leaves() <= 4
    k = list(front[order]["n_leaves"]).index(est.get_n_leaves())
    assert_allclose(stars[1].get_ydata(), [expected[k]])
    what = "accuracy" if cls is DPDTreeClassifier else "mean squared error"
    assert ax.get_ylabel() == f"{what} (train, test)"


def test_plot_pareto_needs_both_test_arrays():
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="X_test and y_test"):
        plot_pareto(clf, X_test=X)


def _pipelines():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True, as_frame=True)
    tree = make_pipeline(StandardScaler(), DPDTreeClassifier(max_depth=3)).fit(X, y)
    other = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    return X, y, tree, other


def test_plot_tree_and_pareto_draw_a_pipelines_last_step():
    X, y, pipe, other = _pipelines()
    scaled = pipe[:-1].transform(X)
    # The tree's features are the scaled columns, named as the scaler names them.
    names = list(pipe[:-1].get_feature_names_out())
    drawn = plot_tree(pipe)
    expected = plot_tree(pipe[-1], feature_names=names)
    assert [t.get_text() for t in drawn.texts] == [t.get_text() for t in expected.texts]
    assert any(text.get_text().startswith("petal") for text in drawn.texts)
    # Held-out samples go through the scaler before the trees score them.
    ax = plot_pareto(pipe, X=X, y=y, X_test=X, y_test=y)
    direct = plot_pareto(pipe[-1], X=scaled, y=y, X_test=scaled, y_test=y)
    for line, same in zip(ax.lines, direct.lines, strict=True):
        assert_array_equal(line.get_ydata(), same.get_ydata())
    plt.close("all")
    for function in (plot_tree, plot_pareto):
        with pytest.raises(TypeError, match="Pipeline whose last step is a LogisticRegression"):
            function(other)
        with pytest.raises(TypeError, match="got LogisticRegression, which has no single tree"):
            function(other[-1])


def test_every_series_has_its_own_style_and_labels_leave_the_points_free():
    X, y = load_iris(return_X_y=True)
    cv = DPDTreeClassifierCV(max_depths=range(1, 8), cv=3).fit(X, y)
    ax = plot_pareto(cv, X=X, y=y, X_test=X, y_test=y)
    series = [line for line in _series(ax) if not line.get_label().startswith("chosen")]
    styles = [(matplotlib.colors.to_rgba(line.get_color()), line.get_linestyle())
              for line in series]
    assert len(series) == 3 + 7 and len(set(styles)) == len(styles)
    # Curves of no dash share no colour either with the front's series.
    solid = [style[0] for style in styles if style[1] == "-"]
    assert len(set(solid)) == len(solid)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    labels = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().isdigit()]
    points = [line.get_transform().transform(line.get_xydata()) for line in series]
    for box in labels:
        for xy in points:
            assert not any(box.x0 + 1 < px < box.x1 - 1 and box.y0 + 1 < py < box.y1 - 1
                           for px, py in xy), box
    plt.close("all")


def test_regression_cv_legend_lies_off_the_curves():
    from sklearn.datasets import load_diabetes

    from dpdt import DPDTreeRegressorCV

    X, y = load_diabetes(return_X_y=True)
    reg = DPDTreeRegressorCV(max_depths=[2, 4], cv=4).fit(X, y)
    ax = plot_pareto(reg, X=X, y=y)
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    legends = [a.get_legend() for a in figure.axes if a.get_legend() is not None]
    assert len(legends) == 1   # one legend for both scales
    legend = legends[0].get_window_extent(renderer)
    # Below the axes, inside the figure, and every series named in it.
    assert legend.y1 <= ax.get_window_extent(renderer).y0
    assert legend.y0 >= figure.bbox.y0
    names = [t.get_text() for t in legends[0].get_texts()]
    assert "validation (depth 2)" in names and "DPDT Pareto front" in names
    plt.close("all")


def test_plot_tree_class_colours_are_the_explorers():
    from dpdt._explorer import explorer_data

    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    ax = plot_tree(clf)
    tree = clf.tree_
    page = explorer_data(clf)["colours"]["classes"]
    leaves = [k for k in range(tree.node_count) if tree.children_left[k] < 0]
    for text, node in zip(ax.texts, sorted(range(tree.node_count)), strict=False):
        if node in leaves:
            edge = text.get_bbox_patch().get_edgecolor()
            expected = page[int(np.argmax(tree.value[node, 0]))]
            assert_allclose(edge, matplotlib.colors.to_rgba(expected))
    plt.close("all")


# ---- a policy's budget front ----

def _policy_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, 3)), columns=["age", "dose", "bmi"])
    R = pd.DataFrame({"control": np.zeros(n), "drug": 2 * X.age - 0.8 + rng.normal(size=n),
                      "surgery": 3 * X.dose - 1.5 + rng.normal(size=n)})
    C = np.column_stack([np.zeros(n), np.ones(n), 1 + rng.random(n)])
    return X, R, C


@pytest.fixture(scope="module")
def priced():
    X, R, C = _policy_data()
    policy = DPDTreePolicy(max_depth=2).fit(X[:200], R[:200], action_costs=C[:200])
    assert len(policy.cost_front_) > 3
    return policy, X[200:], R[200:]


def _line(ax, label):
    return next(line for line in ax.lines if line.get_label() == label)


def test_plot_cost_front_draws_the_front_as_steps_with_test_values(priced, tmp_path):
    policy, X_test, R_test = priced
    front = policy.cost_front_
    ax = plot_cost_front(policy, X_test=X_test, rewards_test=R_test)
    train = _line(ax, "cost front (train)")
    # Cheapest first, every row, as steps: a budget between two points buys the cheaper one.
    assert_array_equal(train.get_xdata(), front["cost"][::-1])
    assert_array_equal(train.get_ydata(), front["value"][::-1])
    assert train.get_drawstyle() == "steps-post"
    # Each tree's test value is its score on the held-out data, at its training cost.
    test = _line(ax, "test (held out)")
    assert_array_equal(test.get_xdata(), front["cost"][::-1])
    probe = copy.copy(policy)
    expected = [probe.select_tree(max_cost=float(c)).score(X_test, R_test)
                for c in front["cost"][::-1]]
    assert_allclose(test.get_ydata(), expected, rtol=1e-12)
    assert len(set(expected)) > 1
    # Columns named by the actions in another order: the same values.
    shuffled = plot_cost_front(policy, X_test=X_test, rewards_test=R_test[R_test.columns[::-1]])
    assert_array_equal(_line(shuffled, "test (held out)").get_ydata(), test.get_ydata())
    # The axes say what they show, in the user's units: total cost, mean reward.
    assert ax.get_xlabel().startswith("total cost")
    assert "mean reward" in ax.get_ylabel() and "test" in ax.get_ylabel()
    assert policy.max_cost is None   # no budget given: nothing starred
    assert not [line for line in ax.lines if line.get_marker() == "*"]
    if PICTURES:
        ax.figure.savefig(os.path.join(PICTURES, "cost_front.png"), dpi=100)


@pytest.mark.parametrize("share", [0.0, 0.3, 0.5, 0.99])
def test_plot_cost_front_stars_the_tree_a_budget_selects(priced, share):
    policy, X_test, R_test = priced
    front = policy.cost_front_
    # A budget between two points (and on one): select_tree gets the cheaper one.
    budget = float(front["cost"][2] + share * (front["cost"][1] - front["cost"][2]))
    ax = plot_cost_front(policy, X_test=X_test, rewards_test=R_test, max_cost=budget)
    assert policy.max_cost is None   # the estimator is left as it was
    stars = [line for line in ax.lines if line.get_marker() == "*"]
    assert len(stars) == 2   # on the train and on the test steps
    assert stars[0].get_xdata()[0] == front["cost"][2]
    assert stars[0].get_ydata()[0] == front["value"][2]
    assert "max_cost = " in stars[0].get_label()
    assert _line(ax, "budget").get_xdata()[0] == budget
    # The estimator's own budget, when none is given.
    own = copy.copy(policy).select_tree(max_cost=budget)
    stars = [line for line in plot_cost_front(own).lines if line.get_marker() == "*"]
    assert [s.get_xdata()[0] for s in stars] == [own.cost_front_["cost"][own._cost_row()]]
    assert own.tree_ is policy.cost_trees_[2]


def test_plot_cost_front_needs_a_policy_fitted_with_costs(priced):
    policy, X_test, R_test = priced
    X, R, _ = _policy_data(80, 1)
    with pytest.raises(ValueError, match="fitted without action_costs"):
        plot_cost_front(DPDTreePolicy(max_depth=1).fit(X, R))
    with pytest.raises(TypeError, match="DPDTreePolicy fitted with action_costs"):
        plot_cost_front(DPDTreeClassifier(max_depth=1).fit(X, R.drug > 0))
    with pytest.raises(ValueError, match="both X_test and rewards_test"):
        plot_cost_front(policy, X_test=X_test)
    # A budget is checked as select_tree checks it.
    with pytest.raises(ValueError, match="'max_cost' parameter of DPDTreePolicy"):
        plot_cost_front(policy, max_cost=-1.0)
    X, R, C = _policy_data(80, 1)
    dear = DPDTreePolicy(max_depth=1).fit(X, R, action_costs=C + 1)
    with pytest.raises(ValueError, match="no policy of cost_front_ costs at most 1"):
        plot_cost_front(dear, max_cost=1.0)


def test_plot_cost_front_of_a_saved_policy_and_of_a_one_hot_model(priced, tmp_path):
    policy, X_test, R_test = priced
    path = tmp_path / "policy.json"
    policy.save(path)
    drawn = [(line.get_xdata(), line.get_ydata()) for line in
             plot_cost_front(policy, X_test=X_test, rewards_test=R_test).lines]
    again = [(line.get_xdata(), line.get_ydata()) for line in
             plot_cost_front(load(path), X_test=X_test, rewards_test=R_test).lines]
    for (x, y), (x2, y2) in zip(drawn, again, strict=True):
        assert_array_equal(x, x2)
        assert_array_equal(y, y2)
    X, R, C = _policy_data(200, 2)
    X["site"] = np.where(X.bmi > 0.5, "north", "south")
    model = OneHotEncoded(DPDTreePolicy(max_depth=2)).fit(X, R, action_costs=C)
    ax = plot_cost_front(model, X_test=X, rewards_test=R)
    assert_array_equal(_line(ax, "cost front (train)").get_xdata(),
                       model.estimator_.cost_front_["cost"][::-1])
