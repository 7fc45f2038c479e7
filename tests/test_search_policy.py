"""The default search policy: "auto" is the explicit search it names, within the work it claims.

From depth 4, ``candidates="auto"`` takes the largest budgets of a ladder whose estimated sample
reads fit a cap, and ``max_bins="auto"`` bins from 10 000 samples; depth 3 keeps the screen. The
tests check that the default fit is bit for bit the explicit fit of what the policy resolved,
that the search reads no more samples than the cap allows (the core counts them), and that the
binned search the default uses on mid-sized data offers the exact search's partitions when the
bins hold every distinct value.
"""

import numpy as np
import pytest
from _trees import assert_tree_equal
from sklearn.datasets import make_classification

from dpdt import DPDTreeClassifier, DPDTreeRegressor, _binning, _search_policy
from dpdt._memory import estimate_states
from dpdt._search_policy import (
    AUTO_DEEP_LADDER,
    AUTO_READ_STATS_SCALE,
    deep_budgets,
    reads_per_level,
    resolve_candidates,
)


def _data(n, p=6, seed=0, distinct=None):
    X, y = make_classification(n_samples=n, n_features=p, n_informative=4, n_redundant=1,
                               n_classes=3, n_clusters_per_class=2, flip_y=0.05,
                               random_state=seed)
    if distinct is not None:
        X = np.floor((X - X.min(axis=0)) / np.ptp(X, axis=0) * (distinct - 1))
    return X, y


@pytest.mark.parametrize("n_samples", [5, 60, 3000, 30_000, 10**7])
@pytest.mark.parametrize("n_features", [1, 8, 40])
@pytest.mark.parametrize("binned", [False, True])
@pytest.mark.parametrize("stat_dim", [2, 23])
def test_deep_budgets_are_the_largest_that_fit_the_cap(n_samples, n_features, binned, stat_dim):
    for depth in (4, 5, 6, 8, 12):
        budgets = deep_budgets(n_samples, n_features, depth, ["cart"] * depth, binned, stat_dim)
        cap = reads_per_level(n_samples, binned) * n_samples * depth / (1 + stat_dim
                                                                        / AUTO_READ_STATS_SCALE)

        def reads(b, depth=depth):
            return estimate_states(n_samples, n_features, depth, resolve_candidates(b, depth),
                                   ["cart"] * depth, stat_dim=stat_dim).sample_reads

        rank = AUTO_DEEP_LADDER.index(budgets)
        assert reads(budgets) <= cap or rank == len(AUTO_DEEP_LADDER) - 1
        assert all(reads(larger) > cap for larger in AUTO_DEEP_LADDER[:rank])


@pytest.mark.parametrize(("depth", "n_samples"),
                         [(4, 400), (5, 400), (7, 400), (3, 12_000), (4, 12_000), (7, 12_000)])
def test_default_reads_within_its_cap(depth, n_samples):
    # The estimate counts every state at the size a balanced split gives it; a candidate's two
    # children together hold their parent's samples whatever the balance, and generators offer at
    # most their budget, so the core's count never exceeds it.
    X, y = _data(n_samples)
    model = DPDTreeClassifier(max_depth=depth).fit(X, y)
    binned = model.n_bins_ is not None
    assert binned == (n_samples >= _binning.AUTO_BINNED_SAMPLES_DEEP)
    cap = reads_per_level(n_samples, binned) * n_samples * depth / (1 + 3 / AUTO_READ_STATS_SCALE)
    assert 0 < model.stats_["sample_reads"] <= cap


# The classifier's depth 3 adds the exact depth-2 split, which no parameter names.
@pytest.mark.parametrize(("estimator", "depth", "n_samples"),
                         [(DPDTreeRegressor, 3, 300)]
                         + [(estimator, depth, n)
                            for estimator in (DPDTreeClassifier, DPDTreeRegressor)
                            for depth, n in ((4, 300), (6, 300), (4, 12_000))])
def test_auto_is_the_explicit_search_it_resolves_to(estimator, depth, n_samples):
    X, y = _data(n_samples, seed=depth)
    if estimator is DPDTreeRegressor:
        y = X[:, 0] * y + X[:, 1]
    default = estimator(max_depth=depth).fit(X, y)
    bins = _binning.uses_bins("auto", X, depth)
    splitters, candidates, exact_depth2 = _search_policy.resolve_search(
        "auto", "auto", depth, binned=bins is not None, n_samples=n_samples,
        n_features=X.shape[1], stat_dim=3,   # three classes, or a weight, a sum and a square sum
        exact_depth2=estimator._auto_exact_depth2)
    assert not exact_depth2
    # Automatic bins are quantiles and CART's thresholds, which no number of bins names: the
    # explicit search takes them too.
    explicit = estimator(max_depth=depth, splitter=splitters, candidates=tuple(candidates),
                         max_bins="auto" if bins else None).fit(X, y)
    np.testing.assert_array_equal(default.n_bins_ is None, bins is None)
    assert len(default.trees_) == len(explicit.trees_)
    for a, b in zip(default.trees_, explicit.trees_, strict=True):
        assert_tree_equal(a, b)


