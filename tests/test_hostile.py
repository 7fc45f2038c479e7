"""Hostile input thrown at every estimator: each gets a correct answer or a clear error.

Correct answers are checked against ground truth (a constant feature predicts the class
fractions, duplicated rows are integer weights, any dtype or memory layout is float64 contiguous,
a scaled weight vector is the same weight vector, a deep tree on tiny data reaches the best
training loss any tree can reach). Errors must be ValueError or TypeError naming the problem.
Hypothesis draws the data; its settings are derandomized so that CI runs are reproducible.
"""

import tempfile
import warnings
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from _trees import assert_tree_equal
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils import get_tags

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreePolicy,
    DPDTreeRegressor,
    MultiwayGreedyClassifier,
    MultiwayTree,
    _core,
)
from dpdt._runner import aligned, core_params, run

# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Spec:
    make: object           # factory of a small, fast configuration
    kind: str              # "classifier" or "regressor"
    numeric_only: bool     # X must be numbers (the multiway trees also take strings)
    boosting: bool = False


ESTIMATORS = {
    "DPDTreeClassifier": Spec(partial(DPDTreeClassifier, max_depth=3, candidates=(3, 2)),
                              "classifier", numeric_only=True),
    "DPDTreeRegressor": Spec(partial(DPDTreeRegressor, max_depth=3, candidates=(3, 2)),
                             "regressor", numeric_only=True),
    "BranchesClassifier": Spec(partial(BranchesClassifier, lam=0.01), "classifier",
                               numeric_only=False),
    "MultiwayGreedyClassifier": Spec(MultiwayGreedyClassifier, "classifier", numeric_only=False),
    "DPDTGradientBoostingClassifier": Spec(
        partial(DPDTGradientBoostingClassifier, n_estimators=3, max_depth=2, candidates=(2, 2)),
        "classifier", numeric_only=True, boosting=True),
    "DPDTGradientBoostingRegressor": Spec(
        partial(DPDTGradientBoostingRegressor, n_estimators=3, max_depth=2, candidates=(2, 2)),
        "regressor", numeric_only=True, boosting=True),
}
NAMES = list(ESTIMATORS)
CLASSIFIERS = [name for name in NAMES if ESTIMATORS[name].kind == "classifier"]
REGRESSORS = [name for name in NAMES if ESTIMATORS[name].kind == "regressor"]

# Fits take milliseconds; a few dozen examples per test keep the module well under a minute.
FAST = settings(max_examples=10, deadline=None, derandomize=True, database=None)
FEW = settings(max_examples=6, deadline=None, derandomize=True, database=None)

MULTIWAY_ARRAYS = ("feature", "edge_begin", "edge_category", "edge_child", "value",
                   "n_node_samples")


def fitted_trees(est):
    """Every tree a fitted estimator holds."""
    if hasattr(est, "estimators_"):
        return [tree for trees in est.estimators_ for tree in trees]
    if hasattr(est, "trees_"):
        return list(est.trees_)
    return [est.tree_]


def assert_same_model(a, b, *, rtol=0.0, skip=(), msg=""):
    """Two fitted estimators hold the same trees (floats within ``rtol`` if given)."""
    trees_a, trees_b = fitted_trees(a), fitted_trees(b)
    assert len(trees_a) == len(trees_b), f"{msg}: {len(trees_a)} trees != {len(trees_b)}"
    for k, (x, y) in enumerate(zip(trees_a, trees_b, strict=True)):
        if isinstance(x, MultiwayTree):
            for name in MULTIWAY_ARRAYS:
                if name not in skip:
                    assert_array_equal(getattr(x, name), getattr(y, name), f"{msg}[{k}]: {name}")
        else:
            assert_tree_equal(x, y, msg=f"{msg}[{k}]", skip=skip, rtol=rtol)


def float_rtol(name):
    """Regression and boosting sum floats in another order when rows repeat: values may differ
    in the last bits (the structure may not). Class counts are exact."""
    spec = ESTIMATORS[name]
    return 1e-9 if spec.boosting or spec.kind == "regressor" else 0.0


# --------------------------------------------------------------------------- data


@st.composite
def datasets(draw, kind, min_rows=2, max_rows=12, max_features=3):
    """Small integer-valued X (ties, duplicates and constant columns are common) and a target.

    Classification targets hold classes 0 and 1 at least (boosting needs two classes).
    """
    n = draw(st.integers(min_rows, max_rows))
    p = draw(st.integers(1, max_features))
    X = draw(arrays(np.float64, (n, p), elements=st.integers(-3, 3)))
    if kind == "classifier":
        y = draw(arrays(np.int64, n, elements=st.integers(0, 2)))
        y[0], y[-1] = 0, 1
    else:
        y = draw(arrays(np.float64, n, elements=st.integers(-4, 4)))
    return X, y


