"""The exact search's sweep of states of depth two, against an independent optimum.

A state of depth two of the bounded search (``splitter="exhaustive", full_front=False``) whose
objective's loss is a sum less the max of K sums (the 0-1 loss, a policy's regret) and which
holds enough samples reads its cuts' children's values from one sweep per feature
(``stats_["sweeps"]``): exact with weights that sum exactly, bounds within a tolerance
otherwise, and a cut that may beat the incumbent has its children searched to confirm it. A
state too large for a value per cut keeps one per block of cuts, bounds of every cut in the block,
then reads the cuts' own values in the few blocks that may still hold a better cut
(``Params.sweep_blocks`` forces the blocks here). The
tree must stay optimal and certified: continuous features, many equal values, weights of both
kinds, 2-6 classes or actions, with and without a split cost, by cut and by block.

The states are too large for the brute force of ``_policy_brute.py``: the optimum of depth 2 is
computed here from two-dimensional prefix sums instead, every pair of features at once.
"""

import numpy as np
import pytest

from dpdt import DPDTreeClassifier, DPDTreePolicy, _core, _runner

TOL = 1e-9
N = 1030   # above the least state the search sweeps


def _depth_one(base, weight, terms, alpha, valid):
    """Depth-one values of sets of sums ``base`` (..., n), weight, ``terms`` (..., n, K) per
    threshold of the second feature (those ``valid``), and their totals (last position)."""
    total_base, total_terms = base[..., -1], terms[..., -1, :]
    leaf = total_base - total_terms.max(axis=-1)
    stump = base[..., -1:] - terms.max(axis=-1) - (total_terms[..., None, :] - terms).max(axis=-1)
    stump = np.where(valid, stump, np.inf).min(axis=-1) + alpha * weight[..., -1]
    return np.minimum(leaf, stump)


def depth_two_optimum(X, base, terms, w, alpha):
    """Least loss + alpha * (weight reaching each split), over trees of depth <= 2, / weight."""
    n, p = X.shape
    best = base.sum() - terms.sum(axis=0).max()
    for f1 in range(p):
        o1 = np.argsort(X[:, f1], kind="stable")
        r1 = np.empty(n, int)
        r1[o1] = np.arange(n)
        cuts = np.flatnonzero(np.diff(X[o1, f1]) > 0)   # t: rows of rank <= t go left
        if len(cuts) == 0:
            continue
        children = np.full((2, len(cuts)), np.inf)
        for f2 in range(p):
            o2 = np.argsort(X[:, f2], kind="stable")
            r2 = np.empty(n, int)
            r2[o2] = np.arange(n)
            valid = np.append(np.diff(X[o2, f2]) > 0, False)
            grid = np.zeros((n, n, terms.shape[1] + 2))
            grid[r1, r2, 0] = base
            grid[r1, r2, 1] = w
            grid[r1, r2, 2:] = terms
            grid = grid.cumsum(axis=0).cumsum(axis=1)
            left = grid[cuts]
            right = grid[-1][None] - left
            for side, sums in enumerate((left, right)):
                value = _depth_one(sums[..., 0], sums[..., 1], sums[..., 2:], alpha, valid)
                children[side] = np.minimum(children[side], value)
        best = min(best, float((children.sum(axis=0) + alpha * w.sum()).min()))
    return best / w.sum()


def _features(rng, kind):
    if kind == "ties":   # each value shared by about four samples
        return rng.integers(0, N // 4, (N, 2)).astype(float)
    return rng.random((N, 2))


def _weights(rng, kind):
    if kind == "none":
        return None
    if kind == "integer":   # sums exact: the sweep's values are the children's own
        return rng.integers(1, 4, N).astype(float)
    return rng.random(N) + 0.1   # sums rounded: the sweep's values are bounds


@pytest.fixture(params=[0, 7, 64], ids=lambda b: f"blocks{b}" if b else "by_cut")
def sweep_blocks(request, monkeypatch):
    """The sweeps' blocks of cuts per feature forced on every fit (0: the search's own choice,
    a value per cut at this size)."""
    if request.param:
        made = _runner.core_params

        def forced(kind, params):
            if kind is _core.Params:
                params = {**params, "sweep_blocks": request.param}
            return made(kind, params)

        monkeypatch.setattr(_runner, "core_params", forced)
    return request.param


def _assert_certified(model, best):
    assert model.stats_["sweeps"] > 0, "no state was swept: the test does not reach the sweep"
    assert model.is_optimal_
    tolerance = TOL * max(1.0, abs(best))
    assert model.objective_ == pytest.approx(best, abs=tolerance)
    assert model.lower_bound_ == pytest.approx(best, abs=tolerance)


@pytest.mark.parametrize("seed", range(1))
@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("features", ["continuous", "ties"])
@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_classifier_at_depth_two_reaches_the_optimum(seed, k, features, weights, sweep_blocks):
    rng = np.random.default_rng(seed)
    X = _features(rng, features)
    # Labels loosely tied to the features: many cuts are close.
    score = (X[:, 0] + X[:, 1]) / X.max()
    y = (score * k / 2 + rng.normal(scale=2.0, size=N)).astype(int) % k
    w = _weights(rng, weights)
    model = DPDTreeClassifier(max_depth=2, splitter="exhaustive", full_front=False).fit(X, y, w)
    ones = np.ones(N) if w is None else w
    # The 0-1 loss: the weight less the heaviest class's.
    _assert_certified(model, depth_two_optimum(X, ones, ones[:, None] * np.eye(k)[y], ones, 0.0))


@pytest.mark.parametrize("seed", range(1))
@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("features", ["continuous", "ties"])
@pytest.mark.parametrize("weights", ["none", "real"])
@pytest.mark.parametrize("alpha", [0.0, 0.002])
def test_policy_at_depth_two_reaches_the_optimum(seed, k, features, weights, alpha, sweep_blocks):
    rng = np.random.default_rng(10 + seed)
    X = _features(rng, features)
    R = rng.normal(size=(N, k)) + 0.2 * (X[:, :1] > X[:, 1:2]) * np.arange(k)
    w = _weights(rng, weights)
    model = DPDTreePolicy(max_depth=2, splitter="exhaustive", full_front=False,
                          alpha=alpha).fit(X, R, w)
    ones = np.ones(N) if w is None else w
    # The regret: the best rewards' sum less the chosen action's.
    terms = ones[:, None] * R
    _assert_certified(model, depth_two_optimum(X, terms.max(axis=1), terms, ones, alpha))
