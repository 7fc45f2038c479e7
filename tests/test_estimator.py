"""scikit-learn conformance and input validation of DPDTreeClassifier.

Optimality of the solver itself is tested elsewhere; here the estimator is checked as a
scikit-learn citizen: API checks, meta-estimators, label handling, the fitted tree arrays,
weights, pickling and error messages.
"""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _trees import TREE_ARRAYS
from _trees import assert_tree_equal as assert_trees
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    MultiwayGreedyClassifier,
    load,
    to_sklearn,
)

STATS_KEYS = ("states", "candidates", "cache_hits", "seconds")


# --------------------------------------------------------------------------- registries


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def _binary():
    return make_classification(
        n_samples=200, n_features=6, n_informative=3, n_redundant=1, random_state=0
    )


def _multiclass():
    return make_classification(
        n_samples=240,
        n_features=5,
        n_informative=4,
        n_redundant=0,
        n_classes=4,
        n_clusters_per_class=1,
        random_state=1,
    )


def _integer_grid():
    # Integer-valued features: every midpoint threshold is exact in float32 and float64,
    # so points placed exactly on a threshold stay exactly on it whatever the dtype.
    rng = np.random.RandomState(2)
    X = rng.randint(0, 6, size=(150, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1] > 5) ^ (X[:, 2] > 3)).astype(int)
    flip = rng.rand(150) < 0.1
    y[flip] = 1 - y[flip]
    return X, y


DATASETS = {
    "iris": _iris,
    "binary": _binary,
    "multiclass": _multiclass,
    "integer_grid": _integer_grid,
}

ESTIMATORS = {
    "default": dict(),
    "exhaustive": dict(splitter="exhaustive", max_depth=2),
    "entropy_nsplits": dict(criterion="entropy", complexity="n_splits", alpha=0.01),
    "small_budget": dict(candidates=(2, 1), max_depth=4),
    "quantile_root": dict(splitter=["quantile", "cart"], candidates=(3, 2)),
}


def assert_tree_equal(t1, t2, skip=(), msg=""):
    """Every array of two trees equal, floats up to rounding."""
    assert_trees(t1, t2, msg=msg, skip=skip, rtol=1e-10)

def _manual_apply(tree, X):
    """Route each row of X with the rule ``x[feature] <= threshold`` goes left."""
    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    feature, threshold = np.asarray(tree.feature), np.asarray(tree.threshold)
    leaves = np.empty(X.shape[0], dtype=np.intp)
    for i, x in enumerate(X):
        node = 0
        while left[node] != -1:
            node = left[node] if x[feature[node]] <= threshold[node] else right[node]
        leaves[i] = node
    return leaves


def _tree_depth(tree):
    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    depth, stack = 0, [(0, 0)]
    while stack:
        node, d = stack.pop()
        depth = max(depth, d)
        if left[node] != -1:
            stack += [(left[node], d + 1), (right[node], d + 1)]
    return depth


def _dense(indicator):
    return indicator.toarray() if sp.issparse(indicator) else np.asarray(indicator)


# ----------------------------------------------------------------- scikit-learn checks