def fit(name, X, y, sample_weight=None, **params):
    with warnings.catch_warnings():
        # Degenerate data may make scikit-learn warn (e.g. one class per fold); never an error.
        warnings.simplefilter("ignore")
        return ESTIMATORS[name].make(**params).fit(X, y, sample_weight=sample_weight)


def best_training_accuracy(X, y):
    """The highest training accuracy of any classifier: the majority label of each distinct x."""
    _, group = np.unique(X, axis=0, return_inverse=True)
    counts = np.zeros((group.max() + 1, y.max() + 1))
    np.add.at(counts, (group.ravel(), y), 1)
    return counts.max(axis=1).sum() / len(y)


def least_training_mse(X, y):
    """The lowest training mean squared error of any regressor: each distinct x's variance."""
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.ravel()
    means = np.bincount(group, weights=y) / np.bincount(group)
    return np.mean((y - means[group]) ** 2)


# --------------------------------------------------------------------------- NaN and inf


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=datasets("classifier"), where=st.data(),
       bad=st.sampled_from([np.nan, np.inf, -np.inf]))
def test_nan_and_inf_in_X_are_missing_values_or_clear_errors(name, data, where, bad):
    # Estimators that take missing values (the DPDT trees, tag allow_nan) route a NaN;
    # inf, and NaN elsewhere, are a clear error.
    X, y = data
    if ESTIMATORS[name].kind == "regressor":
        y = y.astype(np.float64)
    i = where.draw(st.integers(0, X.shape[0] - 1))
    j = where.draw(st.integers(0, X.shape[1] - 1))
    hostile = X.copy()
    hostile[i, j] = bad
    est = fit(name, X, y)
    if np.isnan(bad) and get_tags(est).input_tags.allow_nan:
        assert fit(name, hostile, y).predict(hostile).shape[0] == X.shape[0]
        assert est.predict(hostile).shape[0] == X.shape[0]
        return
    message = r"Input X contains (NaN|inf)"
    with pytest.raises(ValueError, match=message):
        fit(name, hostile, y)
    with pytest.raises(ValueError, match=message):
        est.predict(hostile)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_in_y_and_weights_are_clear_errors(name, bad):
    X = np.arange(8.0).reshape(4, 2)
    y = np.array([0.0, 1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"Input y contains (NaN|inf)"):
        fit(name, X, np.array([0.0, 1.0, bad, 1.0]))
    with pytest.raises(ValueError, match=r"Input sample_weight contains (NaN|inf)"):
        fit(name, X, y, sample_weight=np.array([1.0, 1.0, bad, 1.0]))


# --------------------------------------------------------------------------- degenerate data


# scikit-learn's finiteness check sums X first; near 1e308 that sum overflows, harmlessly.
@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
@pytest.mark.parametrize("name", NAMES)
@FAST
@given(n=st.integers(1, 15), constants=st.lists(
    st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=4),
    labels=st.data())
def test_constant_features_give_a_single_leaf(name, n, constants, labels):
    X = np.tile(np.array(constants), (n, 1))
    spec = ESTIMATORS[name]
    if spec.kind == "classifier":
        y = labels.draw(arrays(np.int64, n, elements=st.integers(0, 2)))
        classes, counts = np.unique(y, return_counts=True)
        if spec.boosting and len(classes) < 2:
            with pytest.raises(ValueError, match="class"):
                fit(name, X, y)
            return
        assume(np.sum(counts == counts.max()) == 1)   # a unique majority class
        est = fit(name, X, y)
        X_new = np.tile(np.array(constants) + 1.0, (3, 1))
        assert_array_equal(est.predict(X_new), [classes[np.argmax(counts)]] * 3)
        assert_allclose(est.predict_proba(X), np.tile(counts / n, (n, 1)), atol=1e-9)
    else:
        y = labels.draw(arrays(np.float64, n, elements=st.integers(-100, 100)))
        est = fit(name, X, y)
        assert_allclose(est.predict(X), np.full(n, y.mean()), rtol=1e-12, atol=1e-9)
    assert all(tree.node_count == 1 for tree in fitted_trees(est))


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(row=st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=4),
       label=st.integers(-5, 5))
