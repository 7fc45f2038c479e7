"""Gradient boosting with DPDT trees, the Newton objective, and DPDT inside AdaBoost.

- the Newton objective of the core's ``fit``: node values and losses equal their closed forms
  recomputed by routing the samples, and the exhaustive splitter equals a brute-force
  enumeration of every tree of depth <= 2 (optimum, tie-break, Pareto front);
- ``DPDTGradientBoostingClassifier``/``Regressor``: monotone training loss, a one-round
  log-loss stump computed by hand, probabilities, early stopping, staged predictions, integer
  sample weights as duplicated rows, n_jobs determinism, scikit-learn conformance;
- scikit-learn's ``AdaBoostClassifier`` (SAMME) over ``DPDTreeClassifier``: it boosts, and the
  weights it passes reach the DPDT learner (a round reproduced from the SAMME update).
"""

import functools
from types import SimpleNamespace

import numpy as np
import pytest
from _bruteforce import (
    NewtonEnumeration,
    lower_hull,
    midpoint_thresholds,
    newton_leaf_loss,
    newton_leaf_value,
    newton_tree_stats,
)
from _trees import assert_tree_equal
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit
from sklearn.datasets import load_iris
from sklearn.ensemble import AdaBoostClassifier, GradientBoostingRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpdt import (
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
)
from dpdt._runner import call_core

ATOL = 1e-9


# --------------------------------------------------------------------------------------------
# The Newton objective of the core
# --------------------------------------------------------------------------------------------
def newton_fit(X, g, h, w, reg_lambda, gamma, max_depth, splitter="exhaustive", candidates=3,
               complexity="n_splits", n_threads=1):
    """The core's Newton fit on (X, weighted g, weighted h, w), every parameter spelled out."""
    prepared = call_core("prepare", np.ascontiguousarray(X, dtype=np.float64))
    return call_core(
        "fit", "newton", prepared, np.column_stack((g, h)).astype(np.float64),
        np.ascontiguousarray(w, dtype=np.float64),
        reg_lambda=float(reg_lambda), gamma=float(gamma), params=dict(
            max_depth=max_depth, candidates=[candidates] * max_depth,
            splitters=[splitter] * max_depth, complexity=complexity, min_samples_split=2,
            min_samples_leaf=1, min_weight_leaf=0.0, min_impurity_decrease=0.0, max_features=0,
            random_state=0, max_states=10**7, n_threads=n_threads),
    )


def front_trees(result):
    return [SimpleNamespace(node_count=len(row["tree"]["feature"]), **row["tree"])
            for row in result["front"]]


WEIGHTINGS = {"unit": None, "heavy": (0.3, 3.0), "light": (0.05, 0.6)}


def newton_data(seed, n, p, weighting):
    """(X, weighted g, weighted h, w): even seeds have many duplicated feature values.

    ``weighting`` names the range of the sample weights: "unit" (all 1), "heavy" (summing to
    more than n) or "light" (summing to less than n, as after subsampling).
    """
    rng = np.random.default_rng(300 + seed)
    if seed % 2 == 0:
        X = rng.integers(0, 4, size=(n, p)).astype(float)
    else:
        X = rng.random((n, p)).round(3)
    low_high = WEIGHTINGS[weighting]
    w = np.ones(n) if low_high is None else rng.uniform(*low_high, n)
    g = rng.normal(size=n) + 0.5 * X[:, 0]
    h = rng.uniform(0.05, 1.0, n)
    return X, g * w, h * w, w


CLOSED_FORM_CASES = {
    # name: (seed, n, p, max_depth, splitter, reg_lambda, gamma)
    "stump-exhaustive": (1, 40, 3, 1, "exhaustive", 1.0, 0.0),
    "stump-duplicates-gamma": (2, 40, 3, 1, "exhaustive", 0.5, 0.2),
    "depth2-exhaustive-nolambda": (3, 30, 2, 2, "exhaustive", 0.0, 0.0),
    "depth3-cart": (5, 300, 4, 3, "cart", 1.0, 0.0),
    "depth3-quantile-gamma": (6, 300, 4, 3, "quantile", 2.0, 0.5),
}