@parametrize_with_checks(
    [DPDTreeClassifier(**params) for params in ESTIMATORS.values()],
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_init_only_assigns():
    # Invalid values are accepted by __init__ and only rejected at fit.
    clf = DPDTreeClassifier(max_depth=0, alpha=-1.0, splitter="nope", candidates=(0,))
    assert clf.get_params()["max_depth"] == 0
    assert clf.get_params()["splitter"] == "nope"


# ------------------------------------------------------------------------ meta-estimators


def test_pipeline():
    X, y = _multiclass()
    pipe = make_pipeline(StandardScaler(), DPDTreeClassifier(max_depth=3))
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.5
    # Trees only use the order of each feature, which an affine increasing map preserves.
    plain = DPDTreeClassifier(max_depth=3).fit(X, y)
    assert_array_equal(pipe.predict(X), plain.predict(X))


def test_grid_search_over_alpha_and_max_depth():
    X, y = _iris()
    grid = {"alpha": [0.0, 0.01, 0.1], "max_depth": [1, 2, 3]}
    search = GridSearchCV(DPDTreeClassifier(), grid, cv=3)
    search.fit(X, y)
    assert search.best_params_["alpha"] in grid["alpha"]
    assert search.best_params_["max_depth"] in grid["max_depth"]
    assert len(search.cv_results_["params"]) == 9
    best = search.best_estimator_
    assert best.get_depth() <= best.max_depth
    assert search.score(X, y) > 0.9


# ------------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["setosa", "versicolor", "virginica"]),
        np.array([-3, 5, 10]),
        np.array([10, 5, -3]),  # mapping not order-preserving in the input
    ],
    ids=["strings", "noncontiguous_int", "noncontiguous_int_reversed"],
)
def test_labels_are_encoded_and_restored(labels):
    X, y = _iris()
    y_new = labels[y]
    # The reference sees the encoding 0..K-1 of the sorted labels, as the estimator does
    # internally (ties between classes go to the lowest index of *that* encoding).
    classes, y_enc = np.unique(y_new, return_inverse=True)
    ref = DPDTreeClassifier().fit(X, y_enc)
    clf = DPDTreeClassifier().fit(X, y_new)

    assert_array_equal(clf.classes_, np.unique(y_new))
    assert clf.n_classes_ == 3
    pred = clf.predict(X)
    assert pred.dtype == y_new.dtype
    assert set(np.unique(pred)) <= set(labels)
    assert_array_equal(pred, classes[ref.predict(X)])
    assert_tree_equal(clf.tree_, ref.tree_, msg="original vs encoded labels")
    assert clf.score(X, y_new) == pytest.approx(ref.score(X, y_enc))
    # Column k of predict_proba belongs to classes_[k].
    proba = clf.predict_proba(X)
    assert_array_equal(clf.classes_[np.argmax(proba, axis=1)], pred)


def test_pandas_dataframe_input():
    pd = pytest.importorskip("pandas")
    X, y = _iris()
    columns = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    df = pd.DataFrame(X, columns=columns)
    clf = DPDTreeClassifier().fit(df, pd.Series(y))
    assert_array_equal(clf.feature_names_in_, columns)
    assert clf.n_features_in_ == 4
    ref = DPDTreeClassifier().fit(X, y)
    assert not hasattr(ref, "feature_names_in_")
    assert_array_equal(clf.predict(df), ref.predict(X))
    assert_tree_equal(clf.tree_, ref.tree_, msg="DataFrame vs ndarray")


# ------------------------------------------------------------------- fitted tree arrays


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("params", ESTIMATORS.values(), ids=list(ESTIMATORS))
def test_predict_proba_is_leaf_class_fractions(dataset, params):
    X, y = DATASETS[dataset]()
    rng = np.random.RandomState(0)
    sw = rng.uniform(0.5, 2.0, size=len(y))
    class_weight = {c: 1.0 + 0.5 * c for c in np.unique(y)}
    clf = DPDTreeClassifier(class_weight=class_weight, **params).fit(X, y, sample_weight=sw)

    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), clf.n_classes_)
    assert np.all(proba >= 0)
    assert_allclose(proba.sum(axis=1), 1.0)

    # Recompute each leaf's weighted class fractions from the training samples.
    w = sw * np.array([class_weight[c] for c in y])
    leaves = clf.apply(X)
    for leaf in np.unique(leaves):
        in_leaf = leaves == leaf
        counts = np.bincount(y[in_leaf], weights=w[in_leaf], minlength=clf.n_classes_)
        expected = counts / counts.sum()
        # atol: counts may be obtained by subtraction, leaving ~1e-16 for absent classes.
        assert_allclose(proba[in_leaf], np.tile(expected, (in_leaf.sum(), 1)), atol=1e-12)
        assert_allclose(clf.tree_.value[leaf, 0], expected, atol=1e-12)
        assert_allclose(clf.tree_.weighted_n_node_samples[leaf], w[in_leaf].sum())
        assert clf.tree_.n_node_samples[leaf] == in_leaf.sum()

    # predict is the arg-max of predict_proba (lowest class index on ties).
    assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("params", ESTIMATORS.values(), ids=list(ESTIMATORS))
