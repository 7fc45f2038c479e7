"""Scale invariance: y and the sample weights times a constant give the same trees.

Every objective is invariant to the scale of the weights, and the regression objectives to the
scale of y up to a factor of the loss, bar the parameters documented as absolute (reg_lambda and
gamma as in XGBoost, the regressor's alpha and min_impurity_decrease, early stopping's tol), here
left at 0 where they would matter. Multiplying by a power of two is exact in floating point, so
the trees must then be bitwise identical (thresholds, children, features, sample counts), node
weights times the factor, regression values times it and impurities times its square, class
probabilities unchanged; other factors agree to rounding. Beyond what float64 can report (a sum
of weights, a mean squared error), a ValueError names the cause.
"""

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    MultiwayGreedyClassifier,
    MultiwayTree,
)

# --------------------------------------------------------------------------- registry

BOOST = dict(n_estimators=4, max_depth=2, candidates=(2, 2), learning_rate=0.5)
# Those whose result the weights' scale leaves alone (reg_lambda and gamma are absolute).
SCALE_FREE_BOOST = dict(BOOST, reg_lambda=0.0, gamma=0.0)

CLASSIFIERS = {
    "tree": partial(DPDTreeClassifier, max_depth=3),
    "tree-binned": partial(DPDTreeClassifier, max_depth=3, max_bins=8),
    "tree-exhaustive": partial(DPDTreeClassifier, max_depth=2, splitter="exhaustive"),
    "tree-lookahead": partial(DPDTreeClassifier, max_depth=3, splitter="lookahead",
                              criterion="entropy"),
    "tree-screen": partial(DPDTreeClassifier, max_depth=3, splitter="screen", front="pareto"),
    "tree-bounded": partial(DPDTreeClassifier, max_depth=2, splitter="exhaustive",
                            full_front=False, alpha=0.01),
    "tree-limits": partial(DPDTreeClassifier, max_depth=3, min_weight_fraction_leaf=0.05,
                           min_impurity_decrease=0.01, class_weight="balanced"),
    "cv": partial(DPDTreeClassifierCV, max_depths=(1, 2), cv=3),
    "boost": partial(DPDTGradientBoostingClassifier, **SCALE_FREE_BOOST),
    "boost-exact": partial(DPDTGradientBoostingClassifier, **SCALE_FREE_BOOST, max_bins=None),
    "boost-early-stop": partial(DPDTGradientBoostingClassifier, **SCALE_FREE_BOOST,
                                n_iter_no_change=2, tol=0.0, random_state=0),
    "boost-multiclass": partial(DPDTGradientBoostingClassifier, **SCALE_FREE_BOOST),
    "branches": partial(BranchesClassifier, lam=0.01, max_depth=2),
    "multiway": partial(MultiwayGreedyClassifier, max_depth=2),
}
REGRESSORS = {
    "tree": partial(DPDTreeRegressor, max_depth=3),
    "tree-binned": partial(DPDTreeRegressor, max_depth=3, max_bins=8),
    "tree-lookahead": partial(DPDTreeRegressor, max_depth=3, splitter="lookahead"),
    "tree-screen": partial(DPDTreeRegressor, max_depth=3, splitter="screen",
                           complexity="n_splits"),
    "tree-multioutput": partial(DPDTreeRegressor, max_depth=2),
    "cv": partial(DPDTreeRegressorCV, max_depths=(1, 2), cv=3),
    **{f"boost-{loss}": partial(DPDTGradientBoostingRegressor, **SCALE_FREE_BOOST, loss=loss)
       for loss in ("squared_error", "absolute_error", "huber")},
    "boost-exact": partial(DPDTGradientBoostingRegressor, **SCALE_FREE_BOOST, max_bins=None),
    "boost-subsample": partial(DPDTGradientBoostingRegressor, **SCALE_FREE_BOOST, subsample=0.7,
                               random_state=0),
    "boost-early-stop": partial(DPDTGradientBoostingRegressor, **SCALE_FREE_BOOST,
                                n_iter_no_change=2, tol=0.0, random_state=0),
    # y's scale leaves reg_lambda alone (it is in the unit of the hessians).
    "boost-lambda": partial(DPDTGradientBoostingRegressor, **BOOST, reg_lambda=3.0),
}

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "n_node_samples")
MULTIWAY_ARRAYS = ("feature", "edge_begin", "edge_category", "edge_child", "n_node_samples")


def _data(name, n=48, seed=0):
    rng = np.random.RandomState(seed)
    if name in ("branches", "multiway"):
        X = rng.randint(0, 3, size=(n, 3)).astype(float)
    else:
        X = np.round(rng.uniform(size=(n, 3)), 3)
    signal = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    weight = rng.randint(1, 4, size=n).astype(float)
    return X, signal, weight


