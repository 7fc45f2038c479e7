"""The core's policy objective (``_core.fit("policy", ...)``) against brute force on tiny data.

A policy tree's leaf chooses one action for all its samples; the best tree of a depth maximises
the total weighted reward. Brute force enumerates every tree of depth 1 and 2 over every
threshold; the core's exhaustive search must reach the same total reward, whatever the weights,
ties or number of actions.
"""

import itertools

import numpy as np
import pytest
from test_remote import assert_same_result, remote_fit

from dpdt import _core
from dpdt._runner import call_core


def thresholds(x):
    """Every cut between consecutive distinct values of x."""
    values = np.unique(x)
    return (values[:-1] + values[1:]) / 2


def leaf_reward(R, w, rows):
    """The best total reward of one action for the rows."""
    return (w[rows, None] * R[rows]).sum(axis=0).max() if rows.any() else 0.0


def best_reward(X, R, w, rows, depth):
    """The best total reward of a tree of depth <= `depth` over the rows, by enumeration."""
    best = leaf_reward(R, w, rows)
    if depth == 0:
        return best
    for f in range(X.shape[1]):
        for t in thresholds(X[rows, f]):
            left = rows & (X[:, f] <= t)
            right = rows & ~(X[:, f] <= t)
            best = max(best, best_reward(X, R, w, left, depth - 1)
                       + best_reward(X, R, w, right, depth - 1))
    return best


def policy_params(depth, splitter="exhaustive"):
    return dict(max_depth=depth, candidates=[4] * depth, splitters=[splitter] * depth,
                complexity="n_splits", min_samples_split=2, min_samples_leaf=1,
                min_weight_leaf=0.0, min_impurity_decrease=0.0, max_features=0,
                random_state=0, max_states=10**7, n_threads=1)


def core_fit(X, R, w, depth, splitter="exhaustive", **arguments):
    return call_core("fit", "policy", np.ascontiguousarray(X), np.ascontiguousarray(R),
                     np.ascontiguousarray(w), params=policy_params(depth, splitter), **arguments)


def every_value_binned(X):
    """Bins of X holding one distinct value each: the binned search sees every threshold."""
    uppers = [np.unique(column) for column in X.T]
    codes = np.column_stack([np.searchsorted(u, column) for u, column in zip(uppers, X.T,
                                                                             strict=True)])
    return dict(codes=np.ascontiguousarray(codes, dtype=np.uint8),
                n_bins=np.array([len(u) for u in uppers], dtype=np.int32),
                upper=np.concatenate(uppers))


def tree_reward(tree, X, R, w):
    """The total reward of the tree's policy: each leaf takes the action of highest mean reward."""
    leaves = _core.apply(tree["children_left"], tree["children_right"], tree["feature"],
                         tree["threshold"], tree["missing_go_to_left"], np.ascontiguousarray(X))
    actions = np.argmax(tree["value"][leaves], axis=1)
    return float((w * R[np.arange(len(R)), actions]).sum())


def dataset(seed, n, p, k, ties):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 6, size=(n, p)).astype(np.float64) if ties else rng.rand(n, p)
    R = rng.randint(0, 3, size=(n, k)).astype(np.float64) if ties else rng.rand(n, k)
    w = rng.choice([0.5, 1.0, 2.0], size=n) if seed % 2 else np.ones(n)
    # As Python passes them: each row's minimum 0, one scale for all.
    R = R - R.min(axis=1, keepdims=True)
    return X, R / max(R.max(), 1.0), w


CASES = [(seed, n, p, k, ties) for seed, (n, p, k), ties in zip(
    range(12), itertools.cycle([(20, 2, 2), (30, 3, 3), (40, 2, 4), (25, 3, 2)]),
    itertools.cycle([False, True, False]))]