def test_tree_arrays_apply_and_decision_path(dataset, params):
    X, y = DATASETS[dataset]()
    clf = DPDTreeClassifier(**params).fit(X, y)
    tree = clf.tree_
    n = tree.node_count
    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    feature, threshold = np.asarray(tree.feature), np.asarray(tree.threshold)

    # scikit-learn layout: parallel arrays, leaf sentinel -1 on both children.
    for name in TREE_ARRAYS:
        assert len(getattr(tree, name)) == n, name
    assert tree.value.shape == (n, 1, clf.n_classes_)
    is_leaf = left == -1
    assert_array_equal(is_leaf, right == -1)
    internal = ~is_leaf
    assert np.all((feature[internal] >= 0) & (feature[internal] < X.shape[1]))
    children = np.concatenate([left[internal], right[internal]])
    assert_array_equal(np.sort(children), np.arange(1, n))  # every non-root node once
    assert_allclose(
        tree.weighted_n_node_samples[internal],
        tree.weighted_n_node_samples[left[internal]]
        + tree.weighted_n_node_samples[right[internal]],
    )
    assert tree.n_node_samples[0] == len(y)

    # Depth and leaf count agree between the methods, the tree and the arrays.
    assert clf.get_n_leaves() == tree.n_leaves == is_leaf.sum()
    assert clf.get_depth() == tree.max_depth == _tree_depth(tree)
    assert clf.get_depth() <= clf.max_depth

    leaves = clf.apply(X)
    assert leaves.shape == (len(y),)
    assert np.all(is_leaf[leaves])
    assert_array_equal(leaves, _manual_apply(tree, X))

    indicator = _dense(clf.decision_path(X))
    assert indicator.shape == (len(y), n)
    for i in range(len(y)):
        on_path = set(np.flatnonzero(indicator[i]))
        node, path = 0, [0]
        while left[node] != -1:
            node = left[node] if X[i, feature[node]] <= threshold[node] else right[node]
            path.append(node)
        assert on_path == set(path), f"sample {i}: path {sorted(on_path)} != {path}"
        assert path[-1] == leaves[i]
        assert len(path) - 1 <= clf.get_depth()


def test_sample_on_threshold_goes_left():
    X, y = _integer_grid()
    clf = DPDTreeClassifier(max_depth=3).fit(X, y)
    tree = clf.tree_
    assert tree.node_count > 1
    f, thr = tree.feature[0], tree.threshold[0]
    # The threshold is a midpoint of the training values, never a training value itself.
    assert not np.any(X[:, f] == thr)

    x = X[:1].copy()
    x[0, f] = thr
    path = _dense(clf.decision_path(x))[0]
    assert path[tree.children_left[0]] == 1
    assert path[tree.children_right[0]] == 0
    x_above = x.copy()
    x_above[0, f] = thr + 0.25  # still below the next integer value
    assert _dense(clf.decision_path(x_above))[0][tree.children_right[0]] == 1

    # The same rule at every split node: move a sample that reaches the node onto its
    # threshold and compare with a hand-written traversal.
    indicator = _dense(clf.decision_path(X))
    rows = []
    for node in np.flatnonzero(np.asarray(tree.children_left) != -1):
        i = np.flatnonzero(indicator[:, node])[0]
        row = X[i].copy()
        row[tree.feature[node]] = tree.threshold[node]
        rows.append(row)
    X_on = np.array(rows)
    assert_array_equal(clf.apply(X_on), _manual_apply(tree, X_on))


def test_threshold_tie_on_tiny_data():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    clf = DPDTreeClassifier(max_depth=1).fit(X, y)
    assert clf.tree_.threshold[0] == 1.5
    assert_array_equal(clf.predict([[1.5], [1.625]]), [0, 1])


@pytest.mark.parametrize("shift", [-0.5, -10.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_negative_values_and_signed_zeros_sort_as_numbers(shift, weighted):
    # The presort orders the bit patterns of the values: a shift into negative numbers keeps the
    # tree (its thresholds shifted), and -0.0 is 0.0. Weights make the order of tied samples
    # count (sums in another order round otherwise).
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(300, 3)) / 4.0
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(0, 0.3, 300) > 1.0).astype(int)
    w = rng.uniform(0.1, 2.0, 300) if weighted else None
    signed = X.copy()
    signed[rng.random(X.shape) < 0.5] *= -1.0  # -0.0 for about half the zeros
    signed = np.where(X == 0.0, signed, X)
    assert np.signbit(signed).any()
    params = dict(max_depth=3, splitter="cart", candidates=(3, 3, 3))
    reference = DPDTreeClassifier(**params).fit(X, y, sample_weight=w)
    for Z in (X + shift, signed):
        clf = DPDTreeClassifier(**params).fit(Z, y, sample_weight=w)
        assert_array_equal(clf.tree_.feature, reference.tree_.feature)
        assert_array_equal(clf.tree_.n_node_samples, reference.tree_.n_node_samples)
        assert_array_equal(clf.apply(Z), reference.apply(X))
        assert_array_equal(clf.pareto_front_["train_loss"], reference.pareto_front_["train_loss"])