def test_binned_cap_grows_with_the_samples_then_stops():
    caps = [reads_per_level(n, True) for n in (1_000, 10_000, 40_000, 50_000, 10**7)]
    assert caps[0] == caps[1] < caps[2] < caps[3] == caps[4]
    assert caps[3] == pytest.approx(caps[1] * 5**0.5)
    assert reads_per_level(10**7, False) == reads_per_level(10, False)


def test_depth_three_keeps_the_screen_and_deeper_trees_take_the_ladder():
    for n_samples, binned in ((5_000, False), (50_000, False), (200_000, True)):
        splitters, candidates, _ = _search_policy.resolve_search(
            "auto", "auto", 3, binned=binned, n_samples=n_samples, n_features=10, stat_dim=2,
            exact_depth2=True)
        assert splitters[0] == ("cart" if binned else "screen")
        assert (tuple(candidates) in AUTO_DEEP_LADDER) if binned else candidates == [1, 31]
    splitters, candidates, work = _search_policy.resolve_search(
        "auto", "auto", 6, binned=True, n_samples=50_000, n_features=10, stat_dim=2,
        exact_depth2=True)
    assert set(splitters) == {"cart"} and work == 0
    assert tuple(c for c in candidates if c > 1) in AUTO_DEEP_LADDER
    # An explicit budget is the user's, whatever the depth.
    _, candidates, _ = _search_policy.resolve_search(
        "auto", (5, 5), 6, binned=True, n_samples=50_000, n_features=10, stat_dim=2)
    assert candidates[:2] == [5, 5]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("estimator", [DPDTreeClassifier, DPDTreeRegressor])
@pytest.mark.parametrize(("splitter", "candidates"),
                         [("cart", 1), ("topk", (3, 2, 2)), ("topb", (4, 2, 2)),
                          ("quantile", (3, 2, 2))])
def test_binned_and_exact_searches_agree_when_bins_hold_every_value(seed, estimator, splitter,
                                                                      candidates):
    # With a bin per distinct value every split a state's own search scores is a bin edge, with
    # the same statistics: the same candidates, partitions and objectives, so the same front and
    # the same training leaves. (A CART generator with a budget above 1 also offers splits found
    # on a subset of the state; applied to the whole state, a threshold mid-gap of the subset and
    # one at its bin's top value can send the state's values inside that gap to different sides.)
    X, y = _data(700, p=5, seed=seed, distinct=40)
    weight = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    if estimator is DPDTreeRegressor:
        y = X[:, 0] * (y + 1.0) - X[:, 2]
    params = dict(max_depth=5 if splitter == "cart" else 4, splitter=splitter,
                  candidates=candidates)
    for w in (None, weight):
        exact = estimator(max_bins=None, **params).fit(X, y, sample_weight=w)
        binned = estimator(max_bins=255, **params).fit(X, y, sample_weight=w)
        np.testing.assert_array_equal(binned.n_bins_, [len(np.unique(c)) for c in X.T])
        front = ["train_loss", "complexity"]
        np.testing.assert_allclose(binned.pareto_front_[front].tolist(),
                                   exact.pareto_front_[front].tolist(), rtol=1e-12, atol=1e-12)
        assert binned.stats_["states"] == exact.stats_["states"]
        for a, b in zip(binned.trees_, exact.trees_, strict=True):
            np.testing.assert_array_equal(a.apply(X), b.apply(X))
            np.testing.assert_array_equal(a.feature, b.feature)


@pytest.mark.parametrize("splitter", ["lookahead", ("screen", "cart")])
def test_auto_bins_keep_the_thresholds_an_exact_splitter_needs(monkeypatch, splitter):
    # Where "auto" would bin, a splitter of exact thresholds the user chose keeps them exact (an
    # explicit max_bins with it is refused, test_binned.py).
    monkeypatch.setattr(_binning, "AUTO_BINNED_SAMPLES_DEEP", 100)
    X, y = _data(300)
    assert DPDTreeClassifier(max_depth=3, splitter="cart").fit(X, y).n_bins_ is not None
    model = DPDTreeClassifier(max_depth=3, splitter=splitter, candidates=(2,)).fit(X, y)
    assert model.n_bins_ is None
    assert model.score(X, y) >= DPDTreeClassifier(max_depth=3, candidates=1).fit(X, y).score(X, y)