def classification(name):
    X, signal, weight = _data(name)
    if name == "boost-multiclass":
        return X, np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3])), weight
    return X, (signal > np.median(signal)).astype(int), weight


def regression(name):
    X, signal, weight = _data(name)
    y = 3.0 + 5.0 * signal
    if name == "tree-multioutput":
        return X, np.column_stack([y, y * X[:, 0]]), weight
    return X, y, weight


def trees(est):
    """Every tree a fitted estimator holds."""
    if hasattr(est, "estimators_"):
        return [tree for round_trees in est.estimators_ for tree in round_trees]
    if hasattr(est, "best_estimator_"):
        return list(est.best_estimator_.trees_)
    if hasattr(est, "trees_"):
        return list(est.trees_)
    return [est.tree_]


def assert_same_splits(a, b, msg):
    """Same number of trees, each with the same structure, thresholds and sample counts."""
    ta, tb = trees(a), trees(b)
    assert len(ta) == len(tb), f"{msg}: {len(ta)} trees != {len(tb)}"
    for k, (x, y) in enumerate(zip(ta, tb, strict=True)):
        names = MULTIWAY_ARRAYS if isinstance(x, MultiwayTree) else TREE_ARRAYS
        for name in names:
            assert_array_equal(getattr(x, name), getattr(y, name), err_msg=f"{msg}[{k}].{name}")


def node_weights(est):
    return [t.weighted_n_node_samples for t in trees(est) if not isinstance(t, MultiwayTree)]


# Powers of two across the range where the scaled weights and their sum stay finite (48 rows
# of weight up to 3: a sum up to 144 * 2**k), the extremes included: 2**-1073 times integers up
# to 3 are exact subnormals.
WEIGHT_EXPONENTS = [-1073, -1000, -300, -1, 1, 7, 300, 1000, 1016]
# For y, the trees: up to where its mean squared error, which the front reports and alpha
# weighs, stays a normal float64 (y ~ 10 here). Boosting: wherever y stays a normal float64
# (its scores are then inf or 0, in y's unit, but early stopping compares them scaled).
Y_EXPONENTS = [-500, -200, -25, -1, 1, 30, 200, 500]
BOOSTING_Y_EXPONENTS = [-1017, -700, *Y_EXPONENTS, 700, 1018]
OTHER_FACTORS = [1e-7, 3.7, 1e80, 1e-80]


# --------------------------------------------------------------------------- weights


def _check_weight_scaled(make, X, y, weight, ref, exponent, msg):
    est = make().fit(X, y, sample_weight=np.ldexp(weight, exponent))
    assert_same_splits(est, ref, msg)
    for a, b in zip(node_weights(est), node_weights(ref), strict=True):
        assert_array_equal(a, np.ldexp(b, exponent), err_msg=msg)
    return est


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_classifier_weights_times_a_power_of_two(name):
    X, y, weight = classification(name)
    make = CLASSIFIERS[name]
    ref = make().fit(X, y, sample_weight=weight)
    for exponent in WEIGHT_EXPONENTS:
        est = _check_weight_scaled(make, X, y, weight, ref, exponent, f"{name} 2**{exponent}")
        assert_array_equal(est.predict_proba(X), ref.predict_proba(X), err_msg=str(exponent))


@pytest.mark.parametrize("name", list(REGRESSORS))
def test_regressor_weights_times_a_power_of_two(name):
    X, y, weight = regression(name)
    make = REGRESSORS[name]
    ref = make().fit(X, y, sample_weight=weight)
    for exponent in WEIGHT_EXPONENTS:
        if name == "boost-lambda":
            # reg_lambda is absolute (documented): every weight times c acts as it over c.
            with np.errstate(over="ignore"):
                reg_lambda = np.ldexp(3.0, -exponent)
            if not np.isfinite(reg_lambda):
                continue
            ref = make(reg_lambda=reg_lambda).fit(X, y, sample_weight=weight)
        est = _check_weight_scaled(make, X, y, weight, ref, exponent, f"{name} 2**{exponent}")
        assert_array_equal(est.predict(X), ref.predict(X), err_msg=str(exponent))


@pytest.mark.parametrize(("kind", "name"), [("classifier", n) for n in CLASSIFIERS]
                         + [("regressor", n) for n in REGRESSORS if n != "boost-lambda"])
