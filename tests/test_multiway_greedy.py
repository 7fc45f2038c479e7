"""ID3 / C4.5 multiway baselines: their rules by hand, never better than the BRANCHES optimum."""

import numpy as np
import pytest

from dpdt import BranchesClassifier, MultiwayGreedyClassifier


def h_objective(clf, X, y, lam):
    return clf.score(X, y) - lam * clf.tree_.n_splits


def test_id3_and_c45_choose_by_gain_and_gain_ratio():
    # x0 has 6 categories and separates the classes perfectly (gain 1 bit, split info log2 6);
    # x1 is binary and less informative (gain 0.586 bit, split info 1); x2 barely informative
    # (gain 0.02) brings the average gain (0.535) below x1's. ID3 takes x0; C4.5, among the
    # features of at least average gain (x0, x1), takes the higher ratio: x1.
    x0 = np.repeat(np.arange(6), 4)
    y = (x0 >= 3).astype(int)
    x1 = y.copy()
    x1[[0, 12]] = 1 - x1[[0, 12]]
    x2 = np.zeros(24, dtype=int)
    x2[np.flatnonzero(y == 1)[:7]] = 1
    x2[np.flatnonzero(y == 0)[:5]] = 1
    X = np.column_stack([x0, x1, x2])
    id3 = MultiwayGreedyClassifier(criterion="entropy", max_depth=1).fit(X, y)
    c45 = MultiwayGreedyClassifier(criterion="gain_ratio", max_depth=1).fit(X, y)
    assert id3.tree_.feature[0] == 0
    assert c45.tree_.feature[0] == 1

    def entropy(p):
        p = p[p > 0]
        return -(p * np.log2(p)).sum()

    gain1 = 1.0 - np.mean([entropy(np.bincount(y[x1 == v], minlength=2) / 12) for v in (0, 1)])
    ratio0, ratio1 = 1.0 / np.log2(6), gain1 / 1.0
    assert ratio1 > ratio0   # the hand computation agrees with the choice


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("criterion", ["entropy", "gain_ratio"])
def test_greedy_never_beats_the_optimum(seed, criterion):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(60, 4))
    y = (X[:, 0] + (X[:, 1] == 2) + rng.integers(0, 2, 60) > 2).astype(int)
    lam = 0.01
    greedy = MultiwayGreedyClassifier(criterion=criterion).fit(X, y)
    best = BranchesClassifier(lam=lam).fit(X, y)
    assert best.is_optimal_
    assert h_objective(greedy, X, y, lam) <= best.objective_ + 1e-12
    assert best.objective_ == pytest.approx(h_objective(best, X, y, lam), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_depth_and_leaf_size_limits(seed):
    # Many small categories: most features have one below the leaf size at some node.
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(120, 5))
    y = rng.integers(0, 2, 120)
    tree = MultiwayGreedyClassifier(max_depth=3, min_samples_leaf=5).fit(X, y).tree_
    assert tree.max_depth <= 3
    assert tree.n_node_samples[tree.feature < 0].min() >= 5
    assert tree.n_splits > 0