@pytest.mark.parametrize("dataset", DATASETS)
def test_feature_importances(dataset):
    X, y = DATASETS[dataset]()
    clf = DPDTreeClassifier().fit(X, y)
    imp = clf.feature_importances_
    assert imp.shape == (X.shape[1],)
    assert np.all(imp >= 0)
    assert imp.sum() == pytest.approx(1.0)
    tree = clf.tree_
    used = np.unique(np.asarray(tree.feature)[np.asarray(tree.children_left) != -1])
    unused = np.setdiff1d(np.arange(X.shape[1]), used)
    assert_array_equal(imp[unused], 0.0)


def test_feature_importances_single_leaf():
    X, y = _iris()
    # Any split costs more than it can save at this alpha: the tree is a single leaf.
    clf = DPDTreeClassifier(alpha=1e6).fit(X, y)
    assert clf.get_n_leaves() == 1
    assert clf.get_depth() == 0
    assert_array_equal(clf.feature_importances_, np.zeros(X.shape[1]))
    # Single-leaf prediction: the weighted majority class, proba = class fractions.
    assert_allclose(clf.predict_proba(X[:2]), np.full((2, 3), 1 / 3))
    assert_array_equal(clf.predict(X[:2]), [0, 0])  # three-way tie -> lowest index


def test_alpha_change_after_fit_needs_no_refit():
    X, y = _multiclass()
    clf = DPDTreeClassifier(alpha=0.0).fit(X, y)
    deep = clf.get_n_leaves()
    clf.set_params(alpha=1e6)
    assert clf.get_n_leaves() == 1
    assert clf.predict(X).shape == (len(y),)
    for alpha in (0.0, 0.005, 0.02):
        clf.set_params(alpha=alpha)
        fresh = DPDTreeClassifier(alpha=alpha).fit(X, y)
        assert_tree_equal(clf.tree_, fresh.tree_, msg=f"alpha={alpha}")
        assert_array_equal(clf.predict(X), fresh.predict(X))
    clf.set_params(alpha=0.0)
    assert clf.get_n_leaves() == deep


# ------------------------------------------------------------------------------ weights


@pytest.mark.parametrize("dataset", ["iris", "binary", "multiclass"])
def test_class_weight_balanced_equals_sample_weight(dataset):
    X, y = DATASETS[dataset]()
    # Make the classes unbalanced so that the weights matter.
    keep = (y != 0) | (np.arange(len(y)) % 3 == 0)
    X, y = X[keep], y[keep]
    by_class = DPDTreeClassifier(class_weight="balanced").fit(X, y)
    sw = compute_sample_weight("balanced", y)
    by_sample = DPDTreeClassifier().fit(X, y, sample_weight=sw)
    assert_tree_equal(by_class.tree_, by_sample.tree_, msg="balanced vs sample_weight")
    assert_allclose(by_class.predict_proba(X), by_sample.predict_proba(X))
    assert_allclose(by_class.pareto_front_["train_loss"], by_sample.pareto_front_["train_loss"])


def test_class_weight_dict_equals_sample_weight():
    X, y = _iris()
    cw = {0: 3.0, 1: 1.0, 2: 0.5}
    by_class = DPDTreeClassifier(class_weight=cw).fit(X, y)
    by_sample = DPDTreeClassifier().fit(X, y, sample_weight=np.array([cw[c] for c in y]))
    assert_tree_equal(by_class.tree_, by_sample.tree_, msg="dict vs sample_weight")


@pytest.mark.parametrize("min_weight", [1, 0], ids=["positive", "with_zeros"])
@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("params", ESTIMATORS.values(), ids=list(ESTIMATORS))
def test_integer_sample_weight_equals_duplication(dataset, params, min_weight):
    X, y = DATASETS[dataset]()
    rng = np.random.RandomState(3)
    # A weight of 0 must act as removing the row (as in scikit-learn's trees, zero-weight
    # samples must not create thresholds either).
    k = rng.randint(min_weight, 4, size=len(y))
    weighted = DPDTreeClassifier(**params).fit(X, y, sample_weight=k)
    duplicated = DPDTreeClassifier(**params).fit(np.repeat(X, k, axis=0), np.repeat(y, k))
    # n_node_samples counts rows, which duplication changes; every other array must agree.
    assert_tree_equal(
        weighted.tree_, duplicated.tree_, skip=("n_node_samples",), msg="weights vs repeats"
    )
    assert_allclose(weighted.predict_proba(X), duplicated.predict_proba(X))
    assert_allclose(weighted.pareto_front_["train_loss"], duplicated.pareto_front_["train_loss"])