def test_one_sample(name, row, label):
    X = np.array([row])
    spec = ESTIMATORS[name]
    X_new = np.vstack([X, X + 1.0, -X])
    if spec.kind == "regressor":
        est = fit(name, X, np.array([float(label)]))
        assert_allclose(est.predict(X_new), float(label), rtol=1e-12)
    elif spec.boosting:
        with pytest.raises(ValueError, match="at least two classes"):
            fit(name, X, np.array([label]))
    else:
        est = fit(name, X, np.array([label]))
        assert_array_equal(est.predict(X_new), [label] * 3)
        assert_array_equal(est.predict_proba(X_new), [[1.0]] * 3)


@pytest.mark.parametrize("name", CLASSIFIERS)
@FAST
@given(data=datasets("classifier"), label=st.sampled_from(["only", -7, 3.0]))
def test_one_class(name, data, label):
    X, _ = data
    y = np.array([label] * X.shape[0])
    if ESTIMATORS[name].boosting:
        with pytest.raises(ValueError, match="at least two classes"):
            fit(name, X, y)
        return
    est = fit(name, X, y)
    assert_array_equal(est.predict(X - 1.0), y)
    assert_array_equal(est.predict_proba(X), np.ones((X.shape[0], 1)))


@pytest.mark.parametrize("name", REGRESSORS)
@FAST
@given(data=datasets("regressor"), value=st.floats(-1e6, 1e6))
def test_constant_target(name, data, value):
    X, _ = data
    est = fit(name, X, np.full(X.shape[0], value))
    assert_allclose(est.predict(X - 1.0), value, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_duplicated_rows_are_integer_weights(name, data):
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    counts = data.draw(arrays(np.int64, X.shape[0], elements=st.integers(1, 3)))
    repeated = fit(name, np.repeat(X, counts, axis=0), np.repeat(y, counts))
    weighted = fit(name, X, y, sample_weight=counts.astype(np.float64))
    assert_same_model(repeated, weighted, rtol=float_rtol(name), skip=("n_node_samples",),
                      msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_ten_thousand_times_more_features_than_rows(name):
    # 10^5 features, 3 rows: every feature separates the rows, so the data is fit exactly.
    X = np.random.RandomState(0).rand(3, 100_000)
    y = np.array([0.0, 1.0, 2.0])
    est = fit(name, X, y)
    assert est.n_features_in_ == 100_000
    if name == "DPDTGradientBoostingRegressor":
        # Each round's tree isolates every row; its leaf moves the residual r by
        # learning_rate * r / (1 + reg_lambda): after 3 rounds r is 0.95^3 of the first.
        assert_allclose(est.predict(X), y.mean() + (1 - 0.95**3) * (y - y.mean()), rtol=1e-12)
    else:
        assert_array_equal(est.predict(X), y)


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_huge_depth_on_tiny_data(name, data):
    spec = ESTIMATORS[name]
    X, y = data.draw(datasets(spec.kind, max_rows=8))
    if name == "BranchesClassifier":
        # No penalty: the optimum is the most accurate multiway tree, the best any tree does.
        est = fit(name, X, y, max_depth=50, lam=0.0)
    elif spec.boosting:
        est = fit(name, X, y, max_depth=50, candidates=(2,))
    elif name == "MultiwayGreedyClassifier":
        est = fit(name, X, y, max_depth=50)
    else:
        est = fit(name, X, y, max_depth=50, candidates=(2,))
    depth = max(tree.max_depth for tree in fitted_trees(est))
    assert depth < X.shape[0]
    if spec.boosting:
        # Each round's Newton step, shrunk by the learning rate, lowers the training loss.
        assert np.all(np.diff(est.train_score_) <= 1e-12)
    elif name == "MultiwayGreedyClassifier":
        # ID3/C4.5 stop where no split gains information (XOR), so only the depth is bounded:
        # a path tests each feature once.
        assert depth <= X.shape[1]
    elif spec.kind == "classifier":
        # Greedy CART grown to depth 50 separates every distinct x, and DPDT is never worse.
        assert est.score(X, y) == pytest.approx(best_training_accuracy(X, y), abs=1e-12)
    else:
        assert est.pareto_front_["train_loss"][0] == pytest.approx(least_training_mse(X, y),
                                                                   abs=1e-9)


# --------------------------------------------------------------------------- budgets

BUDGET = {   # the parameter that bounds each estimator's search
    "DPDTreeClassifier": "candidates",
    "DPDTreeRegressor": "candidates",
    "BranchesClassifier": "max_branches",
    "MultiwayGreedyClassifier": "max_depth",
    "DPDTGradientBoostingClassifier": "candidates",
    "DPDTGradientBoostingRegressor": "candidates",
}


@pytest.mark.parametrize(("name", "budget"), [
    (name, budget) for name in NAMES
    for budget in ([0, (0,), (2, 0), 2**31, (3, 2**40)] if BUDGET[name] == "candidates" else [0])])
def test_budget_out_of_range_is_a_clear_error(name, budget):
    param = BUDGET[name]
    X, y = np.arange(8.0).reshape(4, 2), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=param):
        fit(name, X, y, **{param: budget})


HUGE = 2**40   # beyond the core's 32-bit ints
LIMITS = {   # (huge limits, limits of the same meaning; data have at most 12 rows)
    "DPDTreeClassifier": [({"max_depth": HUGE}, {"max_depth": 50}),
                          ({"max_states": 2**70}, {"max_states": None}),
                          ({"min_samples_leaf": HUGE}, {"min_samples_leaf": 13})],
    "DPDTreeRegressor": [({"max_depth": HUGE}, {"max_depth": 50}),
                         ({"min_samples_split": HUGE}, {"min_samples_split": 13})],
    "BranchesClassifier": [({"max_depth": HUGE}, {"max_depth": None}),
                           ({"max_branches": 2**70}, {})],
    "MultiwayGreedyClassifier": [({"max_depth": HUGE}, {"max_depth": None}),
                                 ({"min_samples_leaf": HUGE}, {"min_samples_leaf": 13})],
    "DPDTGradientBoostingClassifier": [({"max_depth": HUGE}, {"max_depth": 50})],
    "DPDTGradientBoostingRegressor": [({"max_depth": HUGE}, {"max_depth": 50}),
                                      ({"min_samples_leaf": HUGE}, {"min_samples_leaf": 13})],
}


@pytest.mark.parametrize(("name", "huge", "same"), [
    (name, huge, same) for name in NAMES for huge, same in LIMITS[name]])
@FEW
@given(data=st.data())
def test_limits_beyond_any_data_change_nothing(name, huge, same, data):
    # A depth beyond the number of rows (or features, for multiway trees), a minimum leaf size
    # beyond the number of rows, a state or branch budget beyond memory: the model is the one
    # of the limit that means the same, and nothing is allocated per unit of the limit.
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    assert_same_model(fit(name, X, y, **huge), fit(name, X, y, **same), msg=f"{name} {huge}")


@pytest.mark.parametrize("name", NAMES)
@FEW
@given(data=st.data())
def test_budget_of_a_million(name, data):
    spec = ESTIMATORS[name]
    X, y = data.draw(datasets(spec.kind))
    param = BUDGET[name]
    if param == "candidates":
        # A million best (feature, threshold) pairs is every pair: the exhaustive search.
        huge = fit(name, X, y, splitter="topb", candidates=10**6)
        exact = fit(name, X, y, splitter="exhaustive")
        if spec.boosting:
            assert_allclose(huge.train_score_, exact.train_score_, rtol=1e-12)
        else:
            assert_allclose(huge.pareto_front_["train_loss"], exact.pareto_front_["train_loss"],
                            rtol=1e-12, atol=1e-12)
            assert_allclose(huge.pareto_front_["complexity"], exact.pareto_front_["complexity"],
                            rtol=1e-12, atol=1e-12)
    else:
        # A limit that does not bind changes nothing.
        unbounded = fit(name, X, y)
        huge = fit(name, X, y, **{param: 10**6})
        assert_same_model(huge, unbounded, msg=name)


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_zero_weight_is_a_removed_row(name, data):
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    weight = data.draw(arrays(np.float64, X.shape[0], elements=st.integers(0, 2)))
    # A class seen only in removed rows would still be one of classes_ (as in scikit-learn), so
    # each label keeps a row.
    _, first = np.unique(y, return_index=True)
    weight[first] = 1.0
    kept = weight > 0
    assert_same_model(fit(name, X, y, sample_weight=weight),
                      fit(name, X[kept], y[kept], sample_weight=weight[kept]), msg=name)


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_negative_or_all_zero_weights_are_clear_errors(name, data):
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    weight = np.ones(X.shape[0])
    weight[data.draw(st.integers(0, X.shape[0] - 1))] = -data.draw(st.floats(1e-300, 1e300))
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        fit(name, X, y, sample_weight=weight)
    with pytest.raises(ValueError, match="(?i)weight"):
        fit(name, X, y, sample_weight=np.zeros(X.shape[0]))


@pytest.mark.parametrize("name", [name for name in NAMES if not ESTIMATORS[name].boosting])
@FAST
@given(data=st.data(), exponent=st.integers(-1000, 1000))
def test_weight_scale_does_not_matter(name, data, exponent):
    # The objectives are invariant to the scale of the weights. Scaling by a power of two is
    # exact, so the trees must be identical, node weights aside. (Boosting is left out: its
    # reg_lambda is in units of weight, so scaling the weights changes the model.)
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    weight = data.draw(arrays(np.float64, X.shape[0], elements=st.integers(1, 3)))
    scaled = fit(name, X, y, sample_weight=np.ldexp(weight, exponent))
    reference = fit(name, X, y, sample_weight=weight)
    assert_same_model(scaled, reference, skip=("weighted_n_node_samples",), msg=name)
    for a, b in zip(fitted_trees(scaled), fitted_trees(reference), strict=True):
        if not isinstance(a, MultiwayTree):
            assert_array_equal(a.weighted_n_node_samples, np.ldexp(b.weighted_n_node_samples,
                                                                   exponent))


@pytest.mark.parametrize("name", REGRESSORS)
def test_regression_targets_near_the_float_limit(name):
    # Squared errors of targets spread by 1e160 overflow float64.
    X = np.arange(8.0).reshape(-1, 1)
    pattern = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    for scale in (1.0, 1e150):   # squared error up to ~1e300: fitted exactly
        est = fit(name, X, pattern * scale, **({"learning_rate": 1.0, "reg_lambda": 0.0}
                                                 if ESTIMATORS[name].boosting else {}))
        assert_allclose(est.predict(X), pattern * scale, rtol=1e-12)

def test_regression_targets_beyond_the_float_limit_are_a_clear_error():
    # Every loss would be inf and every tree tie with a single leaf (the fit used to return one,
    # with a train_loss of 0). Boosting is not guarded yet: its gradients overflow the same way.
    X = np.arange(8.0).reshape(-1, 1)
    with pytest.raises(ValueError, match="y is too spread out"):
        fit("DPDTreeRegressor", X, np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]) * 1e160)


