"""The leaf-pair monotonicity check (tests/_monotone.py) against ground truth: scikit-learn's
monotone trees pass it, and every pair it reports comes with two points whose predictions
break the constraint, while random probing finds no violation it missed."""

import numpy as np
import pytest
from _monotone import assert_monotone, violations, witness
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _data(seed, n=300, p=4, classifier=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).round(1)
    signal = X[:, 0] - np.sin(3 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3]
    y = signal + rng.normal(scale=0.5, size=n)
    return X, (y > 0).astype(int) if classifier else y


CONSTRAINTS = [[1, 0, 0, 0], [1, -1, 0, 0], [0, 1, 1, -1], [-1, -1, -1, -1]]


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("cst", CONSTRAINTS)
@pytest.mark.parametrize("seed", range(3))
def test_scikit_learns_monotone_trees_pass(classifier, cst, seed):
    X, y = _data(seed, classifier=classifier)
    model = (DecisionTreeClassifier if classifier else DecisionTreeRegressor)(
        max_depth=5, monotonic_cst=cst, random_state=seed).fit(X, y)
    assert_monotone(model, cst)


class _Float32Tree:
    """scikit-learn's tree_ as it acts on float32 inputs: float32(x) <= t is x <= the largest
    float32 at most t, so with those thresholds the boxes hold exactly the points it routes."""

    def __init__(self, tree):
        self.children_left, self.children_right = tree.children_left, tree.children_right
        self.feature, self.value = tree.feature, tree.value
        t32 = tree.threshold.astype(np.float32)
        below = np.nextafter(t32, np.float32(-np.inf))
        self.threshold = np.where(t32 > tree.threshold, below, t32).astype(float)


def _predict(model, X, classifier):
    return model.predict_proba(X)[:, 1] if classifier else model.predict(X)


@pytest.mark.parametrize("classifier", [False, True])
@pytest.mark.parametrize("cst", CONSTRAINTS)
@pytest.mark.parametrize("seed", range(3))
def test_every_reported_pair_has_a_witness_and_probing_finds_nothing_more(classifier, cst, seed):
    X, y = _data(seed, classifier=classifier)
    model = (DecisionTreeClassifier if classifier else DecisionTreeRegressor)(
        max_depth=5, random_state=seed).fit(X, y)
    tree = _Float32Tree(model.tree_)
    found = violations(tree, cst, classifier)
    leaf_of = {}
    for a, b in found:
        x, x2 = witness(tree, a, b, cst)
        assert model.apply(x[None])[0] == a and model.apply(x2[None])[0] == b
        moved = np.asarray(cst)
        assert np.all(np.where(moved == 0, x2 == x, True))
        assert np.all(np.where(moved == 1, x2 >= x, True))
        assert np.all(np.where(moved == -1, x2 <= x, True))
        left, right = _predict(model, np.vstack([x, x2]), classifier)
        assert left > right
        leaf_of[a, b] = True
    # Probing: points moved along the constrained features; any violation seen must be reported.
    rng = np.random.default_rng(seed)
    start = X[rng.integers(len(X), size=400)]
    step = np.abs(rng.normal(scale=2.0, size=start.shape)) * np.asarray(cst)
    moved = start + step
    before, after = _predict(model, start, classifier), _predict(model, moved, classifier)
    pairs = zip(model.apply(start)[before > after], model.apply(moved)[before > after], strict=True)
    assert {(int(a), int(b)) for a, b in pairs} <= set(leaf_of)


def test_an_unconstrained_tree_on_a_non_monotone_signal_is_caught():
    X, y = _data(0)
    model = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    assert violations(model.tree_, [0, 1, 0, 0], False)
    with pytest.raises(AssertionError, match="leaf pairs break"):
        assert_monotone(model, [0, 1, 0, 0])