# ------------------------------------------------------------------------ stats, pickle


def test_stats():
    X, y = _multiclass()
    small = DPDTreeClassifier(candidates=(1, 1, 1)).fit(X, y)
    large = DPDTreeClassifier(candidates=(7, 7, 7)).fit(X, y)
    for clf in (small, large):
        stats = clf.stats_
        assert set(STATS_KEYS) <= set(stats), f"missing keys: {set(STATS_KEYS) - set(stats)}"
        for key in ("states", "candidates", "cache_hits"):
            assert int(stats[key]) == stats[key] and stats[key] >= 0, (key, stats[key])
        assert stats["states"] >= 1
        assert stats["candidates"] >= 1
        assert np.isfinite(stats["seconds"]) and stats["seconds"] >= 0
    assert large.stats_["states"] >= small.stats_["states"]
    assert large.stats_["candidates"] >= small.stats_["candidates"]


@pytest.mark.parametrize("params", ESTIMATORS.values(), ids=list(ESTIMATORS))
def test_pickle_round_trip(params):
    X, y = _multiclass()
    clf = DPDTreeClassifier(**params).fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    assert type(restored) is DPDTreeClassifier
    assert restored.get_params() == clf.get_params()
    assert_tree_equal(restored.tree_, clf.tree_, msg="pickle")
    assert_array_equal(restored.predict(X), clf.predict(X))
    assert_allclose(restored.predict_proba(X), clf.predict_proba(X))
    assert_array_equal(restored.classes_, clf.classes_)
    assert restored.pareto_front_.dtype == clf.pareto_front_.dtype
    assert_array_equal(restored.pareto_front_, clf.pareto_front_)
    assert len(restored.trees_) == len(clf.trees_)
    for t1, t2 in zip(restored.trees_, clf.trees_, strict=True):
        assert_tree_equal(t1, t2, msg="pickled front")
    # The restored estimator still supports changing alpha without refitting.
    restored.set_params(alpha=1e6)
    assert restored.get_n_leaves() == 1
    # And the tree itself pickles on its own.
    tree = pickle.loads(pickle.dumps(clf.tree_))
    assert_tree_equal(tree, clf.tree_, msg="Tree pickle")


def test_clone_is_unfitted():
    X, y = _iris()
    clf = DPDTreeClassifier(alpha=0.01).fit(X, y)
    fresh = clone(clf)
    assert fresh.get_params() == clf.get_params()
    assert not hasattr(fresh, "classes_")


# ------------------------------------------------------------------------- bad input

_X, _Y = _iris()
_BAD = (ValueError, TypeError)


def _with(value, row=0, col=0):
    X = _X.copy()
    X[row, col] = value
    return X


@pytest.mark.parametrize(
    "X, y, match",
    [
        (_with(np.inf), _Y, "(?i)inf"),
        (_with(-np.inf), _Y, "(?i)inf"),
        (np.empty((0, 4)), np.empty(0), "0 sample"),
        (_X[:, 0], _Y, "2D"),
        (_X, _Y[:-1], "(?i)inconsistent|number of samples"),
        (np.array([["a", "b"], ["c", "d"]]), np.array([0, 1]), "(?i)string|numeric|float"),
    ],
    ids=["inf", "-inf", "empty", "1d", "lengths", "strings"],
)
def test_bad_data_raises(X, y, match):
    # NaN is a missing value, not bad input (tests/test_binned.py).
    with pytest.raises(_BAD, match=match):
        DPDTreeClassifier(max_bins=None).fit(X, y)


