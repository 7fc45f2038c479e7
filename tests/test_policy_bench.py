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
