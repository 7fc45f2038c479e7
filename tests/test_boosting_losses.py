"""Absolute-error and Huber losses of ``DPDTGradientBoostingRegressor``.

- a one-round stump recomputed with numpy: weighted-median start, the split optimal for the
  first-order objective, each leaf's weighted median residual (absolute error) or median plus
  Friedman's clipped mean correction (Huber);
- the weighted quantile against scikit-learn's ``_weighted_percentile``;
- robustness to outliers, integer sample weights as duplicated rows, early stopping and staged
  predictions on the same loss, save/load, parameter validation, scikit-learn conformance.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.stats import _weighted_percentile

from dpdt import DPDTGradientBoostingRegressor, load
from dpdt._losses import _grouped_quantile

ROBUST = ["absolute_error", "huber"]


def lower_quantile(values, weights, q):
    """Smallest value whose cumulative weight (in increasing order) reaches q of the total."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return values[order][np.argmax(cumulative >= q * cumulative[-1])]


def huber(residual, delta):
    a = np.abs(residual)
    return np.where(a <= delta, 0.5 * a**2, delta * (a - 0.5 * delta))


def leaf_estimate(loss, residual, w, delta):
    median = lower_quantile(residual, w, 0.5)
    if loss == "absolute_error":
        return median
    d = residual - median
    return median + np.average(np.sign(d) * np.minimum(np.abs(d), delta), weights=w)


def outlier_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.normal(size=n)
    return X, y


def with_outliers(y, seed, fraction=0.1, scale=20.0):
    rng = np.random.default_rng(seed)
    y = y.copy()
    hit = rng.random(len(y)) < fraction
    y[hit] += rng.normal(0, scale, hit.sum())
    return y


def test_grouped_quantile_is_sklearns_weighted_percentile():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 30))
        values = rng.integers(0, 5, n).astype(float)
        weights = rng.integers(0, 4, n).astype(float)
        if weights.sum() == 0:
            continue
        groups = rng.integers(0, 3, n)
        q = rng.uniform(0.05, 1.0)
        got = _grouped_quantile(values, weights, groups, 4, q)
        for g in range(4):
            inside = (groups == g) & (weights > 0)
            if not inside.any():
                assert np.isnan(got[g])
                continue
            expected = _weighted_percentile(values[inside], weights[inside], 100 * q)
            assert got[g] == expected == lower_quantile(values[inside], weights[inside], q)


@pytest.mark.parametrize("reg_lambda", [0.0, 1.0])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
@pytest.mark.parametrize("loss", ROBUST)
def test_one_round_stump_by_numpy(loss, weighted, reg_lambda):
    X, y = outlier_data(80, seed=1)
    y = with_outliers(y, seed=2)
    rng = np.random.default_rng(3)
    w = rng.uniform(0.2, 3.0, len(y)) if weighted else np.ones(len(y))
    reg = DPDTGradientBoostingRegressor(
        loss=loss, huber_quantile=0.8, max_depth=1, candidates=(1,), n_estimators=1,
        learning_rate=1.0, reg_lambda=reg_lambda).fit(X, y, sample_weight=w)

    init = lower_quantile(y, w, 0.5)
    assert reg.init_raw_ == pytest.approx([init], abs=0)
    residual = y - init
    delta = lower_quantile(np.abs(residual), w, 0.8)
    g = w * (-np.clip(residual, -delta, delta) if loss == "huber" else -np.sign(residual))
    h = w

    def objective(mask):   # the first-order Newton objective of a leaf, -G^2 / (2 (H + lambda))
        return -g[mask].sum() ** 2 / (2 * (h[mask].sum() + reg_lambda))

    (tree,), = reg.estimators_
    assert tree.node_count == 3
    f, t = tree.feature[0], tree.threshold[0]
    left = X[:, f] <= t
    # the split is optimal for the first-order objective among every threshold of every feature
    best = min(objective(X[:, j] <= s) + objective(X[:, j] > s)
               for j in range(X.shape[1]) for s in np.unique(X[:, j])[:-1])
    assert objective(left) + objective(~left) == pytest.approx(best, rel=1e-12)

    values = [leaf_estimate(loss, residual[m], w[m], delta) for m in (left, ~left)]
    assert_allclose(tree.value[[1, 2], 0, 0], values, rtol=1e-12)
    assert_allclose(reg.predict(X), init + np.where(left, *values), rtol=1e-12)
    expected = (np.average(np.abs(y - reg.predict(X)), weights=w) if loss == "absolute_error"
                else np.average(huber(y - reg.predict(X), delta), weights=w))
    assert reg.train_score_[0] == pytest.approx(expected, rel=1e-12)


def test_robust_losses_beat_squared_error_on_outliers():
    X, y = outlier_data(600, seed=10)
    y = with_outliers(y, seed=11)
    X_test, y_test = outlier_data(2000, seed=12)
    mae = {}
    for loss in ["squared_error", *ROBUST]:
        reg = DPDTGradientBoostingRegressor(loss=loss, n_estimators=100).fit(X, y)
        mae[loss] = np.mean(np.abs(reg.predict(X_test) - y_test))
    assert mae["absolute_error"] < 0.5 * mae["squared_error"], mae
    assert mae["huber"] < mae["squared_error"], mae