def test_bad_data_at_predict_raises():
    clf = DPDTreeClassifier().fit(_X, _Y)
    assert clf.predict(_with(np.nan)).shape == (len(_X),)   # a missing value is routed, not bad
    with pytest.raises(_BAD, match="(?i)inf"):
        clf.predict_proba(_with(np.inf))
    with pytest.raises(_BAD, match="features"):
        clf.predict(_X[:, :3])
    with pytest.raises(_BAD, match="2D"):
        clf.apply(_X[0])


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(candidates=(7, 0, 7)), "candidates"),
        (dict(candidates=(7, -1)), "candidates"),
        (dict(candidates=(0,)), "candidates"),
        (dict(candidates=(2.5, 3)), "candidates"),
        (dict(max_depth=0), "max_depth"),
        (dict(max_depth=-2), "max_depth"),
        (dict(alpha=-0.1), "alpha"),
        (dict(alpha=np.nan), "alpha"),
        (dict(splitter="random"), "splitter"),
        (dict(criterion="log_loss_typo"), "criterion"),
        (dict(complexity="n_leaves"), "complexity"),
        (dict(feature_costs=np.ones(3)), "feature_costs"),
        (dict(feature_costs=np.ones(5)), "feature_costs"),
        (dict(feature_costs=[1.0, -1.0, 1.0, 1.0]), "feature_costs"),
        (dict(feature_costs=[1.0, np.nan, 1.0, 1.0]), "feature_costs"),
        (dict(max_states=0), "max_states"),
        (dict(class_weight="unbalanced"), "class_weight"),
    ],
    ids=lambda v: repr(v) if isinstance(v, dict) else None,
)
def test_bad_parameters_raise(params, match):
    clf = DPDTreeClassifier(**params)  # __init__ accepts anything
    with pytest.raises(_BAD, match=match):
        clf.fit(_X, _Y)


@pytest.mark.parametrize(
    "sample_weight, match",
    [
        (np.r_[-1.0, np.ones(len(_Y) - 1)], "(?i)negative|sample_weight"),
        (np.ones(len(_Y) - 1), "(?i)sample_weight|shape|samples"),
        (np.r_[np.nan, np.ones(len(_Y) - 1)], "(?i)NaN|sample_weight"),
    ],
    ids=["negative", "wrong_length", "nan"],
)
def test_bad_sample_weight_raises(sample_weight, match):
    with pytest.raises(_BAD, match=match):
        DPDTreeClassifier().fit(_X, _Y, sample_weight=sample_weight)


def test_valid_feature_costs_accepted():
    clf = DPDTreeClassifier(feature_costs=[1.0, 0.0, 2.5, 1.0], alpha=0.01).fit(_X, _Y)
    assert clf.get_n_leaves() >= 1


