"""benchmarks/policy.py: its generator has the best policy it claims, its checks can fail."""

import io

import numpy as np
import pytest

import policy as bench  # benchmarks/policy.py (pyproject: pytest pythonpath)


def test_synthetic_best_policy_is_the_generating_tree():
    data = bench.Synthetic(2000, 4, 3, seed=0, n_test=5000)
    best = bench._route(data.tree, data.X_test)
    assert data.value(best) == pytest.approx(data.best_value)
    # Any other policy is worse: the gap is paid on every sample it gets wrong.
    other = (best + 1) % 3
    assert data.value(other) == pytest.approx(data.best_value - bench.GAP)


def test_binarised_columns_keep_every_partition():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (30, 2)).astype(float)
    binary, _ = bench.binarise(X, X, None)
    assert binary.shape == (30, 6)   # three cuts per feature of four values
    for j, column in enumerate(binary.T):
        feature, cut = divmod(j, 3)
        np.testing.assert_array_equal(column, X[:, feature] <= cut)


def test_tiny_section_checks_dpdt_against_brute_force(monkeypatch):
    pytest.importorskip("econml")
    pytest.importorskip("pystreed")
    out = io.StringIO()
    bench.section_tiny(True, out)
    assert "Check, dpdt-exact = brute force: PASS" in out.getvalue()
    # A solver that misses the optimum fails the check.
    monkeypatch.setitem(bench.SOLVERS, "dpdt-exact", bench.SOLVERS["econml"])
    out = io.StringIO()
    bench.section_tiny(True, out)
    assert "Check, dpdt-exact = brute force: FAIL" in out.getvalue()


@pytest.mark.parametrize("seed", range(6))
def test_streed_reaches_the_brute_force_optimum_beside_an_outlying_score(seed):
    # STreeD's relative tolerance applies to its cost; fed the rewards, one outlying score
    # inflates every tree's cost and the tree it certifies falls short of the optimum.
    pytest.importorskip("pystreed")
    from _policy_brute import best_policy_value

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (30, 3)).astype(np.uint8)
    R = rng.normal(size=(30, 2))
    R[0] = [1000.0, 0.0]
    fit = bench.fit_streed(X, R, 3, X, time_limit=60)
    assert fit.certified
    earned = R[np.arange(len(R)), fit.train].sum()
    assert earned == pytest.approx(best_policy_value(X, R, None, 3), rel=1e-12)


def test_streed_agreement_holds_to_its_tolerance_only():
    best = 2.0   # the mean best reward: a tree earning 1.0 has a regret of 1.0
    assert bench._streed_agrees(1.0, 1.0, best)
    assert bench._streed_agrees(1.0 + 0.5e-4, 1.0, best)        # within STreeD's 1e-4
    assert not bench._streed_agrees(1.0 + 2e-4, 1.0, best)      # STreeD short of the optimum
    assert not bench._streed_agrees(1.0 - 1e-6, 1.0, best)      # the exact tree short of STreeD