@pytest.mark.parametrize("loss", ROBUST)
def test_integer_sample_weight_equals_duplicated_rows(loss):
    X, y = outlier_data(150, seed=20)
    y = with_outliers(y, seed=21)
    k = np.random.default_rng(22).integers(0, 4, len(y))   # 0 removes a row
    params = dict(loss=loss, n_estimators=10, learning_rate=0.3, max_depth=3)
    weighted = DPDTGradientBoostingRegressor(**params).fit(X, y, sample_weight=k)
    duplicated = DPDTGradientBoostingRegressor(**params).fit(np.repeat(X, k, axis=0),
                                                             np.repeat(y, k))
    assert_allclose(weighted.predict(X), duplicated.predict(X), rtol=1e-9, atol=1e-12)
    assert_allclose(weighted.train_score_, duplicated.train_score_, rtol=1e-9)
    for r, ((a,), (b,)) in enumerate(zip(weighted.estimators_, duplicated.estimators_,
                                         strict=True)):
        assert_array_equal(a.feature, b.feature, err_msg=f"round {r}")
        assert_array_equal(a.threshold, b.threshold, err_msg=f"round {r}")


@pytest.mark.parametrize("loss", ROBUST)
def test_train_score_and_staged_predict_use_the_loss(loss):
    X, y = outlier_data(200, seed=30)
    y = with_outliers(y, seed=31)
    reg = DPDTGradientBoostingRegressor(loss=loss, n_estimators=15, learning_rate=0.3).fit(X, y)
    stages = list(reg.staged_predict(X))
    assert len(stages) == reg.n_estimators_ == 15
    assert_array_equal(stages[-1], reg.predict(X))
    residual = y - reg.predict(X)
    if loss == "absolute_error":
        assert reg.train_score_[-1] == pytest.approx(np.mean(np.abs(residual)), rel=1e-12)
        # every leaf is the median of its residuals: absolute error never rises at rate <= 1
        assert np.all(np.diff(reg.train_score_) <= 1e-12)
    else:
        assert reg.train_score_[-1] == pytest.approx(
            np.mean(huber(residual, reg._loss.delta)), rel=1e-12)
    assert reg.train_score_[-1] < reg.train_score_[0]


@pytest.mark.parametrize("loss", ROBUST)
def test_early_stopping_stops_on_noise(loss):
    rng = np.random.default_rng(3)
    X = rng.random((300, 4))
    y = rng.standard_t(2, size=300)
    reg = DPDTGradientBoostingRegressor(loss=loss, n_estimators=200, learning_rate=0.5,
                                        n_iter_no_change=3, random_state=0).fit(X, y)
    assert reg.n_estimators_ < 200
    assert reg.train_score_.shape == reg.validation_score_.shape == (reg.n_estimators_,)
    val = reg.validation_score_
    assert np.all(val[-3:] >= val[:-3].min() - reg.tol)
    assert sum(1 for _ in reg.staged_predict(X)) == reg.n_estimators_


@pytest.mark.parametrize("loss", ROBUST)
def test_subsampled_leaves_stay_finite(loss):
    # With few rows drawn per round, a leaf can hold only out-of-bag rows: its value is 0.
    X, y = outlier_data(60, seed=40)
    reg = DPDTGradientBoostingRegressor(loss=loss, n_estimators=20, subsample=0.2, max_depth=3,
                                        random_state=0).fit(X, y)
    assert np.all(np.isfinite(reg.predict(X)))


@pytest.mark.parametrize("loss", ROBUST)
def test_save_load_round_trip(tmp_path, loss):
    X, y = outlier_data(100, seed=50)
    reg = DPDTGradientBoostingRegressor(loss=loss, n_estimators=5, huber_quantile=0.7).fit(X, y)
    reg.save(tmp_path / "model.json")
    loaded = load(tmp_path / "model.json")
    assert loaded.get_params() == reg.get_params()
    assert_array_equal(loaded.predict(X), reg.predict(X))
    if loss == "huber":
        assert loaded._loss.delta == reg._loss.delta


@pytest.mark.parametrize("params", [dict(loss="quantile"), dict(loss="absolute"),
                                    dict(loss="huber", huber_quantile=0.0),
                                    dict(loss="huber", huber_quantile=1.0)])
def test_bad_loss_parameters_are_value_errors(params):
    X, y = outlier_data(30, seed=60)
    with pytest.raises(ValueError, match="loss|huber_quantile"):
        DPDTGradientBoostingRegressor(**params).fit(X, y)


@parametrize_with_checks([
    # Sign gradients move slowly: a few rounds at a large rate reach the checks' R^2 > 0.5.
    DPDTGradientBoostingRegressor(loss="absolute_error", n_estimators=8, learning_rate=0.8),
    DPDTGradientBoostingRegressor(loss="huber", n_estimators=5, huber_quantile=0.8, max_depth=2,
                                  splitter="quantile", learning_rate=0.5),
])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
