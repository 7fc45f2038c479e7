"""Every estimator, any valid parameters, any data magnitude: a usable model or a clear error.

Parameters are drawn from each estimator's own ``_parameter_constraints`` (the one home of what
a parameter admits), edges and extremes included, so a parameter added later is drawn without
touching this file. Data are small integer grids times a power of two anywhere in the float
range, with weights likewise. Whatever is drawn, ``fit`` either raises ValueError naming the
problem (or MemoryError when the allocator itself fails: a limit drawn ends the search with a
model, never an exception), or gives a model whose
predictions are well formed, that survives a save and load unchanged, whose regression tree
predicts within the range of the targets, and whose trees are monotone under ``monotonic_cst``
(drawn, one value per feature, once the data are).
"""

import tempfile
import warnings
from numbers import Integral
from pathlib import Path

import numpy as np
import pytest
from _monotone import assert_monotone
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal
from sklearn.base import is_classifier
from sklearn.utils._param_validation import Interval, StrOptions

import dpdt
from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
    MultiwayGreedyClassifier,
)

ESTIMATORS = [DPDTreeClassifier, DPDTreeRegressor, DPDTreeClassifierCV, DPDTreeRegressorCV,
              DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor, BranchesClassifier,
              MultiwayGreedyClassifier]

# Parameters whose range is an amount of work the user asks for (a billion boosting rounds is
# valid and slow by design); every other parameter is drawn over its whole range.
WORK = {"n_estimators": st.integers(1, 4), "cv": st.just(2)}
# Parameters of one value per feature, drawn once the data (and so the number of features) are.
PER_FEATURE = {"monotonic_cst": st.sampled_from([-1, 0, 1])}

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None)

LARGEST_INT = 2**63 - 1


def interval_values(constraint):
    """Values inside a scikit-learn Interval: its edges, values near them and anywhere within."""
    left_open = constraint.closed in ("right", "neither")
    right_open = constraint.closed in ("left", "neither")
    if constraint.type is Integral:
        low = -LARGEST_INT if constraint.left is None else constraint.left + left_open
        high = LARGEST_INT if constraint.right is None else constraint.right - right_open
        return st.one_of(st.sampled_from([low, high]), st.integers(low, min(high, low + 20)),
                         st.integers(low, high))
    floats = st.floats(
        min_value=constraint.left, max_value=constraint.right,
        exclude_min=left_open and constraint.left is not None,
        exclude_max=right_open and constraint.right is not None,
        allow_nan=False, allow_infinity=constraint.right is None, allow_subnormal=True)
    return floats.filter(lambda value: constraint.is_satisfied_by(value))


def values_of(name, constraints):
    """A strategy over every value the constraints admit, or None if they cannot be drawn."""
    if name in WORK:
        return WORK[name]
    options = []
    for constraint in constraints:
        if constraint is None:
            options.append(st.none())
        elif constraint == "boolean":
            options.append(st.booleans())
        elif constraint == "random_state":
            options.append(st.one_of(st.none(), st.integers(0, 2**32 - 1)))
        elif constraint == "verbose":
            options.append(st.just(0))
        elif constraint is Integral:  # n_jobs: any count, negative ones counting from the cores
            options.append(st.sampled_from([1, 2, -1, -2]))
        elif isinstance(constraint, StrOptions):
            options.append(st.sampled_from(sorted(constraint.options - constraint.deprecated)))
        elif isinstance(constraint, Interval):
            options.append(interval_values(constraint))
    return st.one_of(options) if options else None


@st.composite
def parameters(draw, estimator):
    drawn = {}
    for name, constraints in estimator._parameter_constraints.items():
        strategy = values_of(name, constraints)
        if strategy is not None and draw(st.booleans()):
            drawn[name] = draw(strategy)
    return drawn


@st.composite
def scaled_data(draw, classifier, scaled=True):
    """An integer grid (ties, duplicates, constant columns) times 2**k, targets and weights too.

    With ``scaled=False``, every k is 0.
    """
    exponents = st.integers(-1070, 1020) if scaled else st.just(0)
    n = draw(st.integers(6, 14))
    p = draw(st.integers(1, 3))
    x_exponent = draw(exponents)
    X = np.ldexp(draw(arrays(np.float64, (n, p), elements=st.integers(-3, 3))), x_exponent)
    if classifier:
        y = draw(arrays(np.int64, n, elements=st.integers(0, 2)))
        y[:2] = [0, 1]
    else:
        y_exponent = draw(exponents)
        y = np.ldexp(draw(arrays(np.float64, n, elements=st.integers(-4, 4))), y_exponent)
    weight = None
    if draw(st.booleans()):
        w_exponent = draw(exponents)
        weight = np.ldexp(draw(arrays(np.float64, n, elements=st.integers(1, 5))), w_exponent)
    return X, y, weight


