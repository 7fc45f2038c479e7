"""The policy-tree oracle agrees with itself: the recursion, its vectorised last level, the list."""

import numpy as np
import pytest
from _policy_brute import all_policy_trees, best_objective, best_policy_value, policy_reward


def tiny(seed, n=10, p=2, k=3, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, p)).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, rng.normal(size=(n, k)), rng.random(n) + 0.1


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("missing", [0.0, 0.3])
@pytest.mark.parametrize("complexity", ["expected_tests", "n_splits"])
def test_recursion_is_the_best_listed_tree(seed, missing, complexity):
    X, R, w = tiny(seed, missing=missing)
    trees = all_policy_trees(X, R, w, max_depth=2)
    for alpha in (0.0, 0.05, 0.3):
        penalty = trees["tested_weight"] if complexity == "expected_tests" else (
            trees["n_splits"] * w.sum())
        listed = np.max(trees["reward"] - alpha * penalty)
        for depth in (1, 2):
            if depth == 1:
                shallow = trees["n_splits"] <= 1
                expected = np.max((trees["reward"] - alpha * penalty)[shallow])
            else:
                expected = listed
            assert best_policy_value(X, R, w, depth, alpha, complexity) == pytest.approx(
                expected, abs=1e-12)


def test_objective_is_the_mean_regret_and_a_known_policy_reaches_it():
    # Action 1 is best exactly where x > 1.5, action 0 elsewhere: a stump is perfect.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    R = np.array([[1.0, 0.0], [1.0, 0.5], [0.0, 2.0], [0.2, 1.0]])
    assert best_objective(X, R, max_depth=1) == 0.0
    assert best_policy_value(X, R, max_depth=1) == policy_reward([0, 0, 1, 1], R) == 5.0
    assert best_objective(X, R, max_depth=1, alpha=10.0) == pytest.approx((5.0 - 3.5) / 4)