def test_weights_times_other_factors_agree_to_rounding(kind, name):
    # Integer weights make exact ties (equal losses of two splits, a weighted median halfway
    # between two residuals), which rounding then decides: these weights make none.
    X, y, _ = (classification if kind == "classifier" else regression)(name)
    weight = np.random.RandomState(1).uniform(0.5, 2.0, size=X.shape[0])
    make = (CLASSIFIERS if kind == "classifier" else REGRESSORS)[name]
    ref = make().fit(X, y, sample_weight=weight)
    for factor in OTHER_FACTORS:
        est = make().fit(X, y, sample_weight=weight * factor)
        assert_same_splits(est, ref, f"{name} x{factor}")
        method = "predict_proba" if kind == "classifier" else "predict"
        assert_allclose(getattr(est, method)(X), getattr(ref, method)(X), rtol=1e-9, atol=1e-12,
                        err_msg=f"x{factor}")


# --------------------------------------------------------------------------- y


@pytest.mark.parametrize("name", list(REGRESSORS))
@pytest.mark.filterwarnings("ignore:overflow encountered in ldexp")   # boosting's scores: inf
def test_y_times_a_power_of_two(name):
    X, y, weight = regression(name)
    make = REGRESSORS[name]
    ref = make().fit(X, y, sample_weight=weight)
    for exponent in BOOSTING_Y_EXPONENTS if name.startswith("boost") else Y_EXPONENTS:
        msg = f"{name} 2**{exponent}"
        est = make().fit(X, np.ldexp(y, exponent), sample_weight=weight)
        assert_same_splits(est, ref, msg)
        assert_array_equal(est.predict(X), np.ldexp(ref.predict(X), exponent), err_msg=msg)
        # The absolute error's trees see only the residuals' signs: their objective, so their
        # impurities and split nodes' values, do not scale (its leaves take the median
        # residual); its loss scales as y, the others' as y squared.
        absolute = name == "boost-absolute_error"
        for a, b in zip(trees(est), trees(ref), strict=True):
            assert_array_equal(a.weighted_n_node_samples, b.weighted_n_node_samples, msg)
            scaled = a.is_leaf if absolute else slice(None)
            assert_array_equal(a.value[scaled], np.ldexp(b.value[scaled], exponent), msg)
            assert_array_equal(a.value[~a.is_leaf] if absolute else [],
                               b.value[~b.is_leaf] if absolute else [], msg)
            assert_array_equal(a.impurity, np.ldexp(b.impurity, 0 if absolute else 2 * exponent),
                               msg)
        if hasattr(est, "pareto_front_"):
            for field in ("alpha_min", "alpha_max", "train_loss"):
                assert_array_equal(est.pareto_front_[field],
                                   np.ldexp(ref.pareto_front_[field], 2 * exponent), msg)
        if hasattr(est, "train_score_"):
            assert_array_equal(est.train_score_,
                               np.ldexp(ref.train_score_, (1 if absolute else 2) * exponent), msg)


@pytest.mark.parametrize("name", list(REGRESSORS))
def test_y_times_other_factors_agrees_to_rounding(name):
    X, y, weight = regression(name)
    make = REGRESSORS[name]
    ref = make().fit(X, y, sample_weight=weight)
    for factor in OTHER_FACTORS:
        est = make().fit(X, y * factor, sample_weight=weight)
        assert_same_splits(est, ref, f"{name} x{factor}")
        assert_allclose(est.predict(X), ref.predict(X) * factor, rtol=1e-9,
                        err_msg=f"x{factor}")


def test_the_issue_reproducer_diabetes_boosting_keeps_its_fit():
    # Issue 30: train R2 0.75 with y, 0.16 with y * 1e-7 (gradients below the core's absolute
    # tolerances, every split tied with the first).
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X, y = X[:150], y[:150]
    for params in ({}, {"loss": "huber"}, {"reg_lambda": 0.0}, {"max_bins": None}):
        make = partial(DPDTGradientBoostingRegressor, n_estimators=10, **params)
        ref = make().fit(X, y)
        est = make().fit(X, y * 1e-7)
        assert_same_splits(est, ref, str(params))
        assert est.score(X, y * 1e-7) == pytest.approx(ref.score(X, y), abs=1e-9)


# --------------------------------------------------------------------------- beyond float64


ALL = [(CLASSIFIERS[n], classification, n) for n in CLASSIFIERS] + \
      [(REGRESSORS[n], regression, n) for n in REGRESSORS]


@pytest.mark.parametrize(("make", "data", "name"), ALL,
                         ids=[f"{data.__name__}-{name}" for _, data, name in ALL])