def assert_well_formed(model, X, y):
    prediction = model.predict(X)
    assert prediction.shape == (len(X),)
    if is_classifier(model):
        assert np.isin(prediction, model.classes_).all()
        proba = model.predict_proba(X)
        assert proba.shape == (len(X), len(model.classes_))
        assert np.isfinite(proba).all() and (proba >= 0).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)
    else:
        assert np.isfinite(prediction).all()
        if isinstance(model, DPDTreeRegressor):
            # A leaf predicts a weighted mean of its targets.
            rounding = 1e-12 * np.abs(y).max()
            assert (prediction >= y.min() - rounding).all()
            assert (prediction <= y.max() + rounding).all()
    return prediction


def trees_read_by_the_constraints(model):
    """The trees ``monotonic_cst`` binds, each with whether it holds class probabilities."""
    if hasattr(model, "estimators_"):   # boosting: each tree's raw score
        return [(tree, False) for trees in model.estimators_ for tree in trees]
    model = getattr(model, "best_estimator_", model)
    return [(tree, is_classifier(model)) for tree in model.trees_]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
@SETTINGS
@given(data=st.data())
def test_any_valid_parameters_on_any_scale(estimator, data):
    params = data.draw(parameters(estimator), label="params")
    X, y, weight = data.draw(scaled_data(is_classifier(estimator())), label="data")
    for name, values in PER_FEATURE.items():
        if name in estimator().get_params() and data.draw(st.booleans(), label=name):
            params[name] = data.draw(st.lists(values, min_size=X.shape[1],
                                              max_size=X.shape[1]), label=name)
            if is_classifier(estimator()):   # constraints take two classes
                y = np.minimum(y, 1)
    model = estimator(**params)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y, sample_weight=weight) if weight is not None else model.fit(X, y)
    except MemoryError as error:
        # A limit ends the search with a tree: MemoryError is the allocator's alone.
        assert "ran out of memory" in str(error), repr(error)
        return
    except ValueError as error:
        # A clear error names what is wrong; the core's bare failures have no message.
        assert len(str(error)) > 20, repr(error)
        return
    prediction = assert_well_formed(model, X, y)
    if params.get("monotonic_cst") is not None:
        for tree, classifier in trees_read_by_the_constraints(model):
            assert_monotone(tree, params["monotonic_cst"], classifier)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model.dpdt"
        model.save(path)
        assert_array_equal(dpdt.load(path).predict(X), prediction)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
@SETTINGS
@given(data=st.data(), exponent=st.integers(-1073, 1021))
def test_scaling_X_by_a_power_of_two_changes_no_prediction(estimator, data, exponent):
    # Thresholds are midpoints of neighbouring values, bins are their quantiles: each scales by
    # 2**k exactly while it stays a normal float or a representable subnormal.
    X, y, weight = data.draw(scaled_data(is_classifier(estimator()), scaled=False), label="data")
    params = {"random_state": 0} if "random_state" in estimator().get_params() else {}
    if estimator in (DPDTreeClassifierCV, DPDTreeRegressorCV):
        params["cv"] = 2
    base = estimator(**params).fit(X, y, sample_weight=weight)
    scaled = estimator(**params).fit(np.ldexp(X, exponent), y, sample_weight=weight)
    assert_array_equal(scaled.predict(np.ldexp(X, exponent)), base.predict(X))
    if is_classifier(base):
        assert_array_equal(scaled.predict_proba(np.ldexp(X, exponent)), base.predict_proba(X))


def unbounded_integer_parameters(estimator):
    return [name for name, constraints in estimator._parameter_constraints.items()
            if name not in WORK and any(isinstance(c, Interval) and c.type is Integral
                                        and c.right is None for c in constraints)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("value", [LARGEST_INT, LARGEST_INT + 1, 2**100])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_unbounded_integers_beyond_every_c_integer(estimator, value):
    # An integer parameter without an upper bound takes any Python int: past the C integers of
    # the core and of scikit-learn alike, the value must still fit or be refused by name.
    X = np.arange(24.0).reshape(12, 2) % 5
    y = np.arange(12) % 2 if is_classifier(estimator()) else np.arange(12.0) % 3
    for name in unbounded_integer_parameters(estimator):
        params = {name: value}
        if "n_estimators" in estimator().get_params():
            params["n_estimators"] = 2
        if "cv" in estimator().get_params():
            params["cv"] = 2
        try:
            model = estimator(**params).fit(X, y)
        except ValueError as error:
            assert name in str(error), repr(error)
            continue
        assert_well_formed(model, X, y)
