"""The policy-tree oracle agrees with itself: the recursion, its vectorised last level, the list."""

import numpy as np
import pytest
from _policy_brute import (
    all_policy_assignments,
    all_policy_trees,
    best_objective,
    best_policy_value,
    hull_vertices,
    policy_reward,
)


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


def test_hull_vertices_of_known_points():
    # (1, 2) is on the edge from (0, 0) to (2, 4); (3, 4) costs more for no more; (1, 0.5) is
    # under the hull; (0, -1) as cheap as (0, 0) and worse; (2.5, 4.2) a vertex past (2, 4).
    cost = np.array([0.0, 1.0, 2.0, 3.0, 1.0, 0.0, 2.5])
    reward = np.array([0.0, 2.0, 4.0, 4.0, 0.5, -1.0, 4.2])
    got_cost, got_reward = hull_vertices(cost, reward)
    np.testing.assert_allclose(got_cost, [2.5, 2.0, 0.0])
    np.testing.assert_allclose(got_reward, [4.2, 4.0, 0.0])


def test_assignments_include_the_best_trees():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    R = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 2.0]])
    found = all_policy_assignments(X, R, [0.0, 1.0], max_depth=1)
    # The leaf's two actions, and each of 3 splits with 4 pairs of actions.
    assert len(found["reward"]) == 2 + 3 * 4
    best = np.argmax(found["reward"])
    assert found["reward"][best] == 6.0 and found["cost"][best] == 2.0
    assert found["tested_weight"][best] == 4.0
    assert found["cost"].min() == 0.0 and found["reward"][found["cost"] == 0].max() == 2.0


@pytest.mark.parametrize("seed", range(4))
def test_assignments_reach_the_listed_trees_best(seed):
    X, R, w = tiny(seed)
    found = all_policy_assignments(X, R, np.zeros(R.shape[1]), w, max_depth=2)
    listed = all_policy_trees(X, R, w, max_depth=2)
    assert found["reward"].max() == pytest.approx(listed["reward"].max(), rel=1e-12)
    assert found["reward"].max() == pytest.approx(best_policy_value(X, R, w, 2), rel=1e-12)
