"""plot_tree and plot_pareto: what they draw, and the PNG files they produce."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris

from dpdt import (
    BranchesClassifier,
    DPDTreeClassifier,
    DPDTreeRegressor,
    datasets,
    plot_pareto,
    plot_tree,
)
from dpdt._plot import _cart_path

matplotlib.use("Agg")

IRIS_FEATURES = ["sepal length", "sepal width", "petal length", "petal width"]
IRIS_CLASSES = ["setosa", "versicolor", "virginica"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_plot_tree_draws_every_node_and_edge(tmp_path):
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    ax = plot_tree(clf, feature_names=IRIS_FEATURES, class_names=IRIS_CLASSES)
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
    assert labels == ["DPDT Pareto front", "validation (depth 2)", "validation (depth 3)"]
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