def test_regression_targets_of_small_magnitude():
    # The core's tolerances are in units of weight: targets of magnitude 1e-6 used to tie every
    # split with a leaf (the front's best tree had a train_loss of 0.125 * 2**-40, not 0).
    X = np.arange(8.0).reshape(-1, 1)
    y = np.ldexp(np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]), -20)
    est = fit("DPDTreeRegressor", X, y, max_depth=2)
    assert est.pareto_front_["train_loss"][0] == 0.0
    assert_array_equal(est.predict(X), y)


@FAST
@given(data=datasets("regressor"), exponent=st.integers(-480, 480))
def test_regression_target_scale_does_not_matter(data, exponent):
    # Scaling y by a power of two is exact: the same trees, their values scaled by it, the
    # losses and alpha ranges by its square.
    X, y = data
    reference = fit("DPDTreeRegressor", X, y)
    scaled = fit("DPDTreeRegressor", X, np.ldexp(y, exponent))
    assert_same_model(scaled, reference, skip=("value", "impurity"), msg=f"2**{exponent}")
    for a, b in zip(scaled.trees_, reference.trees_, strict=True):
        assert_array_equal(a.value, np.ldexp(b.value, exponent))
        assert_array_equal(a.impurity, np.ldexp(b.impurity, 2 * exponent))
    for field in ("alpha_min", "alpha_max", "train_loss"):
        assert_array_equal(scaled.pareto_front_[field],
                           np.ldexp(reference.pareto_front_[field], 2 * exponent))
    assert_array_equal(scaled.predict(X), np.ldexp(reference.predict(X), exponent))