def test_max_states_too_small_stops_with_the_greedy_tree_at_worst():
    X, y = _multiclass()
    # Depth 3 with (7, 7, 7) candidates needs far more than two states: the search stops
    # there as at a time limit, the states in progress completing their greedy split.
    clf = DPDTreeClassifier(max_states=2)
    with pytest.warns(ConvergenceWarning, match="max_states=2 reached"):
        clf.fit(X, y)
    assert clf.stats_["stopped_by"] == "max_states" and not clf.is_optimal_
    greedy = DPDTreeClassifier(splitter="cart", candidates=(1,)).fit(X, y)
    assert clf.score(X, y) >= greedy.score(X, y)
    # The estimator stays usable: the default limit fits normally, and so does a limit
    # equal to the number of states the fit actually needs.
    clf.set_params(max_states=DPDTreeClassifier().max_states).fit(X, y)
    assert clf.get_n_leaves() > 1 and clf.stats_["stopped_by"] is None
    limit = clf.stats_["states"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert DPDTreeClassifier(max_states=limit).fit(X, y).stats_["stopped_by"] is None


def test_max_states_none_means_no_limit():
    # The contract lists ``max_states=None`` as a valid value.
    X, y = _iris()
    clf = DPDTreeClassifier(max_states=None).fit(X, y)
    assert_tree_equal(clf.tree_, DPDTreeClassifier().fit(X, y).tree_, msg="max_states=None")


def _log_proba_classifiers():
    X, y = load_iris(return_X_y=True)
    codes = np.digitize(X, [2.0, 4.0, 6.0])
    return [
        (DPDTreeClassifier(max_depth=2), X, y),
        (DPDTreeClassifierCV(max_depths=[1, 2], cv=3), X, y),
        (DPDTGradientBoostingClassifier(n_estimators=3, max_depth=2), X, y),
        (BranchesClassifier(lam=0.01, time_limit=10), codes, y),
        (MultiwayGreedyClassifier(max_depth=2), codes, y),
    ]


@pytest.mark.parametrize("model, X, y", _log_proba_classifiers(),
                         ids=lambda v: type(v).__name__ if hasattr(v, "fit") else "")
def test_predict_log_proba_is_the_log_of_predict_proba(model, X, y):
    model.fit(X, y)
    proba = model.predict_proba(X)
    with np.errstate(divide="ignore"):
        expected = np.log(proba)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a probability of 0 gives -inf without a warning
        log_proba = model.predict_log_proba(X)
    assert_array_equal(log_proba, expected)
    assert log_proba.shape == (len(X), 3)
    if not isinstance(model, DPDTGradientBoostingClassifier):
        assert np.isneginf(log_proba).any()   # the trees' pure leaves give zeros


def test_predict_log_proba_matches_scikit_learn():
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    with warnings.catch_warnings():
        # scikit-learn's trees warn of the log of 0; the values are what is compared.
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = to_sklearn(clf).predict_log_proba(X)
    assert np.isneginf(expected).any()
    assert_array_equal(clf.predict_log_proba(X), expected)


def test_pareto_front_reads_as_a_table_with_named_columns():
    # The documented recipe: the structured array itself is kept (model files hold it as is).
    pd = pytest.importorskip("pandas")
    from dpdt._front import PARETO_DTYPE
    X, y = load_iris(return_X_y=True)
    clf = DPDTreeClassifier(max_depth=2).fit(X, y)
    assert clf.pareto_front_.dtype == PARETO_DTYPE
    table = pd.DataFrame(clf.pareto_front_)
    assert list(table.columns) == list(PARETO_DTYPE.names)
    for name in PARETO_DTYPE.names:
        assert_array_equal(table[name].to_numpy(), clf.pareto_front_[name])
    assert "n_leaves" in repr(table)


@pytest.mark.parametrize("complexity", ["n_splits", "expected_tests"])
def test_alpha_ranges_are_in_order_when_vertices_lie_in_a_line(complexity, tmp_path):
    # Three trees of losses 16/33, 18/33, 20/33 and 2, 1, 0 splits lie in a line: the two
    # slopes, rounded, came out in the wrong order and gave the middle tree an empty range,
    # which the model file then refused to hold.
    X = np.array([[1.0], [1.0], [0.0], [2.0], [0.0], [0.0], [0.0], [0.0]])
    y = np.array([0, 1, 2, 1, 1, 0, 1, 1])
    weight = np.array([2.0, 2.0, 2.0, 2.0, 5.0, 2.0, 2.0, 2.0])
    est = DPDTreeClassifier(class_weight="balanced", complexity=complexity).fit(
        X, y, sample_weight=weight)
    front = est.pareto_front_
    assert np.all(front["alpha_min"] <= front["alpha_max"])
    # The ranges tile [0, inf): each starts where the next simpler tree's ends.
    assert_array_equal(front["alpha_max"][:-1], front["alpha_min"][1:])
    assert front["alpha_min"][-1] > 0 and front["alpha_min"][0] == 0
    path = tmp_path / "model.dpdt"
    est.save(path)
    assert_array_equal(load(path).predict(X), est.predict(X))


def test_random_state_kinds_give_the_seed_of_their_first_draw():
    # An int's seed is drawn once per process; it must be the draw of a fresh RandomState, as
    # an equal RandomState given gets, on every fit.
    X, y = make_classification(n_samples=120, n_features=6, random_state=3)
    params = dict(max_depth=3, max_features=3, splitter="cart")
    for seed in (0, 7, np.int64(7), 2**32 - 1):
        a = DPDTreeClassifier(random_state=seed, **params).fit(X, y)
        for _ in range(2):
            b = DPDTreeClassifier(random_state=np.random.RandomState(int(seed)),
                                  **params).fit(X, y)
            assert_array_equal(a.pareto_front_, b.pareto_front_)
            for ta, tb in zip(a.trees_, b.trees_, strict=True):
                assert_trees(ta, tb, f"random_state={seed!r}")
    # A RandomState given draws a new seed at each fit.
    rng = np.random.RandomState(0)
    fits = [DPDTreeClassifier(random_state=rng, **params).fit(X, y) for _ in range(6)]
    assert len({f.tree_.feature.tobytes() + f.tree_.threshold.tobytes() for f in fits}) > 1
