"""Sanity tests of the brute-force ground truth itself (tests/_bruteforce.py); no dpdt needed."""

import itertools

import numpy as np
import pytest
from _bruteforce import (
    COMPLEXITIES,
    Enumeration,
    encode_labels,
    expected_front,
    hull_by_definition,
    lower_hull,
    optimal_objective,
    optimum_by_recursion,
    pruning_objectives,
    prunings,
    structure_to_tree,
    tree_complexity,
    tree_stats,
)
from sklearn.tree import DecisionTreeClassifier

XOR4_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
XOR4_Y = np.array([0, 1, 1, 0])

# x = 0, 1, 2 with labels 0, 1, 0 and the middle sample weighing 5 (W_total = 7)
LINE_X = np.array([[0.0], [1.0], [2.0]])
LINE_Y = np.array([0, 1, 0])
LINE_W = np.array([1.0, 5.0, 1.0])


def random_tiny(seed):
    rng = np.random.default_rng(seed)
    n, p, k = int(rng.integers(6, 11)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    if seed % 2:
        X = rng.integers(0, 3, size=(n, p)).astype(float)
    else:
        X = rng.random((n, p)).astype(np.float32).astype(float)
    y = rng.integers(0, k, n)
    y[:2] = [0, 1]
    w = rng.uniform(0.2, 3.0, n)
    costs = rng.uniform(0.5, 2.0, p)
    return X, y, w, costs


def n_thresholds(X, idx):
    return sum(len(set(X[idx, f].tolist())) - 1 for f in range(X.shape[1]))


def count_depth2(X):
    """1 + sum over root splits of (1 + #splits of the left part) * (1 + #splits of the right)."""
    idx = np.arange(len(X))
    total = 1
    for f in range(X.shape[1]):
        vals = sorted(set(X[:, f].tolist()))
        for a, b in zip(vals[:-1], vals[1:], strict=True):
            left = idx[X[:, f] <= (a + b) / 2]
            right = idx[X[:, f] > (a + b) / 2]
            total += (1 + n_thresholds(X, left)) * (1 + n_thresholds(X, right))
    return total


@pytest.mark.parametrize("seed", range(12))
def test_depth1_count_is_one_plus_thresholds(seed):
    X, y, _, _ = random_tiny(seed)
    enum = Enumeration(X, y, np.ones(len(y)), 1)
    assert len(enum) == 1 + n_thresholds(X, np.arange(len(X)))


@pytest.mark.parametrize("seed", range(12))
def test_depth2_count_and_no_duplicates(seed):
    X, y, _, _ = random_tiny(seed)
    enum = Enumeration(X, y, np.ones(len(y)), 2)
    assert len(enum) == count_depth2(X)
    assert len(set(enum.trees.structures)) == len(enum)
    assert enum.trees.depth.max() <= 2


def test_xor4_by_hand():
    e1 = Enumeration(XOR4_X, XOR4_Y, np.ones(4), 1)
    e2 = Enumeration(XOR4_X, XOR4_Y, np.ones(4), 2)
    assert len(e1) == 3 and len(e2) == 9
    assert np.allclose(e1.train_loss, 0.5)
    assert e2.train_loss.min() == 0.0
    # both full trees: 3 splits, every level weighs 1 in expected tests
    full = np.flatnonzero(e2.train_loss == 0)
    assert len(full) == 2
    assert np.allclose(e2.complexity("n_splits")[full], 3)
    assert np.allclose(e2.complexity("expected_tests")[full], 2)
    assert np.allclose(e2.impurity("gini")[full], 0)
    assert np.allclose(lower_hull(e2.points("n_splits")), [[0, 0.5], [3, 0]])
    assert np.allclose(lower_hull(e2.points("expected_tests")), [[0, 0.5], [2, 0]])
    assert e2.lexicographic_optimum(0.0, criterion="entropy") == (0.0, 0.0, 3)
    # above alpha = 0.25 (expected tests) the single leaf wins
    assert optimal_objective(XOR4_X, XOR4_Y, None, 2, 0.3, "expected_tests") == 0.5
    assert optimal_objective(XOR4_X, XOR4_Y, None, 2, 0.2, "expected_tests") == pytest.approx(0.4)


def test_weighted_line_by_hand():
    enum = Enumeration(LINE_X, LINE_Y, LINE_W, 2)
    pts = enum.points("expected_tests")
    # leaf predicts 1 (weight 5 vs 2): loss 2/7; stumps: 1/7 at 1 test; depth 2: 0 at 13/7
    assert {tuple(np.round(q, 12)) for q in pts} == {
        tuple(np.round(q, 12)) for q in [(0, 2 / 7), (1, 1 / 7), (13 / 7, 0)]
    }
    assert np.allclose(lower_hull(pts), [[0, 2 / 7], [13 / 7, 0]])
    amin, amax, C, L = expected_front(lower_hull(pts))
    assert np.allclose(amin, [0, 2 / 13]) and np.allclose(amax, [2 / 13, np.inf])
    assert np.allclose(C, [13 / 7, 0]) and np.allclose(L, [0, 2 / 7])
    # n_splits: (0, 2/7), (1, 1/7), (2, 0) are collinear, the middle one is never the unique
    # optimum
    assert np.allclose(lower_hull(enum.points("n_splits")), [[0, 2 / 7], [2, 0]])
    assert optimal_objective(LINE_X, LINE_Y, LINE_W, 2, 0.1, "n_splits") == pytest.approx(0.2)
    assert optimal_objective(LINE_X, LINE_Y, LINE_W, 1, 0.1, "n_splits") == pytest.approx(
        1 / 7 + 0.1
    )


def test_lower_hull_rules():
    # duplicates, a point of equal loss but larger complexity, collinear and dominated points
    pts = [
        (0, 1.0),
        (0, 1.2),
        (1, 0.5),
        (2, 0.25),
        (3, 0.125),
        (4, 0.125),
        (2.5, 0.3),
        (1.5, 0.375),
        (6, 0.125),
    ]
    hull = lower_hull(pts)
    assert np.allclose(hull, [[0, 1.0], [1, 0.5], [2, 0.25], [3, 0.125]])
    # (1.5, 0.375) is the midpoint of (1, .5)-(2, .25): collinear, dropped
    assert np.allclose(lower_hull([(0, 1), (1, 0.5), (2, 0)]), [[0, 1], [2, 0]])
    assert np.allclose(lower_hull([(0, 1)]), [[0, 1]])
    assert np.allclose(lower_hull([(1, 1), (0, 1)]), [[0, 1]])


@pytest.mark.parametrize("seed", range(30))
def test_lower_hull_matches_definition_on_random_points(seed):
    rng = np.random.default_rng(seed)
    if seed % 2:  # integer grid: many collinear points and ties
        pts = rng.integers(0, 6, size=(40, 2)) / np.array([1.0, 8.0])
    else:
        pts = rng.random((40, 2))
    assert np.allclose(lower_hull(pts), hull_by_definition(pts))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("complexity", COMPLEXITIES)
def test_lower_hull_matches_definition_on_trees(seed, complexity):
    X, y, w, costs = random_tiny(seed)
    enum = Enumeration(X, y, w, 2)
    pts = enum.points(complexity, costs)
    hull = lower_hull(pts)
    assert np.allclose(hull, hull_by_definition(pts))
    # every hull vertex is the optimum strictly inside its alpha interval
    amin, amax, C, L = expected_front(hull)
    for a0, a1, c, loss in zip(amin, amax, C, L, strict=True):
        a = (a0 + a1) / 2 if np.isfinite(a1) else 2 * a0 + 1
        obj = enum.objective(a, complexity, costs)
        assert obj.min() == pytest.approx(loss + a * c, abs=1e-12)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("depth", [1, 2])
def test_enumeration_records_match_routing(seed, depth):
    """Each enumerated tree, turned into arrays and re-evaluated by routing, gives its record."""
    X, y, w, costs = random_tiny(seed)
    _, y_idx = encode_labels(y)
    k = y_idx.max() + 1
    enum = Enumeration(X, y_idx, w, depth)
    et = enum.complexity("expected_tests", costs)
    ns = enum.complexity("n_splits", costs)
    step = max(1, len(enum) // 400)
    for t in range(0, len(enum), step):
        s = tree_stats(enum.tree(t), X, y_idx, w, k, costs)
        assert s["train_loss"] == pytest.approx(enum.train_loss[t], abs=1e-12)
        assert s["expected_tests"] == pytest.approx(et[t], abs=1e-12)
        assert s["n_splits_cost"] == pytest.approx(ns[t], abs=1e-12)
        assert s["gini"] == pytest.approx(enum.impurity("gini")[t], abs=1e-12)
        assert s["entropy"] == pytest.approx(enum.impurity("entropy")[t], abs=1e-12)
        assert s["n_splits"] == enum.n_splits[t]
        assert s["n_leaves"] == enum.trees.n_leaves[t]
        assert s["depth"] == enum.trees.depth[t]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("complexity", COMPLEXITIES)
def test_enumeration_optimum_matches_recursion(seed, depth, complexity):
    X, y, w, costs = random_tiny(seed)
    _, y_idx = encode_labels(y)
    enum = Enumeration(X, y_idx, w, depth)
    for alpha in (0.0, 0.01, 0.05, 0.2, 1.0):
        expected = optimum_by_recursion(X, y_idx, w, depth, alpha, complexity, costs)
        assert enum.objective(alpha, complexity, costs).min() == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(0, 12, 2))
@pytest.mark.parametrize("depth", [1, 2])
def test_sklearn_tree_is_enumerated(seed, depth):
    """A CART tree on float32-exact data is one of the enumerated partitions."""
    X, y, w, _ = random_tiny(seed)
    _, y_idx = encode_labels(y)
    k = y_idx.max() + 1
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y_idx, sample_weight=w)
    s = tree_stats(cart.tree_, X, y_idx, w, k)
    enum = Enumeration(X, y_idx, w, depth)
    match = (
        (np.abs(enum.train_loss - s["train_loss"]) < 1e-12)
        & (np.abs(enum.complexity("expected_tests") - s["expected_tests"]) < 1e-12)
        & (np.abs(enum.impurity("gini") - s["gini"]) < 1e-12)
    )
    assert match.any()
    assert enum.train_loss.min() <= s["train_loss"] + 1e-12