# --------------------------------------------------------------------------- types and layouts


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_strings_in_X(name, data):
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    words = np.array(["apple", "banana", "cherry", "date", "elder", "fig", "grape"])
    as_strings = words[X.astype(int) + 3]
    for hostile in (as_strings, as_strings.astype(object)):
        if ESTIMATORS[name].numeric_only:
            with pytest.raises(ValueError, match="could not convert string to float"):
                fit(name, hostile, y)
        else:
            # Categories are coded in sorted order, here the order of the integers.
            assert_same_model(fit(name, hostile, y), fit(name, X, y), msg=name)
    for junk in (None, {}):
        hostile = X.astype(object)
        hostile[0, 0] = junk
        takes_nan = get_tags(fit(name, X, y)).input_tags.allow_nan
        if junk is None and takes_nan:
            # None is a missing value: NaN for the numeric estimators, the missing values'
            # category for the multiway ones.
            fit(name, hostile, y)
            continue
        error = ((ValueError, TypeError) if ESTIMATORS[name].numeric_only else TypeError)
        with pytest.raises(error, match="NaN|float|string or a number"):
            fit(name, hostile, y)


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.data())
def test_mismatched_lengths_are_clear_errors(name, data):
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    extra = data.draw(st.integers(1, 3))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit(name, X, np.concatenate([y, y[:extra]]))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit(name, X[:-1], y)
    with pytest.raises(ValueError, match="sample_weight"):
        fit(name, X, y, sample_weight=np.ones(X.shape[0] + extra))
    est = fit(name, X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.hstack([X, X[:, :1]]))


