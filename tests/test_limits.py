"""Every limit ends every search the same way: a fitted estimator, one warning naming the limit.

Each estimator that takes a limit (time, states or branches, memory) is stopped by each of them
on data large enough that it bites, and must return a usable model (predict works), warn once
naming the limit, report it in ``stats_["stopped_by"]``, and, where its search proves a bound,
report a finite one that holds: never above the optimum (below it for BRANCHES, which maximises),
the optimum found by the same search without a limit. The one exception is a ``memory_limit``
below what the fit needs before solving anything: a ``ValueError`` naming the least limit,
raised before the search, and that least limit fits.

Boosting takes none of these limits (Ctrl-C stops it), and a fit split over processes
(``dpdt.dask``, the Dask estimators) raises at ``max_states`` and ``memory_limit``: its workers
cannot hand back part of a search (``test_remote.py``, ``test_dask.py``).
"""

import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from dpdt import (
    BranchesClassifier,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreePolicy,
    DPDTreePolicyCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
)


def _numeric(n, p, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    score = X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] ** 2 + 0.2 * rng.standard_normal(n)
    return X, score


def _classes(n, p, seed=0):
    X, score = _numeric(n, p, seed)
    return X, np.digitize(score, np.quantile(score, [0.35, 0.7]))


def _rewards(n, p, seed=0):
    X, score = _numeric(n, p, seed)
    rng = np.random.default_rng(seed + 1)
    return X, np.column_stack([score, -score, 0.5 * rng.standard_normal(n)])


def _categories(n, p, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, p))
    y = ((X[:, 0] + X[:, 1] * X[:, 2]) % 3 + (rng.random(n) < 0.15)) % 3
    return X, y


# The front's search, unlimited, takes a second or so: every limit below bites.
FRONT = dict(max_depth=5, candidates=(8, 8, 8))

# name: (estimator class, its parameters, data, the parameter that limits its states, its bound)
ESTIMATORS = {
    "classifier, exact thresholds": (
        DPDTreeClassifier, dict(FRONT, max_bins=None), _classes(5000, 8), "max_states", None),
    "classifier, binned": (
        DPDTreeClassifier, dict(FRONT, max_bins=32), _classes(5000, 8), "max_states", None),
    "regressor, exact thresholds": (
        DPDTreeRegressor, dict(FRONT, max_bins=None), _numeric(5000, 8), "max_states", None),
    "regressor, binned": (
        DPDTreeRegressor, dict(FRONT, max_bins=32), _numeric(5000, 8), "max_states", None),
    "regressor, exhaustive": (
        DPDTreeRegressor, dict(max_depth=3, splitter="exhaustive", full_front=False),
        _numeric(400, 4), "max_states", "lower"),
    "policy, exact search": (
        DPDTreePolicy, dict(max_depth=3, splitter="exhaustive", full_front=False),
        _rewards(400, 4), "max_states", "lower"),
    "classifier, exact search": (
        DPDTreeClassifier, dict(max_depth=3, splitter="exhaustive", full_front=False),
        _classes(600, 5), "max_states", "lower"),
    "classifier CV": (
        DPDTreeClassifierCV, dict(max_depth=3, cv=3, n_jobs=1), _classes(3000, 6),
        "max_states", None),
    "regressor CV": (
        DPDTreeRegressorCV, dict(max_depth=3, cv=3, n_jobs=1), _numeric(3000, 6),
        "max_states", None),
    "policy CV": (
        DPDTreePolicyCV, dict(max_depth=3, cv=3, n_jobs=1), _rewards(3000, 6),
        "max_states", None),
    "BRANCHES": (
        BranchesClassifier, dict(lam=0.001), _categories(3000, 8), "max_branches", "upper"),
}

LIMITS = ("time_limit", "states", "memory_limit")


def _fit(make, params, X, y):
    """Fit, and return the model and the ConvergenceWarnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = make(**params).fit(X, y)
    return model, [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


def _least_memory_limit(make, params, X, y):
    """The least memory_limit a fit takes, from the ValueError of those below it.

    The CV estimators' fits differ in size (folds, depths): each refusal names the least limit of
    the fit that raised it, and the largest of them is the one every fit takes.
    """
    limit = 1
    for _ in range(10):
        try:
            make(**params, memory_limit=limit).fit(X, y)
        except ValueError as refused:
            message = str(refused)
            assert f"memory_limit={limit} bytes is below" in message, message
            least = int(re.search(r"at least (\d+)", message).group(1))
            assert least > limit
            limit = least
            continue
        return limit
    raise AssertionError("the least memory_limit named is refused again and again")


def _objective(model):
    """The objective the search minimises (DPDT) or maximises (BRANCHES) of the model's tree."""
    if isinstance(model, BranchesClassifier):
        return model.objective_
    return model.lower_bound_ + model.stats_["gap"]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_every_limit_stops_every_search_with_a_model(name, limit):
    make, params, (X, y), states, bound = ESTIMATORS[name]
    if limit == "memory_limit":
        if "memory_limit" not in make().get_params():
            pytest.skip(f"{make.__name__} takes no memory_limit (it counts its branches)")
        value = _least_memory_limit(make, params, X, y)
        named = f"memory_limit={value} bytes"
    elif limit == "states":
        limit, value = states, 1
        named = f"{states}=1 "
    else:
        value = 1e-3
        named = "time_limit=0.001 s"
    model, messages = _fit(make, {**params, limit: value}, X, y)

    assert len(messages) == 1 and named in messages[0], messages
    assert model.stats_["stopped_by"] == limit
    assert not model.is_optimal_ if hasattr(model, "is_optimal_") else True
    prediction = model.predict(X)
    assert prediction.shape == (len(X),)
    if hasattr(model, "classes_"):
        assert np.isin(prediction, model.classes_).all()
    else:
        assert np.isfinite(prediction).all()
    if bound is None:
        return
    # The bound holds: finite, on the right side of the optimum (the same search unlimited),
    # and of the tree returned.
    optimum, _ = _fit(make, params, X, y)
    assert optimum.is_optimal_
    gap = model.stats_["gap"]
    assert np.isfinite(gap) and gap >= 0
    tolerance = 1e-9 * max(1.0, abs(_objective(optimum)))
    if bound == "lower":
        assert np.isfinite(model.lower_bound_)
        assert model.lower_bound_ <= _objective(optimum) + tolerance
        assert _objective(model) >= _objective(optimum) - tolerance
    else:
        assert np.isfinite(model.upper_bound_)
        assert model.upper_bound_ >= _objective(optimum) - tolerance
        assert _objective(model) <= _objective(optimum) + tolerance


@pytest.mark.parametrize("scale", [2.0**-30, 1.0, 2.0**30])
def test_a_stopped_exact_regression_keeps_the_tree_of_its_alpha_at_any_scale(scale):
    # Stopped, the exact search compares its tree with DPDT's heuristic one at alpha, which must
    # be taken in the core's loss unit (the targets are scaled before they cross): in the
    # user's, alpha was off by 4**k, and so were the tree chosen and the range reported.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 8))
    y = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=3000)
    alpha = 1e-3 * scale**2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = DPDTreeRegressor(max_depth=3, splitter="exhaustive", full_front=False, alpha=alpha,
                               time_limit=1e-3).fit(X, y * scale)
    assert not est.is_optimal_ and est.stats_["stopped_by"] == "time_limit"
    row = est.pareto_front_[0]
    assert row["alpha_min"] <= alpha * (1 + 1e-12) and alpha <= row["alpha_max"] * (1 + 1e-12)
