"""The exact search's sweep of states of depth two, against brute force.

A state of depth two of the bounded search (``splitter="exhaustive", full_front=False``) whose
objective's loss is a sum less the max of K sums (the 0-1 loss, a policy's regret) reads its
cuts' children's values from one sweep per feature once a few of its cuts were searched
(``stats_["sweeps"]``): exact with weights that sum exactly, bounds within a tolerance
otherwise, and a cut that may beat the incumbent has its children searched to confirm it. The
tree must stay optimal and certified on states large enough to be swept: continuous features,
many equal values, weights of both kinds, 2-6 classes or actions, at depths 2 and 3.
"""

import numpy as np
import pytest
from _policy_brute import best_objective

from dpdt import DPDTreeClassifier, DPDTreePolicy

TOL = 1e-9


def _features(rng, n, p, kind):
    if kind == "ties":   # every value shared by about three samples
        return rng.integers(0, 30, (n, p)).astype(float)
    if kind == "rounded":
        return rng.random((n, p)).round(2)
    return rng.random((n, p))


def _weights(rng, n, kind):
    if kind == "none":
        return None
    if kind == "integer":   # sums exact: the sweep's values are the children's own
        return rng.integers(1, 4, n).astype(float)
    return rng.random(n) + 0.1   # sums rounded: the sweep's values are bounds


def _assert_certified(model, best):
    assert model.stats_["sweeps"] > 0, "no state was swept: the test does not reach the sweep"
    assert model.is_optimal_
    tolerance = TOL * max(1.0, abs(best))
    assert model.objective_ == pytest.approx(best, abs=tolerance)
    assert model.lower_bound_ == pytest.approx(best, abs=tolerance)


def _one_hot(y, k):
    return np.eye(k)[y]


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("features", ["continuous", "rounded", "ties"])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_classifier_at_depth_two_reaches_the_brute_force_optimum(seed, k, features, weights):
    rng = np.random.default_rng(seed)
    n = 120
    X = _features(rng, n, 3, features)
    # Labels only loosely tied to the features: many cuts are close, and get searched.
    X01 = (X[:, 0] + X[:, 1]) / X.max()
    y = (X01 * k / 2 + rng.normal(scale=3.0, size=n)).astype(int) % k
    w = _weights(rng, n, weights)
    model = DPDTreeClassifier(max_depth=2, splitter="exhaustive", full_front=False).fit(X, y, w)
    # The 0-1 loss is the regret of one-hot rewards.
    _assert_certified(model, best_objective(X, _one_hot(y, k), w, 2))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("features", ["continuous", "ties"])
@pytest.mark.parametrize("weights", ["none", "real"])
@pytest.mark.parametrize("alpha", [0.0, 0.01])
def test_policy_at_depth_two_reaches_the_brute_force_optimum(seed, k, features, weights, alpha):
    rng = np.random.default_rng(10 + seed)
    n = 90
    X = _features(rng, n, 3, features)
    R = rng.normal(size=(n, k)) + 0.3 * (X[:, :1] > X[:, 1:2]) * np.arange(k)
    w = _weights(rng, n, weights)
    model = DPDTreePolicy(max_depth=2, splitter="exhaustive", full_front=False,
                          alpha=alpha).fit(X, R, w)
    _assert_certified(model, best_objective(X, R, w, 2, alpha))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("weights", ["integer", "real"])
def test_depth_three_sweeps_its_states_of_depth_two(seed, weights):
    rng = np.random.default_rng(20 + seed)
    n = 90
    X = _features(rng, n, 2, "ties")
    R = rng.normal(size=(n, 3))
    w = _weights(rng, n, weights)
    model = DPDTreePolicy(max_depth=3, splitter="exhaustive", full_front=False).fit(X, R, w)
    _assert_certified(model, best_objective(X, R, w, 3))