@pytest.mark.parametrize("name", [name for name in NAMES if "Multiway" not in name
                                  and name != "BranchesClassifier"])
def test_tree_apply_checks_the_number_of_columns(name):
    # Tree is public, and the core reads X[i, feature] unchecked: too few columns would be an
    # out-of-bounds read (AddressSanitizer's heap-buffer-overflow before the check).
    X = np.random.RandomState(0).rand(30, 4)
    est = fit(name, X, (X[:, 3] > 0.5).astype(int))
    for tree in fitted_trees(est):
        for bad in (X[:, :3].copy(), np.hstack([X, X]), X[0].copy()):
            with pytest.raises(ValueError, match="the tree needs"):
                tree.apply(bad)
        # In preorder the leaf is the last node of each path.
        path = tree.decision_path(X)
        assert_array_equal(tree.apply(X), [row.indices.max() for row in path])


@pytest.mark.parametrize(("key", "value"), [
    ("splitters", ["nope"]), ("splitters", "cart"), ("complexity", "nope"), ("criterion", None),
    ("max_depth", "3"), ("max_depth", 2.5), ("random_state", -1), ("max_states", 2**70),
    ("candidates", [1.5]), ("feature_costs", ["a"])])
def test_core_parameters_of_a_wrong_type_are_clear_errors(key, value):
    # The one conversion of a fit's parameters into the core's struct names the field.
    with pytest.raises(ValueError, match=f"Params.{key}"):
        core_params(_core.Params, {key: value})
    with pytest.raises(TypeError, match="nope is not a field of Params"):
        core_params(_core.Params, {"nope": 1})
    with pytest.raises(ValueError, match="BranchesParams.max_branches"):
        core_params(_core.BranchesParams, {"max_branches": 2**64})


def test_core_arguments_of_a_wrong_type_are_clear_errors():
    X = np.random.RandomState(0).rand(20, 3)
    data = (X, (X[:, 0] > 0.5).astype(np.int32), np.ones(20))
    bins = dict(n_bins=np.ones(3, dtype=np.int32), upper=np.zeros(3))

    def fit_core(**arguments):
        return run("fit", ("classifier", *data), {}, dict(arguments, n_classes=2))

    with pytest.raises(ValueError, match="codes, n_bins"):
        fit_core(codes=np.zeros((20, 3), dtype=np.uint8))
    with pytest.raises(TypeError, match="codes"):   # int8: neither code type
        fit_core(codes=np.zeros((20, 3), dtype=np.int8), **bins)
    with pytest.raises(TypeError, match="root_solutions"):
        fit_core(root_solutions=[1, 2])
    with pytest.raises(ValueError, match="exclude each other"):
        fit_core(count_root_tasks=True, root_tasks=[0])
    with pytest.raises(TypeError, match="params"):
        _core.fit("classifier", *data, {}, n_classes=2)   # a dict is not the struct


def misaligned(array):
    """The same values in a buffer that starts one byte off, as an unpickled array can."""
    raw = np.zeros(array.nbytes + 1, dtype=np.uint8)
    copy = raw[1:].view(array.dtype).reshape(array.shape)
    copy[...] = array
    assert not copy.flags.aligned and copy.flags.c_contiguous
    return copy


def test_misaligned_arrays_reach_the_core_aligned():
    # The core reads through typed pointers; dpdt.dask's workers unpickle their arrays.
    rng = np.random.RandomState(0)
    X = rng.rand(60, 3)
    data = (X, (X[:, 0] + rng.rand(60) > 1).astype(np.int32), rng.rand(60))
    params = dict(max_depth=2, candidates=[2, 2], splitters=["cart", "cart"])
    expected = run("fit", ("classifier", *data), params, dict(n_classes=2))
    got = run("fit", ("classifier", *(misaligned(a) for a in data)), params, dict(n_classes=2))
    for want, have in zip(expected["front"], got["front"], strict=True):
        for key, value in want["tree"].items():
            assert_array_equal(have["tree"][key], value)
    assert aligned(misaligned(data[1])).flags.aligned


@pytest.mark.parametrize("make", [DPDTreeClassifier, DPDTreeRegressor])
@pytest.mark.parametrize(("param", "value"), [
    ("alpha", np.nan), ("alpha", -1.0), ("alpha", np.inf), ("alpha", "0.1"),
    ("max_complexity", np.nan), ("max_complexity", -0.5)])