@pytest.mark.parametrize("seed, n, p, k, ties", CASES)
@pytest.mark.parametrize("depth", [1, 2])
def test_the_exhaustive_policy_tree_has_the_brute_force_reward(seed, n, p, k, ties, depth):
    X, R, w = dataset(seed, n, p, k, ties)
    expected = best_reward(X, R, w, np.ones(n, dtype=bool), depth)
    result = core_fit(X, R, w, depth)
    best = result["front"][0]
    assert tree_reward(best["tree"], X, R, w) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # Its loss is the regret against each sample's best action, per unit weight.
    oracle = float((w * R.max(axis=1)).sum())
    assert best["train_loss"] * w.sum() == pytest.approx(oracle - expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed, n, p, k, ties", CASES)
def test_the_lookahead_bound_holds_for_the_regret(seed, n, p, k, ties):
    # The lookahead splitter prunes with bounds that need a loss that never drops as samples are
    # added (kLossGrowsWithSamples); its one best split roots the optimal depth-2 tree.
    X, R, w = dataset(seed, n, p, k, ties)
    expected = best_reward(X, R, w, np.ones(n, dtype=bool), 2)
    params = dict(policy_params(2, "lookahead"), candidates=[1, 1])
    best = call_core("fit", "policy", X, R, w, params=params)["front"][0]
    assert tree_reward(best["tree"], X, R, w) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 4, 7])
def test_the_binned_and_the_split_over_machines_searches_reach_it_too(seed):
    # Bins holding every value: the binned search (fixed-point histograms) sees every threshold,
    # and the driver of a fit over machines replays it bit for bit from summed histograms.
    X, R, w = dataset(seed, 40, 3, 3, ties=True)
    expected = best_reward(X, R, w, np.ones(len(X), dtype=bool), 2)
    bins = every_value_binned(X)
    local = core_fit(X, R, w, 2, **bins)
    assert tree_reward(local["front"][0]["tree"], X, R, w) == pytest.approx(expected, rel=1e-12)
    call = ("fit", ("policy", X, R, w), policy_params(2), bins)
    for cuts in ([], [13, 14, 30]):
        assert_same_result(local, remote_fit(call, cuts).result())


def test_one_hot_rewards_make_the_regret_the_zero_one_loss():
    # With r_ia = [y_i == a], a leaf's regret is its weighted misclassification: the policy's
    # optimal depth-2 loss is the classifier's (same exhaustive search, same front's first point).
    rng = np.random.RandomState(3)
    X = rng.rand(40, 3)
    y = (X[:, 0] + 0.3 * rng.rand(40) > 0.6).astype(np.int32) + (X[:, 1] > 0.7)
    w = rng.choice([1.0, 2.0], size=40)
    R = np.eye(3)[y]
    policy = core_fit(X, R, w, 2)["front"][0]
    params = dict(max_depth=2, candidates=[4, 4], splitters=["exhaustive"] * 2,
                  complexity="n_splits", criterion="gini")
    classifier = call_core("fit", "classifier", X, y, w, params=params, n_classes=3)["front"][0]
    assert policy["train_loss"] == pytest.approx(classifier["train_loss"], abs=1e-12)


def test_a_leaf_where_one_action_is_everyones_best_has_no_regret():
    X = np.arange(10, dtype=np.float64)[:, None]
    R = np.column_stack((np.full(10, 0.1), np.linspace(0.2, 0.9, 10)))
    result = core_fit(X, R, np.ones(10), 2)
    assert len(result["front"]) == 1, "nothing to gain from a split"
    assert result["front"][0]["train_loss"] == 0.0
    assert result["front"][0]["tree"]["value"].shape == (1, 2)


def test_bad_rewards_are_clear_errors():
    X = np.zeros((4, 1))
    with pytest.raises(ValueError, match="one row per sample"):
        core_fit(X, np.zeros((3, 2)), np.ones(4), 1)
    with pytest.raises(ValueError, match="at least one action"):
        core_fit(X, np.zeros((4, 0)), np.ones(4), 1)
    with pytest.raises(TypeError):
        core_fit(X, np.zeros((4, 2), dtype=np.float32), np.ones(4), 1)