@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("case", CLOSED_FORM_CASES)
def test_newton_node_values_are_closed_forms(case, weighting):
    seed, n, p, depth, splitter, lam, gamma = CLOSED_FORM_CASES[case]
    X, g, h, w = newton_data(seed, n, p, weighting)
    result = newton_fit(X, g, h, w, lam, gamma, depth, splitter=splitter)
    for k, tree in enumerate(front_trees(result)):
        s = newton_tree_stats(tree, X, g, h, w, lam, gamma)
        # every node, split or leaf, holds the value its routed samples give
        assert_allclose(np.asarray(tree.value)[:, 0], s["node_value"], rtol=1e-9, atol=1e-12,
                        err_msg=f"front[{k}]: value")
        assert_allclose(tree.weighted_n_node_samples, s["node_weight"], rtol=1e-12,
                        err_msg=f"front[{k}]: weighted_n_node_samples")
        assert_array_equal(tree.n_node_samples, s["node_count"], err_msg=f"front[{k}]")
        assert result["front"][k]["n_splits"] == s["n_splits"]
        # leaf values are the Newton step -G / (H + lambda) of the leaf's own sums
        for leaf in s["leaves"]:
            G, H = s["node_G"][leaf], s["node_H"][leaf]
            assert tree.value[leaf][0] == pytest.approx(-G / (H + lam), rel=1e-9, abs=1e-12)
    # the alpha = 0 tree is at least as good as a single leaf for the objective
    leaf_loss = newton_leaf_loss(g.sum(), h.sum(), lam, gamma)
    best = newton_tree_stats(front_trees(result)[0], X, g, h, w, lam, gamma)["loss"]
    assert best <= leaf_loss + ATOL


@pytest.mark.parametrize("complexity", ["n_splits", "expected_tests"])
@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("case", CLOSED_FORM_CASES)
def test_newton_front_rows_report_their_trees(case, weighting, complexity):
    # train_loss = tree loss / sum w and expected_tests = sum over splits of W_s / sum w, the
    # same normalisation as the classifier and the regressor.
    seed, n, p, depth, splitter, lam, gamma = CLOSED_FORM_CASES[case]
    X, g, h, w = newton_data(seed, n, p, weighting)
    result = newton_fit(X, g, h, w, lam, gamma, depth, splitter=splitter, complexity=complexity)
    for k, (row, tree) in enumerate(zip(result["front"], front_trees(result), strict=True)):
        s = newton_tree_stats(tree, X, g, h, w, lam, gamma)
        assert row["train_loss"] * w.sum() == pytest.approx(s["loss"], rel=1e-9, abs=ATOL), k
        assert row["complexity"] == pytest.approx(s[complexity], rel=1e-9, abs=ATOL), k


@functools.cache
def tiny_newton(seed, weighting):
    """n in 5..8, p in 1..2."""
    rng = np.random.default_rng(400 + seed)
    n, p = int(rng.integers(5, 9)), int(rng.integers(1, 3))
    return newton_data(seed, n, p, weighting)


@functools.cache
def newton_enum(seed, weighting, depth, lam, gamma):
    X, g, h, w = tiny_newton(seed, weighting)
    return NewtonEnumeration(X, g, h, w, depth, lam, gamma)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("gamma", [0.0, 0.3])
@pytest.mark.parametrize("reg_lambda", [0.0, 1.0, 5.0])
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("weighting", WEIGHTINGS)
@pytest.mark.parametrize("seed", range(6))
def test_newton_exhaustive_equals_brute_force(seed, weighting, depth, reg_lambda, gamma,
                                              n_threads):
    X, g, h, w = tiny_newton(seed, weighting)
    enum = newton_enum(seed, weighting, depth, reg_lambda, gamma)
    result = newton_fit(X, g, h, w, reg_lambda, gamma, depth, n_threads=n_threads)
    trees = front_trees(result)
    stats = [newton_tree_stats(t, X, g, h, w, reg_lambda, gamma) for t in trees]

    # front[0], the alpha = 0 tree: the least loss of all trees, then the fewest splits
    best = enum.best_index(0.0, "n_splits")
    assert stats[0]["loss"] == pytest.approx(enum.trees.loss.min(), abs=ATOL)
    assert stats[0]["n_splits"] == enum.n_splits[best]
    assert stats[0]["depth"] <= depth

    # the whole front: (n_splits, loss) of its trees is the lower convex hull of all trees
    rows = [k for k, row in enumerate(result["front"]) if row["alpha_max"] > row["alpha_min"]]
    got = np.array([(stats[k]["n_splits"], stats[k]["loss"]) for k in rows])
    want = lower_hull(np.column_stack([enum.n_splits, enum.trees.loss]))[::-1]
    assert got.shape == want.shape, (got, want)
    assert_allclose(got, want, atol=ATOL)