def test_selection_parameters_set_after_fit_are_checked(make, param, value):
    # set_params does not validate; alpha and max_complexity choose the tree without a refit.
    X = np.arange(20.0).reshape(10, 2)
    y = np.array([0, 1] * 5)
    estimator = make(max_depth=2).fit(X, y).set_params(**{param: value})
    with pytest.raises(ValueError, match=f"'{param}' parameter of {type(estimator).__name__}"):
        estimator.predict(X)


@pytest.mark.parametrize("class_weight", [{0: -1.0, 1: 1.0}, {0: np.inf, 1: 1.0},
                                          {0: np.nan, 1: 1.0}])
def test_class_weight_must_be_finite_and_non_negative(class_weight):
    # A negative class weight used to drop that class's samples silently.
    X = np.arange(20.0).reshape(10, 2)
    y = np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="class_weight must be finite and non-negative"):
        DPDTreeClassifier(max_depth=2, class_weight=class_weight).fit(X, y)


def read_only_memmap(array, directory):
    path = Path(directory) / f"{len(list(Path(directory).iterdir()))}.dat"
    writable = np.memmap(path, dtype=array.dtype, mode="w+", shape=array.shape)
    writable[:] = array
    writable.flush()
    del writable
    return np.memmap(path, dtype=array.dtype, mode="r", shape=array.shape)


def layouts(X, directory):
    """The same values in other dtypes and memory layouts."""
    read_only = X.copy()
    read_only.flags.writeable = False
    return {
        "float32": X.astype(np.float32),
        "int64": X.astype(np.int64),
        "int8": X.astype(np.int8),
        "fortran": np.asfortranarray(X),
        "column_strided": np.repeat(X, 2, axis=1)[:, ::2],
        "row_strided": np.repeat(X, 2, axis=0)[::2],
        "negative_strides": X[::-1, ::-1].copy()[::-1, ::-1],
        "read_only": read_only,
        "memmap_read_only": read_only_memmap(X, directory),
        "memmap_fortran": np.asfortranarray(read_only_memmap(X, directory)),
        "numeric_strings": X.astype(str),
    }


@pytest.mark.parametrize("name", NAMES)
@FEW
@given(data=st.data())
def test_dtypes_and_layouts_give_the_float64_contiguous_model(name, data):
    X, y = data.draw(datasets(ESTIMATORS[name].kind))
    weight = data.draw(arrays(np.float64, X.shape[0], elements=st.integers(1, 3)))
    reference = fit(name, X, y, sample_weight=weight)
    with tempfile.TemporaryDirectory() as directory:
        for layout, hostile in layouts(X, directory).items():
            if layout == "numeric_strings" and not ESTIMATORS[name].numeric_only:
                continue   # strings are categories there, ordered as text
            est = fit(name, hostile, y, sample_weight=weight)
            assert_same_model(est, reference, msg=f"{name}, {layout}")
            assert_array_equal(est.predict(hostile), reference.predict(X), err_msg=layout)
        # Read-only memory-mapped targets and weights too.
        est = fit(name, read_only_memmap(X, directory), read_only_memmap(y, directory),
                  sample_weight=read_only_memmap(weight, directory))
        assert_same_model(est, reference, msg=f"{name}, memmap y and weights")


@pytest.mark.parametrize("make", [DPDTreeClassifier, DPDTreeRegressor])
@pytest.mark.parametrize("complexity", ["expected_tests", "n_splits"])
@FAST
@given(data=st.data(), exponent=st.integers(-1070, 1100))
def test_feature_cost_scale_is_an_alpha_scale_or_a_clear_error(make, complexity, data, exponent):
    # Costs times 2**k price every tree 2**k times more, so alpha times 2**-k picks the same tree;
    # costs whose sums overflow were accepted and left predict with an IndexError.
    kind = "classifier" if make is DPDTreeClassifier else "regressor"
    X, y = data.draw(datasets(kind, min_rows=4))
    costs = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=X.shape[1],
                               max_size=X.shape[1]))
    alpha = data.draw(st.sampled_from([0.0, 0.01, 0.1]))
    params = dict(max_depth=3, candidates=(3, 2), complexity=complexity)
    base = make(**params, feature_costs=costs, alpha=alpha).fit(X, y)
    with np.errstate(over="ignore"):
        scaled_costs = np.ldexp(np.asarray(costs), exponent)
    max_tests = 3 if complexity == "expected_tests" else min(len(X) - 1, 7)
    # The core sums each split's cost times its node's weight (unit weights here: n rows).
    if not np.isfinite(scaled_costs.max() * max_tests * len(X) * 4):
        with pytest.raises(ValueError, match="feature_costs (must be finite|up to .* overflow)"):
            make(**params, feature_costs=scaled_costs).fit(X, y)
        return
    # Costs that underflow to 0 or to subnormals change the prices, not only their scale.
    assume(np.array_equal(np.ldexp(scaled_costs, -exponent), costs))
    assume(np.isfinite(np.ldexp(alpha, -exponent)))
    scaled = make(**params, feature_costs=scaled_costs, alpha=np.ldexp(alpha, -exponent)).fit(X, y)
    assert_tree_equal(scaled.tree_, base.tree_)
    assert_array_equal(scaled.predict(X), base.predict(X))
    for set_alpha in (0.0, 1e300, np.finfo(float).max):
        scaled.set_params(alpha=set_alpha).predict(X)