def test_weights_whose_sum_overflows_are_a_clear_error(make, data, name):
    # 1e307 per row: each weight is finite, their sum is not. Node weights are reported in the
    # weights' unit, so the fit cannot hold them: a ValueError says so (it used to blame y, or
    # store infinite node weights and NaN feature importances), unless the trees report none.
    X, y, _ = data(name)
    if name in ("branches", "multiway"):
        # Their trees report fractions only: the fit is exact.
        assert_same_splits(make().fit(X, y, sample_weight=np.full(X.shape[0], 1e307)),
                           make().fit(X, y), name)
    else:
        with pytest.raises(ValueError, match="sample_weight sums to .* beyond float64"):
            make().fit(X, y, sample_weight=np.full(X.shape[0], 1e307))
    # Just inside the range, the same model as unit weights (bar reg_lambda's, absolute).
    exponent = 1023 - int(np.ceil(np.log2(X.shape[0])))
    est = make().fit(X, y, sample_weight=np.full(X.shape[0], np.ldexp(1.0, exponent)))
    # Every weight times c acts as reg_lambda over c.
    ref = make(reg_lambda=np.ldexp(3.0, -exponent)) if name == "boost-lambda" else make()
    ref.fit(X, y)
    assert_same_splits(est, ref, name)
    for w in node_weights(est):
        assert np.all(np.isfinite(w))
    if hasattr(est, "feature_importances_"):
        assert_allclose(est.feature_importances_, ref.feature_importances_, rtol=1e-12)


@pytest.mark.parametrize("make", [REGRESSORS["tree"], REGRESSORS["cv"]])
def test_y_beyond_what_float64_reports_is_a_clear_error(make):
    X, y, _ = regression("tree")
    with pytest.raises(ValueError, match="y is too spread out"):
        make().fit(X, np.ldexp(y, 1000))
    with pytest.raises(ValueError, match="y varies too little"):
        make().fit(X, np.ldexp(y, -1030))


@pytest.mark.parametrize("make", [REGRESSORS["tree"], REGRESSORS["boost-squared_error"]])
def test_constant_y_near_the_float_limit(make):
    # y is scaled before it is centred, so its weighted mean does not overflow (the sum of 48
    # values near the largest float did, and the regressor blamed y's spread).
    X, _, weight = regression("tree")
    big = np.finfo(np.float64).max / 2
    est = make().fit(X, np.full(X.shape[0], big), sample_weight=weight)
    assert_array_equal(est.predict(X), big)


def test_feature_importances_where_weight_times_squared_error_overflows():
    X, y, weight = regression("tree")
    ref = DPDTreeRegressor(max_depth=3).fit(X, y, sample_weight=weight)
    # Node weight 2**607 times squared error 2**605 overflows; neither does.
    est = DPDTreeRegressor(max_depth=3).fit(X, np.ldexp(y, 300),
                                             sample_weight=np.ldexp(weight, 600))
    assert_same_splits(est, ref, "importances")
    assert_array_equal(est.feature_importances_, ref.feature_importances_)


# --------------------------------------------------------------------------- drawn data

FEW = settings(max_examples=5, deadline=None, derandomize=True, database=None)


@st.composite
def drawn(draw, kind):
    """Small integer-valued data (ties, duplicates, constant columns), integer weights."""
    n = draw(st.integers(6, 14))
    X = draw(arrays(np.float64, (n, 2), elements=st.integers(-2, 2)))
    if kind == "classifier":
        y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
        y[0], y[-1] = 0, 1
    else:
        y = draw(arrays(np.float64, n, elements=st.integers(-4, 4)))
        y[0], y[-1] = -1.0, 1.0
    weight = draw(arrays(np.float64, n, elements=st.integers(1, 3)))
    return X, y, weight


# Not the CV and early stopping (folds and a validation split of a dozen rows), and the
# configurations whose data the registry shapes.
@pytest.mark.parametrize(("kind", "name"), [("classifier", n) for n in CLASSIFIERS
                                            if n not in ("cv", "boost-early-stop")]
                         + [("regressor", n) for n in REGRESSORS
                            if n not in ("cv", "boost-early-stop", "boost-lambda",
                                         "tree-multioutput")])
@FEW
@given(data=st.data())
def test_drawn_data_times_powers_of_two(kind, name, data):
    X, y, weight = data.draw(drawn(kind))
    make = (CLASSIFIERS if kind == "classifier" else REGRESSORS)[name]
    if name == "boost-multiclass":
        y = y + (X[:, 0] > 0)
    ref = make().fit(X, y, sample_weight=weight)
    w_exponent = data.draw(st.integers(-1070, 1015), label="weight exponent")
    _check_weight_scaled(make, X, y, weight, ref, w_exponent, f"{name} w*2**{w_exponent}")
    if kind == "regressor":
        bound = 1015 if name.startswith("boost") else 480
        exponent = data.draw(st.integers(-bound, bound), label="y exponent")
        est = make().fit(X, np.ldexp(y, exponent), sample_weight=weight)
        assert_same_splits(est, ref, f"{name} y*2**{exponent}")
        assert_array_equal(est.predict(X), np.ldexp(ref.predict(X), exponent))
