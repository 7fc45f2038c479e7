"""The depth-2 lookahead generator's branch and bound against exhaustive search.

At a state with two levels left, the best split by lookahead loss roots the optimal tree of depth
2, so ``splitter="lookahead"`` with one candidate must reach the exhaustive optimum at alpha = 0
on data large enough for the bound to prune thresholds in bulk.
"""

import numpy as np
import pytest

from dpdt import DPDTGradientBoostingClassifier, DPDTreeClassifier, DPDTreeRegressor


def _data(seed, n, p, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    X[:, 0] = np.round(X[:, 0] * 10) / 10  # repeated values
    score = np.sin(6 * X[:, 0]) + (X[:, 1] > 0.5) * (X[:, 2] < 0.3) + 0.3 * rng.standard_normal(n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, rng.integers(1, 4, n).astype(float)


def _train_loss(model, X, y, w):
    return float(np.sum(w * (model.predict(X) != y)))


@pytest.mark.parametrize("min_samples_leaf", [1, 7])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_lookahead_top_split_is_depth2_optimum(seed, n_classes, weighted, min_samples_leaf):
    X, y, w = _data(seed, 300, 4, n_classes)
    w = w if weighted else None
    params = dict(max_depth=2, min_samples_leaf=min_samples_leaf)
    look = DPDTreeClassifier(splitter="lookahead", candidates=(1,), **params).fit(X, y, w)
    exact = DPDTreeClassifier(splitter="exhaustive", **params).fit(X, y, w)
    ones = np.ones(len(y)) if w is None else w
    assert _train_loss(look, X, y, ones) == pytest.approx(_train_loss(exact, X, y, ones))
    # a larger budget keeps the optimum and every CART candidate: never worse than CART
    more = DPDTreeClassifier(splitter="lookahead", candidates=(3,), **params).fit(X, y, w)
    cart = DPDTreeClassifier(splitter="cart", candidates=(3,), **params).fit(X, y, w)
    assert _train_loss(more, X, y, ones) == pytest.approx(_train_loss(exact, X, y, ones))
    for alpha in (0.0, 0.002, 0.01, 0.05, 0.2):
        assert _best_objective(more, alpha) <= _best_objective(cart, alpha) + 1e-12


def _best_objective(model, alpha):
    front = model.pareto_front_
    return float(np.min(front["train_loss"] + alpha * front["complexity"]))


@pytest.mark.parametrize("seed", range(3))
def test_lookahead_regression_reaches_depth2_optimum(seed):
    X, _, w = _data(seed, 200, 3, 2)
    y = np.sin(5 * X[:, 0]) + X[:, 1] * X[:, 2]
    look = DPDTreeRegressor(max_depth=2, splitter="lookahead", candidates=(1,)).fit(X, y, w)
    exact = DPDTreeRegressor(max_depth=2, splitter="exhaustive").fit(X, y, w)
    sse = lambda m: float(np.sum(w * (m.predict(X) - y) ** 2))  # noqa: E731
    assert sse(look) == pytest.approx(sse(exact), rel=1e-9)


def test_lookahead_is_refused_for_boosting():
    X, y, _ = _data(0, 50, 3, 2)
    with pytest.raises(ValueError, match="lookahead"):
        DPDTGradientBoostingClassifier(splitter="lookahead", n_estimators=2).fit(X, y)