@pytest.mark.parametrize("make", [DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor])
def test_boosting_whose_sum_overflows_is_a_clear_error(make):
    # A learning_rate near the float limit made the raw scores inf - inf: NaN predictions.
    rng = np.random.RandomState(0)
    X = rng.rand(100, 3)
    y = (X[:, 0] > 0.5).astype(int)
    params = dict(learning_rate=1e308)
    if make is DPDTGradientBoostingRegressor:
        y = np.zeros(12)
        X, y[0] = np.zeros((12, 1)), 1.16e282
        params = dict(learning_rate=1.7e308, reg_lambda=7.5e305, subsample=0.5)
    with pytest.raises(ValueError, match="overflow"):
        with np.errstate(all="ignore"):
            make(**params).fit(X, y)


@pytest.mark.parametrize("make", [DPDTreeClassifier, DPDTreeRegressor])
@pytest.mark.parametrize("complexity", ["expected_tests", "n_splits"])
@pytest.mark.parametrize("costs", [
    [1e307, 1.0, 1.0, 1.0], [1e308] * 4, [1.7e308, 1e-300, 1.0, 0.0], [1e306] * 4,
    [1e305, 5e-324, 0.0, 1e305], [1e304] * 4, [1e300, 1.0, 1e-300, 0.0]])
def test_huge_finite_feature_costs_fit_or_are_a_clear_error(make, complexity, costs):
    # Costs of 1e307 passed the check (a tree sums at most 3 of them) but the core sums each
    # times its node's weight: the complexity overflowed, and predict raised an IndexError.
    rng = np.random.RandomState(0)
    X = rng.rand(200, 4)
    y = (X[:, 0] > 0.5).astype(int) if make is DPDTreeClassifier else X[:, 0] * 3
    try:
        est = make(max_depth=3, feature_costs=costs, complexity=complexity).fit(X, y)
    except ValueError as error:
        assert "feature_costs" in str(error) and "overflow" in str(error)
        return
    assert np.all(np.isfinite(est.pareto_front_["complexity"]))
    for alpha in (0.0, 1e-300, 1.0, 1e300):
        assert est.set_params(alpha=alpha).predict(X).shape == (200,)


@pytest.mark.parametrize("depths", [range(1, 10**12), range(1, 2**40, 2), [1] * 2000])
def test_a_huge_list_of_depths_is_a_clear_error(depths):
    from dpdt import DPDTreeClassifierCV

    X, y = np.arange(16.0).reshape(8, 2), np.array([0, 1] * 4)
    with pytest.raises(ValueError, match="max_depths.* at most|max_depths.*1 to 1024"):
        DPDTreeClassifierCV(max_depths=depths, cv=2).fit(X, y)
    # Up to 1024 limits, of any size, are taken.
    DPDTreeClassifierCV(max_depths=range(1, 1025))._validate_params()
    model = DPDTreeClassifierCV(max_depths=range(2**40, 2**40 + 3), cv=2).fit(X, y)
    assert model.max_depth_ in range(2**40, 2**40 + 3) and model.predict(X).shape == (8,)


@pytest.mark.parametrize("make", [
    lambda: (DPDTreeRegressor(max_depth=1), np.repeat([1e308, -1e308], 5),
             "too spread out"),
    lambda: (DPDTreePolicy(max_depth=1), np.tile([-1e308, 1e308], (10, 1)),
             "differ by more than float64"),
    lambda: (DPDTreeClassifier(max_depth=1), np.arange(10) % 2, None),
])
def test_huge_values_of_both_signs_give_no_warning(make):
    # scikit-learn's finiteness check sums them to inf - inf; the fit's own answer is all.
    estimator, y, error = make()
    X = np.repeat([[1e308], [-1e308]], 5, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if error is None:
            estimator.fit(X, y)
        else:
            with pytest.raises(ValueError, match=error):
                estimator.fit(X, y)
