"""The bounded exact search on every objective it serves, against brute force.

``splitter="exhaustive", full_front=False`` runs the core's branch and bound, whose bounds need
only a loss that is >= 0 and never drops when samples are added: policies (the regret) and
regressions (the squared error) take it as classifiers do (``test_exact_solver.py``,
``test_optimality.py``). Its tree must be optimal, certified (``is_optimal_``, ``lower_bound_``
equal to the optimum), at every depth, alpha and complexity, on rewards and targets of any
scale and offset; its limits are in ``test_limits.py``.
"""

import numpy as np
import pytest
from _bruteforce import COMPLEXITIES, regression_optimum_by_recursion
from _policy_brute import best_objective

from dpdt import DPDTreeClassifier, DPDTreePolicy, DPDTreeRegressor
from dpdt._objectives import OBJECTIVES

TOL = 1e-9


def _features(rng, n, p, integer):
    """Few distinct values (ties, shared thresholds) or continuous ones."""
    return rng.integers(0, 5, (n, p)).astype(float) if integer else rng.random((n, p)).round(2)


def _rewards(seed, n, k=3, scale=1.0):
    rng = np.random.default_rng(seed)
    X = _features(rng, n, 3, seed % 2 == 0)
    R = rng.integers(-2, 3, (n, k)).astype(float) if seed % 3 == 0 else rng.normal(size=(n, k))
    R += (X[:, :1] > X[:, 1:2]) * np.arange(k)   # some structure for the splits to find
    return X, R * scale, rng.random(n) + 0.1


def _targets(seed, n, n_outputs=1, offset=0.0):
    rng = np.random.default_rng(100 + seed)
    X = _features(rng, n, 3, seed % 2 == 0)
    Y = rng.normal(size=(n, n_outputs)) + 2.0 * (X[:, :1] > 0.5 * X[:, 1:2].max())
    Y = Y.round(2) + offset
    return X, (Y[:, 0] if n_outputs == 1 else Y), rng.random(n) + 0.1


def _assert_certified_optimum(model, best):
    # Only the bounded search reports a gap; the front's search does not.
    assert "gap" in model.stats_, "the bounded search did not serve this fit"
    assert model.is_optimal_
    tolerance = TOL * max(1.0, abs(best))
    assert model.objective_ == pytest.approx(best, abs=tolerance)
    assert model.lower_bound_ == pytest.approx(best, abs=tolerance)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("alpha", [0.0, 0.03])
@pytest.mark.parametrize("complexity", COMPLEXITIES)
def test_policy_reaches_the_brute_force_optimum(seed, depth, alpha, complexity):
    X, R, w = _rewards(seed, n=16 if depth == 3 else 24)
    model = DPDTreePolicy(max_depth=depth, splitter="exhaustive", full_front=False, alpha=alpha,
                          complexity=complexity).fit(X, R, w)
    _assert_certified_optimum(model, best_objective(X, R, w, depth, alpha, complexity))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scale", [1e-6, 1e5])
@pytest.mark.parametrize("k", [2, 5])
def test_policy_of_any_scale_and_actions(seed, scale, k):
    # alpha is in the rewards' unit: the core sees them rescaled, and alpha with them.
    X, R, w = _rewards(seed, n=30, k=k, scale=scale)
    alpha = 0.02 * scale
    model = DPDTreePolicy(max_depth=2, splitter="exhaustive", full_front=False,
                          alpha=alpha).fit(X, R, w)
    _assert_certified_optimum(model, best_objective(X, R, w, 2, alpha))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("alpha", [0.0, 0.05])
@pytest.mark.parametrize("complexity", COMPLEXITIES)
def test_regression_reaches_the_brute_force_optimum(seed, depth, alpha, complexity):
    X, y, w = _targets(seed, n=16 if depth == 3 else 24)
    model = DPDTreeRegressor(max_depth=depth, splitter="exhaustive", full_front=False,
                             alpha=alpha, complexity=complexity).fit(X, y, w)
    _assert_certified_optimum(model, regression_optimum_by_recursion(X, y, w, depth, alpha,
                                                                     complexity))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("offset", [0.0, 1e4])
@pytest.mark.parametrize("n_outputs", [1, 3])
def test_regression_of_any_offset_and_outputs(seed, offset, n_outputs):
    # The core sees targets centred and rescaled, alpha with them (squared units).
    X, y, w = _targets(seed, n=30, n_outputs=n_outputs, offset=offset)
    model = DPDTreeRegressor(max_depth=2, splitter="exhaustive", full_front=False,
                             alpha=0.01).fit(X, y, w)
    _assert_certified_optimum(model, regression_optimum_by_recursion(X, y, w, 2, 0.01))


@pytest.mark.parametrize("make, data", [
    (DPDTreePolicy, lambda: _rewards(1, 200)),
    (DPDTreeRegressor, lambda: _targets(1, 200)),
])
def test_threads_and_the_front_agree(make, data):
    # The bounded search's tree is the front's optimum at that alpha, on any number of threads.
    X, y, w = data()
    front = make(max_depth=3, splitter="exhaustive", alpha=0.01).fit(X, y, w)
    for n_jobs in (1, 2):
        bounded = make(max_depth=3, splitter="exhaustive", full_front=False, alpha=0.01,
                       n_jobs=n_jobs).fit(X, y, w)
        _assert_certified_optimum(bounded, front.objective_)


def test_the_estimators_follow_the_core_trait():
    # Every objective whose loss only grows with samples has the bounded search; Newton's
    # (negative losses) does not, so boosting never asks for it.
    served = {name for name, objective in OBJECTIVES.items() if objective.bounded_search}
    assert served == {"classifier", "regressor", "policy"}
    for make in (DPDTreeClassifier, DPDTreeRegressor, DPDTreePolicy):
        assert make._objective.bounded_search