# --------------------------------------------------------------------------------------------
# Boosting
# --------------------------------------------------------------------------------------------
def smooth_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 3))
    f = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 - X[:, 2]
    y_binary = (rng.random(n) < expit(2 * f)).astype(int)
    y_regression = f + 0.1 * rng.normal(size=n)
    return X, y_binary, y_regression


def _binary():
    X, y, _ = smooth_data()
    return X, y


def _multiclass():
    X, y = load_iris(return_X_y=True)
    return X, y


def _regression():
    X, _, y = smooth_data()
    return X, y


DATASETS = {"binary": _binary, "multiclass": _multiclass, "regression": _regression}


def estimator_for(name, **params):
    if name == "regression":
        return DPDTGradientBoostingRegressor(**params)
    return DPDTGradientBoostingClassifier(**params)


def raw_output(est, X):
    if isinstance(est, DPDTGradientBoostingRegressor):
        return est.predict(X)
    return est.decision_function(X)


@pytest.mark.parametrize("reg_lambda", [0.0, 1.0])
@pytest.mark.parametrize("learning_rate", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("task", ["binary", "regression"])
def test_train_loss_decreases_with_rounds(task, learning_rate, reg_lambda):
    X, y = DATASETS[task]()
    est = estimator_for(task, n_estimators=30, learning_rate=learning_rate,
                        reg_lambda=reg_lambda).fit(X, y)
    score = est.train_score_
    assert score.shape == (30,)
    if task == "regression":
        start = np.mean((y - y.mean()) ** 2)
    else:
        p = y.mean()
        start = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    steps = np.diff(np.concatenate([[start], score]))
    assert np.all(steps <= 1e-12), steps.max()
    assert score[-1] < 0.5 * start
    # train_score_ is the loss of what the model predicts
    raw = raw_output(est, X)
    if task == "regression":
        assert score[-1] == pytest.approx(np.mean((y - raw) ** 2), rel=1e-9)
    else:
        assert score[-1] == pytest.approx(np.mean(np.logaddexp(0, raw) - y * raw), rel=1e-9)


def hand_stump(X, y, w, reg_lambda, gamma):
    """Init logit and the best Newton split (or leaf) of the first log-loss round, by hand.

    Returns (init, feature, (left_max, right_min), value_left, value_right); feature is None when
    a single leaf is best, and then value_left == value_right.
    """
    p = np.sum(w * y) / np.sum(w)
    init = np.log(p / (1 - p))
    g = w * (p - y)
    h = w * np.full(len(y), p * (1 - p))
    best = (newton_leaf_loss(g.sum(), h.sum(), reg_lambda, gamma), None, None)
    for f in range(X.shape[1]):
        for t in midpoint_thresholds(X[:, f]):
            left = X[:, f] <= t
            loss = (newton_leaf_loss(g[left].sum(), h[left].sum(), reg_lambda, gamma)
                    + newton_leaf_loss(g[~left].sum(), h[~left].sum(), reg_lambda, gamma))
            if loss < best[0] - 1e-12:
                best = (loss, f, t)
    _, f, t = best
    if f is None:
        v = newton_leaf_value(g.sum(), h.sum(), reg_lambda)
        return init, None, None, v, v
    left = X[:, f] <= t
    gap = (X[left, f].max(), X[~left, f].min())
    return (init, f, gap, newton_leaf_value(g[left].sum(), h[left].sum(), reg_lambda),
            newton_leaf_value(g[~left].sum(), h[~left].sum(), reg_lambda))


@pytest.mark.parametrize("learning_rate", [0.1, 1.0])
@pytest.mark.parametrize("gamma", [0.0, 0.05, 100.0])
@pytest.mark.parametrize("reg_lambda", [0.0, 1.0, 10.0])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_binary_log_loss_stump_by_hand(weighted, reg_lambda, gamma, learning_rate):
    rng = np.random.default_rng(7)
    n = 60
    X = rng.random((n, 3))
    y = (rng.random(n) < expit(3 * (X[:, 1] - 0.4))).astype(int)
    w = rng.uniform(0.2, 3.0, n) if weighted else np.ones(n)
    init, f, gap, v_left, v_right = hand_stump(X, y, w, reg_lambda, gamma)

    clf = DPDTGradientBoostingClassifier(
        n_estimators=1, max_depth=1, learning_rate=learning_rate, reg_lambda=reg_lambda,
        gamma=gamma).fit(X, y, sample_weight=None if not weighted else w)
    assert clf.init_raw_ == pytest.approx([init], rel=1e-12)
    (tree,), = clf.estimators_
    if f is None:
        assert tree.node_count == 1
        left = np.ones(n, dtype=bool)
    else:
        assert tree.feature[0] == f
        assert gap[0] <= tree.threshold[0] < gap[1]
        left = X[:, f] <= tree.threshold[0]
    expected = init + learning_rate * np.where(left, v_left, v_right)
    assert_allclose(clf.decision_function(X), expected, rtol=1e-10, atol=1e-12)
    proba = expit(expected)
    assert_allclose(clf.predict_proba(X), np.column_stack([1 - proba, proba]), rtol=1e-10,
                    atol=1e-12)


# --------------------------------------------------------------------------------------------
# Missing values: NaN is routed at each split as the trees route it
# --------------------------------------------------------------------------------------------
def route_left(X, feature, threshold, missing_left):
    """The documented rule, written apart from the product: NaN goes to its stored side."""
    x = X[:, feature]
    return np.where(np.isnan(x), missing_left == 1, x <= threshold)


def newton_stump_optimum(X, g, h, reg_lambda, gamma):
    """The least Newton objective of a leaf or of one split, by enumeration.

    Each feature's splits: every threshold between present values (or above them all, parting
    the present values from the missing ones), with the missing values on either side.
    """
    best = newton_leaf_loss(g.sum(), h.sum(), reg_lambda, gamma)
    for f in range(X.shape[1]):
        present = X[~np.isnan(X[:, f]), f]
        for t in [*midpoint_thresholds(present), np.inf]:
            for missing_left in (0, 1):
                left = route_left(X, f, t, missing_left)
                if left.all() or not left.any():
                    continue
                best = min(best, newton_leaf_loss(g[left].sum(), h[left].sum(), reg_lambda, gamma)
                           + newton_leaf_loss(g[~left].sum(), h[~left].sum(), reg_lambda, gamma))
    return best


def data_with_missing_values(seed, n=30):
    """Few distinct values, a fifth of them missing, and y depending on what is missing."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    logit = 2.0 * np.isnan(X[:, 0]) - 0.5 * np.nan_to_num(X[:, 1], nan=2.0) + 1.0
    return X, (rng.random(n) < expit(logit)).astype(int)


@pytest.mark.parametrize("max_bins", [None, 255])
@pytest.mark.parametrize("reg_lambda", [0.0, 1.0])
@pytest.mark.parametrize("seed", range(6))
def test_missing_values_stump_is_optimal_and_routes_nan(seed, reg_lambda, max_bins):
    # One round of depth 1: the stump is the optimum of the Newton objective over every split
    # and side for the missing values, and its outputs follow the documented routing.
    X, y = data_with_missing_values(seed)
    clf = DPDTGradientBoostingClassifier(n_estimators=1, max_depth=1, learning_rate=1.0,
                                         reg_lambda=reg_lambda, max_bins=max_bins).fit(X, y)
    p = y.mean()
    g, h = p - y, np.full(len(y), p * (1 - p))
    (tree,), = clf.estimators_
    if tree.node_count == 1:
        leaves = [np.ones(len(y), dtype=bool)]
    else:
        left = route_left(X, tree.feature[0], tree.threshold[0], tree.missing_go_to_left[0])
        leaves = [left, ~left]
    loss = sum(newton_leaf_loss(g[leaf].sum(), h[leaf].sum(), reg_lambda, 0.0)
               for leaf in leaves)
    assert loss == pytest.approx(newton_stump_optimum(X, g, h, reg_lambda, 0.0), rel=1e-12,
                                 abs=1e-12)
    expected = np.full(len(y), np.log(p / (1 - p)))
    for leaf in leaves:
        expected[leaf] += newton_leaf_value(g[leaf].sum(), h[leaf].sum(), reg_lambda)
    assert_allclose(clf.decision_function(X), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("max_bins", [None, 255])
@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
def test_missing_values_in_every_method(task, max_bins):
    # NaN in fit, predict, probabilities and staged outputs, with early stopping and leaves
    # refitted by the absolute loss: a class given away only by a missing value is learnt.
    rng = np.random.default_rng(4)
    n = 240
    X = rng.random((n, 3))
    X[rng.random(X.shape) < 0.15] = np.nan
    y = np.where(np.isnan(X[:, 0]), 1, (np.nan_to_num(X[:, 1]) > 0.5) * 2)
    if task == "binary":
        y = np.minimum(y, 1)
    common = dict(n_estimators=20, learning_rate=0.5, max_bins=max_bins)
    ests = ([DPDTGradientBoostingRegressor(loss=loss, **common)
             for loss in ("squared_error", "absolute_error", "huber")]
            if task == "regression" else
            [DPDTGradientBoostingClassifier(**common),
             DPDTGradientBoostingClassifier(n_iter_no_change=2, random_state=0, **common)])
    for est in ests:
        est.fit(X, y)
        prediction = est.predict(X)
        assert np.all(np.isfinite(prediction))
        *_, last = est.staged_predict(X)
        assert_array_equal(last, prediction)
        # Early stopping trains on part of the rows, and its thresholds fall between theirs.
        assert est.score(X, y) > (0.99 if est.n_iter_no_change else 0.999)
        if task != "regression":
            assert_allclose(list(est.staged_predict_proba(X))[-1], est.predict_proba(X))


def test_missing_value_unseen_in_training_goes_to_the_larger_side():
    X = np.arange(10.0).reshape(-1, 1)
    y = (X[:, 0] > 2.5).astype(int)   # the split leaves 3 samples left, 7 right
    clf = DPDTGradientBoostingClassifier(n_estimators=1, max_depth=1, learning_rate=1.0).fit(X, y)
    assert clf.decision_function([[np.nan]]) == clf.decision_function([[9.0]])


@pytest.mark.parametrize("where", ["fit", "predict"])
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinity_is_a_clear_error(bad, where):
    X, y = DATASETS["binary"]()
    X_bad = X.copy()
    X_bad[3, 1] = bad
    clf = DPDTGradientBoostingClassifier(n_estimators=2)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        clf.fit(X_bad, y) if where == "fit" else clf.fit(X, y).predict(X_bad)


@pytest.mark.parametrize("task", ["binary", "multiclass"])
def test_predict_proba_rows_sum_to_one(task):
    X, y = DATASETS[task]()
    clf = DPDTGradientBoostingClassifier(n_estimators=15, learning_rate=0.3).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(y), len(np.unique(y)))
    assert np.all(proba >= 0)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_array_equal(clf.predict(X), clf.classes_[np.argmax(proba, axis=1)])
    assert clf.score(X, y) > 0.8


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_early_stopping_stops_on_noise(task):
    # Targets independent of X: the validation loss stops improving after a few rounds.
    rng = np.random.default_rng(3)
    X = rng.random((300, 4))
    y = rng.integers(0, 2, 300) if task == "binary" else rng.normal(size=300)
    est = estimator_for(task, n_estimators=200, learning_rate=0.5, n_iter_no_change=3,
                        random_state=0).fit(X, y)
    assert est.n_estimators_ < 200
    assert len(est.estimators_) == est.n_estimators_
    assert est.train_score_.shape == est.validation_score_.shape == (est.n_estimators_,)
    # it stops exactly when the last three rounds did not beat the best before them
    val = est.validation_score_
    assert np.all(val[-3:] >= val[:-3].min() - est.tol)
    # staged outputs stop with the fitted rounds
    assert sum(1 for _ in est.staged_predict(X)) == est.n_estimators_
    full = estimator_for(task, n_estimators=30, learning_rate=0.5).fit(X, y)
    assert full.n_estimators_ == 30


@pytest.mark.parametrize("task", list(DATASETS))
def test_staged_predict_ends_at_predict(task):
    X, y = DATASETS[task]()
    est = estimator_for(task, n_estimators=12, learning_rate=0.3).fit(X, y)
    stages = list(est.staged_predict(X))
    assert len(stages) == est.n_estimators_ == 12
    assert_array_equal(stages[-1], est.predict(X))
    if task != "regression":
        probas = list(est.staged_predict_proba(X))
        assert len(probas) == 12
        assert_array_equal(probas[-1], est.predict_proba(X))


@pytest.mark.parametrize("task", list(DATASETS))
def test_integer_sample_weight_equals_duplicated_rows(task):
    X, y = DATASETS[task]()
    k = np.random.default_rng(11).integers(0, 4, len(y))   # 0 removes a row
    params = dict(n_estimators=10, learning_rate=0.3, max_depth=3)
    weighted = estimator_for(task, **params).fit(X, y, sample_weight=k)
    duplicated = estimator_for(task, **params).fit(np.repeat(X, k, axis=0), np.repeat(y, k))
    assert_allclose(raw_output(weighted, X), raw_output(duplicated, X), rtol=1e-9, atol=1e-12)
    assert_allclose(weighted.train_score_, duplicated.train_score_, rtol=1e-9)
    for r, (ta, tb) in enumerate(zip(weighted.estimators_, duplicated.estimators_, strict=True)):
        for a, b in zip(ta, tb, strict=True):
            assert_array_equal(a.feature, b.feature, err_msg=f"round {r}")
            assert_array_equal(a.threshold, b.threshold, err_msg=f"round {r}")


@pytest.mark.parametrize("max_bins", [255, 16, None])
@pytest.mark.parametrize("task", list(DATASETS))
def test_n_jobs_gives_identical_models(task, max_bins):
    X, y = DATASETS[task]()
    fits = [estimator_for(task, n_estimators=8, candidates=(4, 4, 4), max_bins=max_bins,
                          n_jobs=n_jobs).fit(X, y)
            for n_jobs in (1, 2)]
    a, b = fits
    assert_array_equal(raw_output(a, X), raw_output(b, X))
    for r, (ta, tb) in enumerate(zip(a.estimators_, b.estimators_, strict=True)):
        for c, (x, z) in enumerate(zip(ta, tb, strict=True)):
            assert_tree_equal(x, z, f"round {r}, tree {c}")


@pytest.mark.parametrize("splitter", ["cart", "exhaustive", "quantile"])
@pytest.mark.parametrize("task", ["binary", "regression"])
def test_uniform_weight_scale_does_not_change_the_model(task, splitter):
    # Without lambda and gamma (absolute amounts), every weight times c is the same problem:
    # G and H scale by c, so do the leaf losses, and -G / H does not change.
    X, y = DATASETS[task]()
    params = dict(n_estimators=5, learning_rate=0.3, max_depth=2, splitter=splitter,
                  candidates=(3, 3), reg_lambda=0.0, gamma=0.0)
    ref = estimator_for(task, **params).fit(X, y)
    for c in (0.5, 2.0):
        est = estimator_for(task, **params).fit(X, y, sample_weight=np.full(len(y), c))
        for r, (ta, tb) in enumerate(zip(ref.estimators_, est.estimators_, strict=True)):
            assert_array_equal(ta[0].feature, tb[0].feature, err_msg=f"c={c}, round {r}")
            assert_array_equal(ta[0].threshold, tb[0].threshold, err_msg=f"c={c}, round {r}")
        assert_allclose(raw_output(est, X), raw_output(ref, X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("splitter", "candidates"),
                         [("exhaustive", 1), ("topk", 2), ("quantile", 4), ("cart", 1)])
@pytest.mark.parametrize("task", list(DATASETS))
def test_bins_holding_one_value_each_give_the_exact_model(task, splitter, candidates):
    # With a bin per distinct value the histogram engine offers the exact engine's splits of a
    # state; their thresholds sit at the left value instead of the midpoint, which no sample of
    # the state can tell apart. (A CART generator's deeper candidates are not compared: found in
    # one of its nodes, they are applied to the whole state, where the two placements can
    # differ.) Sums are taken in another order, hence the tolerance.
    X, y = DATASETS[task]()
    X = np.round(X, 1)   # a few dozen values per feature
    params = dict(n_estimators=10, learning_rate=0.3, max_depth=2, splitter=splitter,
                  candidates=candidates, random_state=0)
    exact = estimator_for(task, max_bins=None, **params).fit(X, y)
    binned = estimator_for(task, max_bins=255, **params).fit(X, y)
    assert exact.n_bins_ is None
    assert_array_equal(binned.n_bins_, [len(np.unique(column)) for column in X.T])
    assert_allclose(raw_output(binned, X), raw_output(exact, X), rtol=1e-9, atol=1e-12)
    for r, (ta, tb) in enumerate(zip(exact.estimators_, binned.estimators_, strict=True)):
        for a, b in zip(ta, tb, strict=True):
            assert_array_equal(a.feature, b.feature, err_msg=f"round {r}")
            assert_array_equal(a.n_node_samples, b.n_node_samples, err_msg=f"round {r}")


def test_binned_thresholds_are_training_values():
    X, y = _binary()
    est = DPDTGradientBoostingClassifier(n_estimators=5, max_bins=8).fit(X, y)
    assert np.all(est.n_bins_ <= 8)
    for trees in est.estimators_:
        split = trees[0].feature >= 0
        for f, t in zip(trees[0].feature[split], trees[0].threshold[split], strict=True):
            assert t in X[:, f]


def test_boosting_beats_its_first_tree():
    X, y = _binary()
    one = DPDTGradientBoostingClassifier(n_estimators=1, learning_rate=1.0).fit(X, y)
    many = DPDTGradientBoostingClassifier(n_estimators=40, learning_rate=0.3).fit(X, y)
    assert many.score(X, y) > one.score(X, y)


def expected_failed_checks(estimator):
    if estimator.subsample < 1.0:
        # Each round keeps each row with probability `subsample`: k copies of a row are drawn
        # independently, a row of weight k is kept or dropped whole. The two fits follow
        # different distributions, not just different random streams; no seed can match them.
        reason = "row subsampling treats a weight-k row and k copies of it differently"
        return {"check_sample_weight_equivalence_on_dense_data": reason,
                "check_sample_weight_equivalence_on_sparse_data": reason}
    return {}


@parametrize_with_checks([
    DPDTGradientBoostingClassifier(n_estimators=5),
    DPDTGradientBoostingRegressor(n_estimators=5),
    DPDTGradientBoostingClassifier(n_estimators=5, splitter="quantile", reg_lambda=0.0, gamma=0.1),
    DPDTGradientBoostingRegressor(n_estimators=5, splitter=["exhaustive", "cart"], max_depth=2,
                                  learning_rate=0.5),
    DPDTGradientBoostingClassifier(n_estimators=5, subsample=0.7, random_state=0),
], expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------------
# AdaBoost (SAMME) over DPDT trees
# --------------------------------------------------------------------------------------------
class RecordingDPDTreeClassifier(DPDTreeClassifier):
    """DPDTreeClassifier that keeps the sample_weight it was fitted with."""

    def fit(self, X, y, sample_weight=None):
        self.seen_weight_ = None if sample_weight is None else np.array(sample_weight)
        return super().fit(X, y, sample_weight=sample_weight)


def diagonal_data(n=300, seed=5):
    # An oblique boundary: a single axis-aligned tree of small depth cannot follow it.
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    return X, y


def samme_weights(ada, X, y, rounds):
    """The weights SAMME gives each round, rebuilt from the fitted learners and their weights."""
    n = len(y)
    w = np.full(n, 1.0 / n)
    eps = np.finfo(np.float64).eps
    out = []
    for k in range(rounds):
        w = np.clip(w, eps, None)
        out.append(w.copy())
        incorrect = ada.estimators_[k].predict(X) != y
        error = np.average(incorrect, weights=w)
        assert ada.estimator_errors_[k] == pytest.approx(error, rel=1e-12)
        alpha = ada.learning_rate * (np.log((1 - error) / error) + np.log(len(ada.classes_) - 1))
        assert ada.estimator_weights_[k] == pytest.approx(alpha, rel=1e-12)
        w = w * np.exp(alpha * incorrect)
        w = w / w.sum()
    return out


@pytest.mark.parametrize("max_depth", [1, 2])
def test_adaboost_over_dpdt(max_depth):
    X, y = diagonal_data()
    n_rounds = 25
    ada = AdaBoostClassifier(estimator=RecordingDPDTreeClassifier(max_depth=max_depth),
                             n_estimators=n_rounds, random_state=0).fit(X, y)
    assert len(ada.estimators_) == n_rounds
    assert np.all(ada.estimator_weights_ > 0)

    # the learners differ from round to round: the weights change what DPDT fits
    shapes = {(tuple(e.tree_.feature), tuple(np.round(e.tree_.threshold, 12)))
              for e in ada.estimators_}
    assert len(shapes) >= 5

    single = DPDTreeClassifier(max_depth=max_depth).fit(X, y)
    stump = DPDTreeClassifier(max_depth=1).fit(X, y)
    assert ada.score(X, y) > max(single.score(X, y), stump.score(X, y)) + 0.02

    # the weights AdaBoost passed are the SAMME weights, and a fresh DPDT fit on them gives the
    # very tree AdaBoost holds for that round
    rebuilt = samme_weights(ada, X, y, n_rounds)
    for k in (0, 1, 2, 7, n_rounds - 1):
        learner = ada.estimators_[k]
        assert_allclose(learner.seen_weight_, rebuilt[k], rtol=1e-9)
        params = learner.get_params()
        # the weights AdaBoost passed, bit for bit: the identical tree
        same = DPDTreeClassifier(**params).fit(X, y, sample_weight=learner.seen_weight_)
        assert_tree_equal(same.tree_, learner.tree_, f"round {k}")
        # the weights rebuilt from the SAMME update (equal up to rounding): the same splits
        fresh = DPDTreeClassifier(**params).fit(X, y, sample_weight=rebuilt[k])
        for name in ("children_left", "children_right", "feature", "threshold"):
            assert_array_equal(getattr(fresh.tree_, name), getattr(learner.tree_, name),
                               err_msg=f"round {k}: {name}")
        assert_allclose(fresh.tree_.value, learner.tree_.value, rtol=1e-9, atol=1e-12)
        assert_array_equal(fresh.predict(X), learner.predict(X))


def test_feature_importances_match_scikit_learn_for_the_same_stumps():
    # With squared error, reg_lambda = 0 and depth 1, each round's tree is the best stump, as
    # scikit-learn's is, and the Newton gain is half the squared error's decrease: the same
    # normalised importances (scikit-learn's mean of the trees' impurity decreases).
    rng = np.random.RandomState(0)
    X = rng.rand(200, 3)
    y = 3 * (X[:, 0] > 0.5) + (X[:, 1] > 0.3) + 0.01 * rng.randn(200)
    ours = DPDTGradientBoostingRegressor(n_estimators=3, max_depth=1, reg_lambda=0.0,
                                         learning_rate=0.5, max_bins=None).fit(X, y)
    theirs = GradientBoostingRegressor(n_estimators=3, max_depth=1, learning_rate=0.5,
                                       random_state=0).fit(X, y)
    assert [trees[0].feature[0] for trees in ours.estimators_] == [0, 0, 1]
    assert_allclose(ours.feature_importances_, theirs.feature_importances_, rtol=1e-9)
    assert ours.feature_importances_[2] == 0


def test_feature_importances_of_a_classifier_sum_to_one_over_the_features_used():
    X, y = load_iris(return_X_y=True)
    X = np.column_stack([X, np.zeros(len(X))])   # a constant feature no tree can split on
    clf = DPDTGradientBoostingClassifier(n_estimators=3, max_depth=2).fit(X, y)
    importances = clf.feature_importances_
    assert importances.shape == (5,) and importances[4] == 0
    assert_allclose(importances.sum(), 1.0)
    trees = [tree for trees in clf.estimators_ for tree in trees]
    used = {int(f) for tree in trees for f in tree.feature[~tree.is_leaf]}
    assert set(np.flatnonzero(importances)) == used


def test_feature_importances_are_zeros_when_no_tree_splits():
    X = np.arange(20.0).reshape(-1, 2)
    reg = DPDTGradientBoostingRegressor(n_estimators=2, gamma=1e9).fit(X, np.arange(10.0))
    assert all(tree.node_count == 1 for trees in reg.estimators_ for tree in trees)
    assert_array_equal(reg.feature_importances_, [0.0, 0.0])