def test_prunings_of_a_full_depth2_tree():
    X, y, w, costs = random_tiny(0)
    _, y_idx = encode_labels(y)
    k = y_idx.max() + 1
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y_idx, sample_weight=w)
    ts, W = prunings(cart.tree_, X, y_idx, w, k)
    n_internal = int(np.sum(cart.tree_.children_left != -1))
    expected_count = {1: 2, 2: 3, 3: 5}[n_internal]
    assert len(ts) == expected_count
    for complexity, alpha in itertools.product(COMPLEXITIES, (0.0, 0.1)):
        objs = pruning_objectives(cart.tree_, X, y_idx, w, k, alpha, complexity, costs)
        s = tree_stats(cart.tree_, X, y_idx, w, k, costs)
        assert objs[-1] == pytest.approx(
            s["train_loss"] + alpha * tree_complexity(s, complexity), abs=1e-12
        )
        # the root collapsed to a leaf is the first option
        counts = np.bincount(y_idx, weights=w, minlength=k)
        assert objs[0] == pytest.approx((W - counts.max()) / W, abs=1e-12)
    # each pruning, rebuilt as arrays, evaluates to its record
    for s_, loss in zip(ts.structures, ts.loss, strict=True):
        tree = structure_to_tree(s_, X, y_idx, w, k)
        assert tree_stats(tree, X, y_idx, w, k)["train_loss"] == pytest.approx(loss / W)
